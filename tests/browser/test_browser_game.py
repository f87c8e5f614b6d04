"""A whole game played only by clicking the page, on a phone-sized browser: the operator
starts it, the players enter riichi, a kan, a ron, a tsumo, a double ron and a draw, and
correct a wrong entry before confirming. Its journal is the one the same results typed at
the CLI give on a second table."""
from __future__ import annotations

import os
import urllib.request
from pathlib import Path

from ..e2e.e2e_harness import Hand, chombo, draw, ron, tsumo
from .browser_harness import DESKTOP, EAST_ONLY, PHONE, Page, game_both_ways

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "img"

# The game as the CLI plays it: what the page's players enter below, hand by hand.
CLI_GAME = [
    Hand(ron(2, (1, 3, 40)), riichi=(1,), kans=1),
    Hand(tsumo((0, 2, 30))),
    Hand(ron(0, (1, 2, 30), (3, "yakuman", 1))),
    Hand(draw(0, 2), riichi=(0,)),
]


def same_game(journal: list[dict]) -> list[dict]:
    """The records without where each table keeps its rule set's file (the journal names a
    rule set of the config's folder by its path)."""
    return [{**r, "ruleset": Path(r["ruleset"]).stem} if "ruleset" in r else r for r in journal]


def screenshots(page: Page) -> None:
    """The table page at phone and desktop size, for docs/img/ (MJTABLE_SCREENSHOTS=1)."""
    page.tab("table")
    for name, size in (("table-phone", PHONE), ("table-desktop", DESKTOP)):
        page.driver.set_window_size(*size)
        page.driver.execute_script("window.scrollTo(0, 0)")
        page.driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
    page.driver.set_window_size(*PHONE)
    page.tab("result")


def play_by_clicking(page: Page) -> None:
    page.wait_hand("E1")
    page.riichi(1)
    page.kan(1)
    if os.environ.get("MJTABLE_SCREENSHOTS"):
        screenshots(page)
    page.kind("ron")
    page.pick("discarder", 2)
    page.pick("winner", 3)  # the wrong winner: the payments show it, and it is corrected
    page.hand_value(3, "3", "40")
    wrong = page.preview()
    assert wrong[3].startswith("North · Di +6200")  # 5,200 and the riichi stick on the table
    assert wrong[1].startswith("South · Bo 0")  # his bet was taken when he declared: not again
    page.pick("winner", 3)
    page.pick("winner", 1)
    page.hand_value(1, "3", "40")
    right = page.preview()
    assert right[1].startswith("South · Bo +6200") and right[3].startswith("North · Di 0")  # 5,200, his stick back
    assert page.confirm() == "hand E1 recorded"

    page.wait_hand("E2")
    page.kind("tsumo")
    page.pick("winner", 0)
    page.hand_value(0, "2", "30")
    page.preview()
    page.confirm()

    page.wait_hand("E3")
    page.kind("ron")
    page.pick("discarder", 0)
    page.pick("winner", 1)
    page.pick("winner", 3)  # a double ron: EMA allows it
    page.hand_value(1, "2", "30")
    page.hand_value(3, "y1")
    page.preview()
    page.confirm()

    page.wait_hand("E4")
    page.riichi(0)
    page.kind("draw")  # the declarer starts tenpai
    page.pick("tenpai", 0)  # wrong: a noten riichi, which the engine refuses in words
    # in people's words: the player, seat and wind (E4: seat 3 deals, seat 0 is South)
    assert "Ann (seat 0, South) declared riichi, so must be tenpai at an exhaustive draw" in page.refusal()
    assert not page.find("#confirm").is_enabled()
    page.pick("tenpai", 0)
    page.pick("tenpai", 2)
    page.preview()
    page.confirm()


def test_a_whole_game_by_clicking_gives_the_journal_of_the_same_game_at_the_cli(browser, web_table, more_procs):
    # the same game typed at the CLI on a second table, meanwhile
    page, cli_journal = game_both_ways(browser, web_table, more_procs, CLI_GAME, play_by_clicking)

    web_table.wait_game_over()
    assert same_game(web_table.journal()) == same_game(cli_journal)
    assert [r.get("hand") for r in cli_journal] == [None, "E1", "E2", "E3", "E4", None]  # seating, 4 hands, final

    page.tab("journal")
    assert [row.get_attribute("data-hand") for row in page.all("#journal-view tr.hand")] == ["E1", "E2", "E3", "E4"]
    page.wait_text("#journal-view tr.final", "rank")
    for form in ("csv", "jsonl"):
        link = page.find(f'#journal-view a[href^="/api/journal.{form}"]').get_attribute("href")
        with urllib.request.urlopen(link) as download:
            assert download.read().decode() == web_table.ok("journal", "--format", form, where="--config")
    assert page.console_errors() == []


def test_a_tournament_chombo_shows_its_penalty_in_the_journal_and_on_the_game_over_cards(browser, web_table):
    """EMA: a chombo is −20,000 after uma and pays nothing at the table. The page must say
    so where the 0s and the final meet the eye, not leave a final nobody can explain."""
    web_table.ok("start", "--ruleset", EAST_ONLY, where="--config")
    seq = web_table.wait_hand_after(0)["hand_in_play"]["seq"]
    web_table.ok("result", *chombo(1))
    for _ in range(4):  # all noten: the deal passes, East only ends after E4
        seq = web_table.wait_hand_after(seq)["hand_in_play"]["seq"]
        web_table.ok("result", *draw())
    web_table.wait_game_over()
    journal = web_table.journal()
    assert journal[0]["penalties"] == [0, 20000, 0, 0] and journal[-1]["penalties"] == [0, 20000, 0, 0]
    assert "penalties_1" in web_table.ok("journal", "--format", "csv", where="--config").splitlines()[0]
    page = Page(browser, web_table.url).open()
    card = page.wait_text('#cards .card[data-seat="1"]', "final")
    assert "final -20000" in card.replace("−", "-") and "chombo penalty −20000 included" in card
    page.tab("journal")
    assert "penalty −20000 at the end" in page.text('#journal-view tr.hand[data-hand="E1"]')
    final = page.wait_text("#journal-view tr.final", "rank")
    assert "after uma and penalties" in final and "penalty −20000 included" in final
    assert page.console_errors() == []
