"""A spectator's page stays live, with no reload, through a lost and restored link to the
table and through a restart of the controller."""
from __future__ import annotations

import signal

from .browser_harness import Page


def test_a_spectator_page_stays_live_through_a_link_reconnect_and_a_controller_restart(browser, web_table):
    web_table.ok("start", where="--config")
    web_table.wait_hand_after(0)
    page = Page(browser, web_table.url).open("table")
    page.wait_text("#walls .round", "hand E1")
    loaded = browser.execute_script("return performance.timeOrigin")

    web_table.sim.send_signal(signal.SIGSTOP)  # the table falls silent: the link is lost
    try:
        page.wait_text("#walls .state", "reconnecting to the table")
    finally:
        web_table.sim.send_signal(signal.SIGCONT)
    page.wait_text("#walls .state", "playing")

    web_table.stop_controller(signal.SIGTERM)
    page.wait(lambda: page.find("#link").get_attribute("data-live") == "false", "the stream lost")
    web_table.start_controller()
    page.wait(lambda: page.find("#link").get_attribute("data-live") == "true", "the stream back")
    web_table.ok("riichi", "2")
    page.wait_text('#cards [data-seat="2"] .badge', "riichi")

    assert browser.execute_script("return performance.timeOrigin") == loaded  # never reloaded
    assert page.console_errors() == []


def test_while_the_table_is_unreachable_the_page_is_not_live_and_the_operator_sees_why(browser, web_table):
    web_table.ok("start", where="--config")
    web_table.wait_hand_after(0)
    page = Page(browser, web_table.url).open("operator")
    page.log_in_operator()
    page.wait_text("#operator-view .ok", "No fault")
    assert page.text("#link") == "live"
    web_table.sim.send_signal(signal.SIGSTOP)  # the table falls silent: the link is lost
    try:
        page.wait_text("#link", "table unreachable")
        shown = page.wait_text("#operator-view .fault", "The table cannot be reached")
        assert "No fault" not in page.text("#operator-view")
        page.tab("table")
        page.wait_text("#walls .state", "reconnecting to the table")
        assert page.text("#link") == "table unreachable", shown
    finally:
        web_table.sim.send_signal(signal.SIGCONT)
    page.wait_text("#link", "live")
    page.tab("operator")
    page.wait_text("#operator-view .ok", "No fault")
    assert page.console_errors() == []
