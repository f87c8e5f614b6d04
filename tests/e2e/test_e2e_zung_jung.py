"""A whole Zung Jung game (4 rounds, 16 hands) on the basic table (no dead-wall separator,
no dora flipper, a wind-marker lamp) through the CLI, with the controller killed mid-hand
and started again.

Hand-written figures from Zung Jung v1.03's formal scheme: scores start at 0 and the deal
passes after every hand; the winner collects 3× the hand value; on a self-draw each
opponent pays 1×; on a discard worth up to 25 each pays 1×; above 25 the two others pay 25
each and the discarder the rest; with no one responsible every opponent pays 1×; a draw
pays nothing. A false win (chombo) pays 10 to each opponent and re-deals.
"""
import signal

import pytest

from controller import rules as R
from .e2e_harness import Hand, chombo, check_against_engine, draw, hand_records, payments_by_hand, play_game, ron, tsumo

RULES = R.load_ruleset("zung-jung")
PLAY = [  # (hand, payments worked out)
    (Hand(ron(1, (0, "points", 10))), [30, -10, -10, -10]),
    (Hand(ron(2, (3, "points", 70))), [-25, -25, -160, 210]),      # 210 = 25 + 25 + 160
    (Hand(tsumo((2, "points", 40))), [-40, -40, 120, -40]),
    (Hand(ron(0, (1, "points", 30, "none"))), [-30, 90, -30, -30]),  # no one responsible
    (Hand(draw(), restart=signal.SIGKILL), [0, 0, 0, 0]),
    (Hand(ron(3, (2, "points", 25))), [-25, -25, 75, -25]),        # at the threshold: 1× each
    (Hand(ron(1, (0, "points", 26))), [78, -28, -25, -25]),
    (Hand(chombo(3)), [10, 10, 10, -30]),
    (Hand(tsumo((1, "points", 1))), [-1, 3, -1, -1]),              # chicken hand
    (Hand(ron(2, (0, "points", 8))), [24, -8, -8, -8]),
    (Hand(draw(1, 2)), [0, 0, 0, 0]),
    (Hand(ron(2, (1, "points", 320))), [-25, 960, -910, -25]),     # the limit
    (Hand(tsumo((0, "points", 16))), [48, -16, -16, -16]),
    (Hand(ron(3, (2, "points", 5))), [-5, -5, 15, -5]),
    (Hand(ron(0, (3, "points", 12))), [-12, -12, -12, 36]),
    (Hand(draw()), [0, 0, 0, 0]),
    (Hand(tsumo((3, "points", 20))), [-20, -20, -20, 60]),
]
LABELS = [f"{w}{n}" for w in "ESWN" for n in range(1, 5)]


@pytest.fixture(scope="module")
def game(table_factory):
    return play_game(table_factory("basic", "zung-jung"), [hand for hand, _ in PLAY])


def test_the_journal_agrees_with_the_rules_engine(game):
    check_against_engine(RULES, game.journal)


def test_sixteen_hands_the_deal_passing_every_hand_and_the_chombo_re_dealt(game):
    labels = [r["hand"] for r in hand_records(game.journal)]
    assert labels == LABELS[:8] + LABELS[7:]  # the chombo re-deals S4
    assert [r["dealer"] for r in hand_records(game.journal)] == [int(label[1]) - 1 for label in labels]


def test_hands_pay_as_the_rule_text_says(game):
    assert [r["payments"] for r in hand_records(game.journal)] == [paid for _, paid in PLAY]
    totals = [sum(paid[s] for _, paid in PLAY) for s in range(4)]
    assert game.journal[-1]["scores"] == totals == game.journal[-1]["final_scores"]


def test_the_killed_controller_continued_the_hand_in_play(game):
    killed = game.hands[4]
    assert killed.restarted_status["hand_in_play"]["seq"] == killed.seq
    assert killed.restarted_status["ruleset"] == "zung-jung"



def test_single_patterns_above_the_limit_are_paid_at_their_value(table_factory):
    """v1.03: 320 limits patterns added together; Big Four Winds (400) and Nine Gates
    (480) are taken as themselves, a value between the limit and them is refused."""
    table = table_factory("four-port", "zung-jung")
    table.ok("start", where="--config")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    between = table.cli("result", *ron(2, (1, "points", 350)))
    assert between.returncode == 1 and "350 points; allowed: 1 to 320, 400, 480" in between.stderr
    table.ok("result", *tsumo((1, "points", 480)))
    seq = table.wait_hand_after(seq)["hand_in_play"]["seq"]
    table.ok("result", *tsumo((2, "points", 400)))
    assert [p[1] for p in payments_by_hand(table.journal())] == [[-480, 1440, -480, -480], [-400, -400, 1200, -400]]


def test_east_only_at_start_plays_the_one_round_match_through_a_restart(table_factory):
    """v1.03's match of one round, offered at `start --east-only`: four hands, then over,
    also when the controller restarts in between; a rule set without that form refuses it."""
    table = table_factory("basic", "zung-jung")
    refused = table.cli("start", "--east-only", "--ruleset", "ema-2016", where="--config")
    assert refused.returncode == 1 and "ema-2016 has no East-only form in its text" in refused.stderr
    table.ok("start", "--east-only", where="--config")
    seq = 0
    for n in range(4):
        seq = table.wait_hand_after(seq)["hand_in_play"]["seq"]
        if n == 2:
            table.stop_controller(signal.SIGTERM)
            table.start_controller()
        table.ok("result", *draw())
    table.wait_game_over()
    assert [r["hand"] for r in hand_records(table.journal())] == ["E1", "E2", "E3", "E4"]
    table.ok("start", where="--config")  # the next game plays the whole match again
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    for _ in range(4):
        table.ok("result", *draw())
        seq = table.wait_hand_after(seq)["hand_in_play"]["seq"]
    assert table.status()["hand"] == "S1"
