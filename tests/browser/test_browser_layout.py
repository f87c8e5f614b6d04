"""The page on a phone, as players hold it: at 360×740 and 390×844 (CSS pixels, a phone's
device metrics) no tab scrolls sideways, the New game form is whole, and the journal's
score columns (with its honba and riichi columns) are on screen, not off its right edge.
MJTABLE_SCREENSHOTS=1 writes each tab's screenshot to docs/img/."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..e2e.e2e_harness import draw, ron
from .browser_harness import PLAYERS, Page

PHONES = [(360, 740), (390, 844)]
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "img"
OVERFLOW = "return [document.documentElement.scrollWidth, window.innerWidth]"
# the elements whose right edge passes the viewport's (the first few, for the message)
BEYOND = """
const width = window.innerWidth;
return [...document.querySelectorAll(arguments[0])].filter((e) => e.offsetParent !== null)
  .filter((e) => e.getBoundingClientRect().right > width + 0.5)
  .slice(0, 5).map((e) => e.outerHTML.slice(0, 80));
"""


def as_phone(page: Page, size: tuple[int, int]) -> None:
    width, height = size
    page.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})


@pytest.fixture
def played(web_table):
    """Two hands played with named players (a riichi, a counter), then the third in play."""
    web_table.ok("start", "--players", *PLAYERS, where="--config")
    seq = web_table.wait_hand_after(0)["hand_in_play"]["seq"]
    web_table.ok("riichi", "1")
    web_table.ok("result", *draw(0, 1))
    seq = web_table.wait_hand_after(seq)["hand_in_play"]["seq"]
    web_table.ok("result", *ron(2, (0, 3, 40)))
    web_table.wait_hand_after(seq)
    return web_table


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_tab_scrolls_sideways_on_a_phone_and_the_journal_scores_are_on_screen(browser, played, size):
    page = Page(browser, played.url)
    as_phone(page, size)
    try:
        page.open("table")
        page.log_in_operator()
        for tab in ("table", "result", "journal", "operator"):
            page.tab(tab)
            if tab == "journal":
                page.wait(lambda: page.all("#journal-view tr.hand"), "the journal")
            if tab == "operator":
                page.wait(lambda: page.all(".start [name=player]"), "the New game form")
            scroll, inner = browser.execute_script(OVERFLOW)
            assert scroll <= inner, f"{tab} at {size}: {scroll} px wide in {inner}"
            assert browser.execute_script(BEYOND, "main *") == [], f"{tab} at {size}"
            if os.environ.get("MJTABLE_SCREENSHOTS"):
                browser.save_screenshot(str(IMAGES / f"{tab}-{size[0]}x{size[1]}.png"))
        page.tab("journal")
        # opening the tab loads the journal again: read its heads once drawn (page.wait looks again if redrawn)
        heads = page.wait(lambda: [th.text for th in page.all("#journal-view thead th")], "the journal's heads")
        assert "honba" in heads and "riichi" in heads, heads
        assert all(name in " ".join(heads) for name in PLAYERS[:4]), heads
        page.tab("operator")
        page.find(".start [name=player]").click()  # focusing a field shifts nothing sideways
        assert browser.execute_script("return window.scrollX") == 0
        assert page.console_errors() == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
