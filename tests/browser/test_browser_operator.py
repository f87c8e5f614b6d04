"""The operator's page: the fault with its numbered code and what to do, Retry, the game
started from the page, the players' PIN, the page's address and its QR code (drawn by segno on
the server, op qr: checked module by module against segno's symbol of the address, as no QR
decoder is at hand in the tests)."""
from __future__ import annotations

import re

import pytest
import segno

from .browser_harness import EAST_ONLY, Page, WebTable

QUIET_ZONE = 4  # modules of white around the symbol


def drawn_modules(svg_path: str) -> list[list[int]]:
    """The modules of the page's QR SVG: segno draws each row's dark runs as `h` lines on the
    row's middle (``M4 4.5h7m2 0h1...``), moved between by relative `m`."""
    dark, x, y = set(), 0.0, 0.0
    for command, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", svg_path):
        if command == "M":
            x, y = float(a), float(b)
        elif command == "m":
            x, y = x + float(a), y + float(b)
        else:
            dark |= {(int(y), int(x) + i) for i in range(int(a))}
            x += float(a)
    size = max(max(r, c) for r, c in dark) - QUIET_ZONE + 1
    return [[int((r + QUIET_ZONE, c + QUIET_ZONE) in dark) for c in range(size)] for r in range(size)]


def symbol_of(text: str) -> list[list[int]]:
    """The symbol of ``text`` as segno makes it (level M, as the op qr asks for)."""
    return [list(row) for row in segno.make(text, error="m", boost_error=False).matrix]


@pytest.fixture
def jammed_table(procs):
    plan = procs.folder / "faults.yaml"
    plan.write_text("jam: [{shuffle: 1, sensor: stacker}]\n")
    return WebTable(procs, sim_args=("--faults", str(plan)))


def test_the_operator_starts_a_game_sees_the_fault_retries_and_shows_the_pin_and_the_address(browser, jammed_table):
    page = Page(browser, jammed_table.url).open("operator")
    page.log_in_operator()
    pin = page.start_game(EAST_ONLY)
    code = page.wait(lambda: page.text("#operator-view .fault .code") if page.all("#operator-view .fault .code") else None, "the fault")
    assert re.fullmatch(r"E2\d\d", code)
    shown = page.text("#operator-view .fault")
    assert "stacker" in shown and "press a seat's OK button (or Retry on the table's page)" in shown
    assert shown.count(code) == 1  # on its own line, not again in the text
    assert "`" not in shown and "mjtable" not in shown  # no CLI command on the page
    page.tab("table")
    page.wait_text("#fault", code)
    assert "`" not in page.text("#fault") and "mjtable" not in page.text("#fault")
    page.tab("operator")
    page.click('[data-action="retry"]')
    page.wait_text("#operator-view .ok", "No fault")
    page.tab("table")
    page.wait_text("#walls .round", "hand E1")

    page.tab("operator")
    assert page.text(".pin") == pin == jammed_table.operator_session()["pin"]
    assert page.text(".players-pin .url") == jammed_table.url
    qr = page.find(".players-pin svg.qr")
    assert qr.is_displayed() and qr.size["width"] > 100  # big enough for a phone's camera
    assert page.find(".players-pin svg.qr title").get_attribute("textContent") == jammed_table.url
    assert drawn_modules(page.find(".players-pin svg.qr path").get_attribute("d")) == symbol_of(jammed_table.url)
    assert page.console_errors() == []


def test_the_operator_starts_an_east_only_game_where_the_rule_set_has_one(browser, web_table):
    page = Page(browser, web_table.url).open("operator")
    page.log_in_operator()
    page.start_game("zung-jung", east_only=True)
    seq = 0
    for _ in range(4):  # Zung Jung passes the deal every hand: E1-E4, then over
        seq = web_table.wait_hand_after(seq)["hand_in_play"]["seq"]
        web_table.ok("result", "draw")
    web_table.wait_game_over()
    assert [r["hand"] for r in web_table.journal() if "hand" in r] == ["E1", "E2", "E3", "E4"]
    assert page.console_errors() == []
