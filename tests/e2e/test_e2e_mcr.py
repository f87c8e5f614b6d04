"""A whole MCR game (16 hands) on the 144-tile table through the CLI.

Hand-written figures from the Chinese Official rules: scores start at 0; a hand is worth
at least 8 points; on a self-draw each opponent pays the hand + 8; on a discard the
discarder pays the hand + 8 and the two others 8 each; the deal passes every hand; a false
win pays 10 to each opponent (re-deal); a single winner on a discard (head bump).
"""
import pytest

from controller import rules as R
from .e2e_harness import Hand, chombo, check_against_engine, draw, hand_records, play_game, ron, tsumo

RULES = R.load_ruleset("mcr")
PLAY = [
    (Hand(tsumo((0, "points", 8))), [48, -16, -16, -16]),
    (Hand(ron(0, (1, "points", 10)), refused=(ron(0, (1, "points", 8), (2, "points", 8)),)),
     [-18, 34, -8, -8]),
    (Hand(draw()), [0, 0, 0, 0]),
    (Hand(ron(3, (2, "points", 24))), [-8, -8, 48, -32]),
    (Hand(chombo(1)), [10, -30, 10, 10]),
    (Hand(tsumo((3, "points", 88))), [-96, -96, -96, 288]),
    (Hand(ron(1, (0, "points", 8))), [32, -16, -8, -8]),
    (Hand(ron(2, (1, "points", 12))), [-8, 36, -20, -8]),
    (Hand(draw(0, 2)), [0, 0, 0, 0]),
    (Hand(tsumo((2, "points", 16))), [-24, -24, 72, -24]),
    (Hand(ron(0, (3, "points", 8))), [-16, -8, -8, 32]),
    (Hand(ron(3, (0, "points", 32))), [56, -8, -8, -40]),
    (Hand(tsumo((1, "points", 8))), [-16, 48, -16, -16]),
    (Hand(ron(2, (3, "points", 9))), [-8, -8, -17, 33]),
    (Hand(draw()), [0, 0, 0, 0]),
    (Hand(ron(1, (2, "points", 8))), [-8, -16, 32, -8]),
    (Hand(tsumo((0, "points", 10))), [54, -18, -18, -18]),
]


@pytest.fixture(scope="module")
def game(table_factory):
    return play_game(table_factory("mcr-144", "mcr"), [hand for hand, _ in PLAY])


def test_the_journal_agrees_with_the_rules_engine(game):
    check_against_engine(RULES, game.journal)


def test_hands_pay_as_the_rule_text_says(game):
    assert [r["payments"] for r in hand_records(game.journal)] == [paid for _, paid in PLAY]
    totals = [sum(paid[s] for _, paid in PLAY) for s in range(4)]
    assert game.journal[-1]["scores"] == totals == game.journal[-1]["final_scores"]


def test_a_double_ron_is_refused(game):
    (refused,) = game.hands[1].refusals
    assert refused.returncode == 1 and "head bump" in refused.stderr

