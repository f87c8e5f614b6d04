"""A whole WRC game on the four-port table through the CLI, and a restart mid-hand of a
WRC game on a table whose config names EMA 2016.

Hand-written figures from the WRC rules: as EMA 2016 (start 30,000, uma 15/5/−5/−15
thousand, no oka, 300/100 per counter, noten 3,000) but with kiriage (4 han 30 fu and
3 han 60 fu are mangan), a single winner on a discard (head bump: a double ron is not a
result), and riichi sticks left at the end go to no one.
"""
import signal

import pytest

from controller import rules as R
from .e2e_harness import (Hand, check_against_engine, draw, hand_records, payments_by_hand, play_game, ron,
                         tsumo)

RULES = R.load_ruleset("wrc")
HANDS = [
    Hand(ron(1, (0, 4, 30))),                                          # E1: dealer 4/30 = mangan 12,000
    Hand(ron(3, (1, 4, 30)), refused=(ron(3, (1, 2, 30), (2, 2, 30)),)),  # E1 h1: a double ron is refused
    Hand(tsumo((2, 3, 60)), riichi=(2,), kans=1),                      # E2: 3/60 = mangan
    Hand(draw(2)),                                                     # E3: dealer tenpai
    Hand(ron(0, (2, 1, 30))),                                          # E3 h1
    Hand(ron(2, (3, 2, 25))),                                          # E3 h2: seven pairs
    Hand(tsumo((3, 5, None))),                                         # E4: dealer mangan tsumo
    Hand(ron(3, (0, 1, 30))),                                          # E4 h1
    Hand(ron(2, (1, 1, 30))),                                          # S1
    Hand(ron(0, (2, 1, 30))),                                          # S2
    Hand(ron(1, (3, 1, 30))),                                          # S3
    Hand(draw(0, 1), riichi=(0, 1)),                                   # S4: dealer noten, game over
]
WORKED_OUT = [
    ("E1", [12000, -12000, 0, 0], 0),
    ("E1", [0, 8300, 0, -8300], 0),          # 4/30 = 8,000 (kiriage) + 300
    ("E2", [-2000, -4000, 8000, -2000], 0),  # mangan tsumo: dealer 4,000, others 2,000; own bet back
    ("E3", [-1000, -1000, 3000, -1000], 0),
    ("E3", [-1800, 0, 1800, 0], 0),          # dealer 1/30 = 1,440 → 1,500 + 300
    ("E3", [0, 0, -2200, 2200], 0),          # 2 han 25 fu = 1,600 + 600
    ("E4", [-4000, -4000, -4000, 12000], 0),
    ("E4", [1300, 0, 0, -1300], 0),
    ("S1", [0, 1000, -1000, 0], 0),
    ("S2", [-1000, 0, 1000, 0], 0),
    ("S3", [0, -1000, 0, 1000], 0),
]
LAST_DRAW = ("S4", [500, 500, -1500, -1500], 2)  # both declarers tenpai: +1,500 less the 1,000 bet
# 2 first (35,100), 0 (34,000), 3 (31,100), 1 (17,800); the 2 sticks left go to no one.
FINAL = {"final": True, "scores": [34000, 17800, 35100, 31100], "final_scores": [9000, -27200, 20100, -3900],
         "ranks": [2, 4, 1, 3]}


@pytest.fixture(scope="module")
def game(table_factory):
    return play_game(table_factory("four-port", "wrc"), HANDS)


def test_the_journal_agrees_with_the_rules_engine(game):
    assert len(hand_records(game.journal)) == len(HANDS)
    check_against_engine(RULES, game.journal)


def test_hands_pay_as_the_rule_text_says(game):
    assert payments_by_hand(game.journal)[:-1] == WORKED_OUT


def test_a_double_ron_is_refused_and_changes_nothing(game):
    (refused,) = game.hands[1].refusals
    assert refused.returncode == 1 and "head bump" in refused.stderr
    assert hand_records(game.journal)[1]["result"]["winners"] == [{"seat": 1, "han": 4, "fu": 30}]


def test_a_kan_reveals_the_next_dead_wall_stack(game):
    assert game.hands[2].kan_exits == [0]
    e2 = hand_records(game.journal)[2]
    assert e2["dora_indicators"] == e2["dead_wall"][2:4]


def test_sticks_left_at_the_end_go_to_no_one(game):
    assert payments_by_hand(game.journal)[-1] == LAST_DRAW
    assert game.journal[-1] == FINAL


def test_a_restart_mid_hand_continues_a_game_started_with_another_rule_set(table_factory):
    table = table_factory("four-port", "ema-2016")
    table.ok("start", "--ruleset", "wrc", where="--config")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    table.stop_controller(signal.SIGTERM)
    table.start_controller()
    assert table.status()["ruleset"] == "wrc"
    table.ok("result", *ron(2, (1, 4, 30)))           # WRC: 8,000 (EMA would pay 7,700)
    table.wait_hand_after(seq)
    table.stop_controller(signal.SIGKILL)
    table.start_controller()
    table.ok("result", *tsumo((1, 4, 30)))            # seat 1 deals now: 4,000 each
    table.wait_hand_after(seq + 1)
    table.ok("abandon")
    assert payments_by_hand(table.journal()) == [("E1", [0, 8000, -8000, 0], 0),
                                                 ("E2", [-4000, 12000, -4000, -4000], 0)]
    assert {r["ruleset"] for r in table.journal()} == {"wrc"}
