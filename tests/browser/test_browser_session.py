"""The club session's totals on the table's tab (static/session.js, op session_show): shown to
the roles that may read them, the same totals as `mjtable session show`, updated after a game."""
from __future__ import annotations

import json
import re

from controller.api.ops import BY_NAME, ROLES
from controller.api.web.server import STATIC

from .browser_harness import EAST_ONLY, Page

PLAYERS = ("Ann", "Bo", "Cy", "Di")


def signed(points: int) -> str:
    """As the page writes table points (words.js): +5000, −5000, 0."""
    return f"+{points}" if points > 0 else f"\u2212{-points}" if points < 0 else "0"


def test_the_operator_sees_the_sessions_totals_after_each_game_and_a_spectator_none(browser, web_table):
    page = Page(browser, web_table.url).open("table")
    web_table.ok("session", "start", "--name", "Friday club")
    assert page.find("#session-totals").get_attribute("hidden") is not None  # a spectator's page
    page.log_in_operator()
    page.tab("table")
    page.wait_text("#session-totals h3", "session 1 (Friday club) · 0 game(s)")
    assert page.text("#session-totals .idle") == "no totals yet: no finished game with named players"

    page.start_game(EAST_ONLY, players=PLAYERS)
    seq = 0
    for _ in range(4):  # EMA's East round, a player after the dealer winning each hand: E1-E4, then over
        status = web_table.wait_hand_after(seq)
        seq, dealer = status["hand_in_play"]["seq"], status["dealer"]
        web_table.ok("result", "ron", "--discarder", str((dealer + 2) % 4), "--winner", str((dealer + 1) % 4),
                     "--han", "2", "--fu", "30")
    web_table.wait_game_over()
    page.tab("table")
    rows = page.wait(lambda: page.all("#session-totals tbody tr") or None, "the totals after the game")
    report = json.loads(web_table.ok("session", "show", "--json"))
    shown = [[cell.text for cell in row.find_elements("css selector", "td, th")] for row in rows]
    assert shown == [[str(place), t["name"], str(t["games"]), signed(t["table_points"]), str(t["score"]),
                      f"{t['average_rank']:.2f}"] for place, t in enumerate(report["totals"], 1)]
    assert sorted(row[1] for row in shown) == sorted(PLAYERS)
    assert page.text("#session-totals h3") == "session 1 (Friday club) · 1 game(s)"

    page.log_out()
    page.wait(lambda: page.find("#session-totals").get_attribute("hidden") is not None, "the totals hidden")
    assert page.console_errors() == []


def test_the_page_shows_the_totals_to_the_roles_the_op_table_lets_read_them():
    least = ROLES.index(BY_NAME["session_show"].role)
    declared = re.search(r"export const READ_BY = (\[[^\]]*\]);", (STATIC / "session.js").read_text()).group(1)
    assert json.loads(declared) == list(ROLES[least:])
