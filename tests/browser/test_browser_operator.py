"""The operator's page: the fault with its numbered code and what to do, Retry, the game
started from the page, the players' PIN and the page's address as a QR code that reads
back as the address (checked module by module against the qrcode package)."""
from __future__ import annotations

import re

import pytest
import qrcode
from qrcode.util import MODE_8BIT_BYTE, QRData

from .browser_harness import EAST_ONLY, Page, WebTable

# The page's QR encoder, called in the browser: each case's modules as strings of 0/1.
ENCODE = """
const [cases, done] = [arguments[0], arguments[arguments.length - 1]];
import("/qr.js").then((qr) => done(cases.map(([text, mask]) =>
  qr.qrMatrix(text, mask).map((row) => row.map((dark) => (dark ? "1" : "0")).join("")))));
"""
TEXTS = ["http://127.0.0.1:8080/", "http://192.168.100.200:43121/", "x", "é" * 60,
         "https://table-7.parlour.example.org:8443/" * 3, "b" * 213]


def reference(text: str, mask: int) -> list[str]:
    """The symbol the qrcode package makes: byte mode, level M, the given mask."""
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, mask_pattern=mask, border=0)
    code.add_data(QRData(text.encode(), mode=MODE_8BIT_BYTE), optimize=0)
    code.make(fit=True)
    return ["".join("1" if dark else "0" for dark in row) for row in code.get_matrix()]


def drawn_modules(svg_path: str, size: int) -> list[str]:
    """The dark modules of the page's QR SVG (a quiet zone of 4), as rows of 0/1."""
    rows = [["0"] * size for _ in range(size)]
    for x, y in re.findall(r"M(\d+) (\d+)h1v1h-1z", svg_path):
        rows[int(y) - 4][int(x) - 4] = "1"
    return ["".join(row) for row in rows]


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
    svg = page.find(".players-pin svg.qr path").get_attribute("d")
    drawn = drawn_modules(svg, len(reference(jammed_table.url, 0)))
    assert any(drawn == reference(jammed_table.url, mask) for mask in range(8))
    assert page.console_errors() == []


def test_the_pages_qr_encoder_makes_the_symbols_of_the_qrcode_package(browser, static_site):
    browser.get(f"{static_site}api.js")  # any page of the site: the encoder is imported into it
    cases = [[text, mask] for text in TEXTS for mask in range(8)]
    assert browser.execute_async_script(ENCODE, cases) == [reference(text, mask) for text, mask in cases]
    best = browser.execute_async_script(ENCODE, [[text, None] for text in TEXTS])
    assert all(any(symbol == reference(text, mask) for mask in range(8)) for symbol, text in zip(best, TEXTS))


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
