"""Two phones at the table: both enter the same result and it is applied once; a player's
page shows no operator controls and the server refuses the player an operator's op."""
from __future__ import annotations

import pytest

from .browser_harness import PHONE, Page, close_browser, new_browser

# Both pages tap Confirm at the same moment of the machine's clock.
CONFIRM_AT = """
const at = arguments[0];
setTimeout(() => document.querySelector("#confirm").click(), Math.max(0, at - Date.now()));
"""


@pytest.fixture
def second_phone():
    driver = new_browser(PHONE)
    yield driver
    close_browser(driver)


def ready_to_confirm_a_draw(page: Page, pin: str) -> None:
    page.open("result")
    page.log_in_player(pin)
    page.wait_hand("E1")
    page.kind("draw")
    page.pick("tenpai", 0)
    page.preview()


def test_two_phones_confirming_the_same_result_at_once_apply_it_once(browser, second_phone, web_table):
    web_table.ok("start", where="--config")
    web_table.wait_hand_after(0)
    pin = web_table.operator_session()["pin"]
    phones = [Page(browser, web_table.url), Page(second_phone, web_table.url)]
    for phone in phones:
        ready_to_confirm_a_draw(phone, pin)
    at = browser.execute_script("return Date.now()") + 800  # time for both pages to set their timers
    for phone in phones:
        phone.driver.execute_script(CONFIRM_AT, at)
    notices = {phone.wait_text("#entry .notice", "recorded") for phone in phones}

    assert notices == {"hand E1 recorded", "hand E1: this result was recorded already"}
    web_table.wait_hand_after(1)
    hands = [r for r in web_table.journal() if "hand" in r]
    assert [(r["hand"], r["result"]) for r in hands] == [("E1", {"kind": "draw", "tenpai": [0], "riichi": []})]
    assert all(phone.console_errors() == [] for phone in phones)


OPERATOR_CONTROLS = '[data-action="retry"], [data-action="pause"], [data-action="resume"], [data-action="abandon"], ' \
                    '[data-action="start"], .pin'
# The page's own client, with the player's session and CSRF token, asked for an operator's op.
PAUSE_AS_THE_PAGE = """
const done = arguments[arguments.length - 1];
import("/api.js").then((api) => api.op("pause")).then(() => done("paused"), (refused) => done(refused.code));
"""


def test_a_player_sees_no_operator_controls_and_is_refused_an_operator_op(browser, web_table):
    web_table.ok("start", where="--config")
    web_table.wait_hand_after(0)
    page = Page(browser, web_table.url).open("result")
    page.log_in_player(web_table.operator_session()["pin"])
    page.wait_hand("E1")
    page.tab("operator")
    assert page.find("#operator-login").is_displayed()  # the operator's login, nothing else
    assert page.all(OPERATOR_CONTROLS) == []

    assert browser.execute_async_script(PAUSE_AS_THE_PAGE) == "forbidden"
    assert web_table.status()["state"] == "playing"
    assert page.console_errors() == []
