"""A whole sanma game on the 108-tile table through the CLI: three kans in a hand, a double
ron, and the game ending when a score goes below zero.

Hand-written figures from the sanma rules: seats 0-2 (side 3 empty), start 35,000, return
40,000, uma 15/0/−15 thousand with 15,000 oka to the first; ron as four-player riichi; a
self-draw pays as four-player riichi without the missing player's share (tsumo loss);
200 per counter on a ron; up to four kans a hand, each revealing a further indicator from
the 5th dead-wall stack on; a double ron is allowed; the game ends below zero.
"""
import pytest

from controller import rules as R
from .e2e_harness import Hand, check_against_engine, hand_records, payments_by_hand, play_game, ron, tsumo

RULES = R.load_ruleset("sanma")
HANDS = [
    Hand(tsumo((1, 3, 30)), riichi=(1,), kans=3),        # E1: three kans, the declarer wins
    Hand(ron(0, (1, 2, 30), (2, 5, None))),              # E2: double ron, the dealer among the winners
    Hand(ron(0, (2, "yakuman", 1))),                     # E2 h1: seat 0 goes below zero
]
WORKED_OUT = [
    ("E1", [-2000, 3000, -1000, 0], 0),   # 3/30 tsumo: dealer 1,920 → 2,000, seat 2 960 → 1,000
    ("E2", [-10900, 2900, 8000, 0], 0),   # dealer 2/30 ron 2,900; mangan 8,000
    ("E2", [-32200, 0, 32200, 0], 0),     # yakuman 32,000 + 200
]
# -10,100 / 40,900 / 74,200: seat 2 first (+15,000 uma +15,000 oka), 1 second, 0 third (−15,000).
FINAL = {"final": True, "scores": [-10100, 40900, 74200, None], "final_scores": [-65100, 900, 64200, None],
         "ranks": [3, 2, 1, None]}


@pytest.fixture(scope="module")
def game(table_factory):
    return play_game(table_factory("sanma-108", "sanma"), HANDS)


def test_the_journal_agrees_with_the_rules_engine(game):
    assert len(hand_records(game.journal)) == len(HANDS)
    check_against_engine(RULES, game.journal)


def test_hands_and_the_end_below_zero_as_the_rule_text_says(game):
    assert payments_by_hand(game.journal) == WORKED_OUT
    assert game.journal[-1] == FINAL


def test_kans_reveal_the_dead_wall_stacks_after_the_5th(game):
    e1 = hand_records(game.journal)[0]
    assert game.hands[0].kan_exits[:2] == [0, 0]
    assert e1["dora_indicators"][:3] == e1["dead_wall"][4:7]


def test_a_third_kan_reveals_a_fourth_indicator(game):
    assert game.hands[0].kan_exits == [0, 0, 0]
    assert len(hand_records(game.journal)[0]["dora_indicators"]) == 4
