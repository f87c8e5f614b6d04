"""Scores by tiles on the page: a whole East-only game whose winners only tap their tiles
(tiles.js; op score_tiles) — a pure straight after riichi, pinfu tsumo at 20 fu, a closed kan
of terminals, seven pairs — with a winning tile tapped wrong and taken back. Its journal is
the one the same game entered by han and fu at the CLI gives on a second table."""
from __future__ import annotations

import os
import re

from ..e2e.e2e_harness import Hand, ron, tsumo
from .browser_harness import Page, game_both_ways
from .test_browser_game import SCREENSHOTS, same_game

# The same game by han and fu: what the engine counts from the tiles tapped below.
CLI_GAME = [
    Hand(ron(2, (1, 4, 30)), riichi=(1,)),          # EMA §4.3 example 2: riichi, pinfu, pure straight
    Hand(tsumo((0, 2, 20))),                        # pinfu tsumo
    Hand(ron(0, (3, 1, 70)), riichi=(3,), kans=1),  # riichi; 20 + 10 + 32 for the closed kan of 1s
    Hand(ron(1, (0, 2, 25))),                       # EMA §4.3 example 7: seven pairs
]


def tiles_of(text: str) -> list[str]:
    """"123m4p" as the tiles the picker's buttons name: 1m 2m 3m 4p."""
    return [f"{d}{suit}" for digits, suit in re.findall(r"(\d+)([mpsz])", text) for d in digits]


class TilePage(Page):
    def click(self, css: str) -> None:
        # the picker is long on a phone: bring each tile to the middle, clear of the sticky tabs
        self.wait(lambda: self.driver.execute_script(
            "const e = document.querySelector(arguments[0]); e?.scrollIntoView({block: 'center'}); return !!e", css),
            css)
        super().click(css)

    def by_tiles(self, seat: int) -> None:
        self.click(f'.winner[data-seat="{seat}"] button.by-tiles')
        self.wait(lambda: self.all(f'.winner[data-seat="{seat}"] fieldset.tiles'), f"seat {seat}'s tile picker")

    def tap(self, seat: int, target: str, tiles: str) -> None:
        """Tap ``tiles`` into the winner's hand as ``target`` (hand, win, pon, closed_kan, dora ...)."""
        picker = f'.winner[data-seat="{seat}"] fieldset.tiles'
        self.click(f'{picker} button[data-tiles-target="{target}"]')
        for tile in tiles_of(tiles):
            self.click(f'{picker} button[data-tiles-tap="{tile}"]')

    def untap_win(self, seat: int) -> None:
        self.click(f'.winner[data-seat="{seat}"] button[data-tiles-untap="win"]')

    def breakdown(self, seat: int) -> str:
        self.preview()
        return self.text(f'#preview .breakdown[data-seat="{seat}"]')


def play_by_tapping(page: TilePage) -> None:
    page.wait_hand("E1")
    page.riichi(1)
    page.kind("ron")
    page.pick("discarder", 2)
    page.pick("winner", 1)
    page.by_tiles(1)
    page.tap(1, "hand", "123m33m12345678s")
    page.tap(1, "win", "8s")  # wrong: 788s is no set
    assert page.refusal() == "not a winning hand"
    assert not page.find("#confirm").is_enabled()
    page.untap_win(1)
    page.tap(1, "win", "9s")
    page.tap(1, "dora", "1z")
    shown = page.breakdown(1)
    assert page.driver.execute_script("return document.documentElement.scrollWidth <= innerWidth")  # a phone
    if os.environ.get("MJTABLE_SCREENSHOTS"):
        page.driver.save_screenshot(str(SCREENSHOTS / "tiles-phone.png"))
    assert shown.splitlines()[0] == "South · Bo: 4 han 30 fu"
    assert shown.splitlines()[1:] == ["Riichi 1 han", "Pinfu 1 han", "Ittsu 2 han", "fu: base 30"]
    assert page.preview()[1].startswith("South · Bo +8700")  # 7,700 and his riichi stick back, from the score shown
    assert page.confirm() == "hand E1 recorded"

    win_by_tiles(page, "E2", 0, "234m789m12345p66p", "6p", "1z")
    assert page.breakdown(0).splitlines()[0] == "North · Ann: 2 han 20 fu"
    page.confirm()

    page.wait_hand("E3")
    page.riichi(3)
    page.kan(1)
    win_by_tiles(page, "E3", 3, "34m55m567p789p", "2m", "1z", discarder=0, melds=[("closed_kan", "1111s")])
    assert "1 dora indicator(s) given; the table shows 2" in page.refusal()
    page.tap(3, "dora", "2z")
    assert page.breakdown(3).splitlines()[0] == "South · Di: 1 han 70 fu"
    assert page.text('#preview .breakdown[data-seat="3"] .fu').startswith("fu: closed terminal kan 32, ")
    page.confirm()

    win_by_tiles(page, "E4", 0, "77z33m55m22p66p33s4s", "4s", "1z", discarder=1)
    assert page.breakdown(0).splitlines()[:2] == ["South · Ann: 2 han 25 fu", "Chiitoitsu 2 han"]
    page.confirm()


def win_by_tiles(page: TilePage, label: str, winner: int, hand: str, win: str, dora: str, *,
                 discarder: int | None = None, melds=()) -> None:
    """Hand ``label`` won by ``winner`` (a ron from ``discarder``, else a tsumo), tile by tile."""
    page.wait_hand(label)
    if discarder is None:
        page.kind("tsumo")
    else:
        page.kind("ron")
        page.pick("discarder", discarder)
    page.pick("winner", winner)
    page.by_tiles(winner)
    for kind, tiles in melds:
        page.tap(winner, kind, tiles)
    page.tap(winner, "hand", hand)
    page.tap(winner, "win", win)
    page.tap(winner, "dora", dora)


def test_a_whole_game_by_tapping_tiles_gives_the_journal_of_the_same_game_by_han_and_fu(browser, web_table,
                                                                                          more_procs):
    page, cli_journal = game_both_ways(browser, web_table, more_procs, CLI_GAME, play_by_tapping, TilePage)

    web_table.wait_game_over()
    assert same_game(web_table.journal()) == same_game(cli_journal)
    assert [r.get("hand") for r in cli_journal] == [None, "E1", "E2", "E3", "E4", None]
    assert page.console_errors() == []
