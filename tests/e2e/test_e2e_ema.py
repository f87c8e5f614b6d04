"""A whole EMA 2016 hanchan on the four-port table through the CLI: riichi declared with
`mjtable riichi`, a draw with two tenpai declarers, a double ron with a winning declarer
who is not the nearest winner, a kan, the controller stopped and started again mid-hand,
a chombo and a result entered while paused.

The hand-written figures come from the EMA Riichi Competition Rules 2016 (start 30,000;
base = fu × 2^(han+2), ron ×4 / dealer ×6, each payment rounded up to 100; 300 per
counter on a ron, 100 from each payer on a tsumo; no kiriage; §4.1 multiple ron: the
discarder pays every winner in full, the table's sticks and the bets of declarers who did
not win go to the winner nearest the discarder's right, a declarer who wins gets his own
bet back; noten penalty 3,000 in all; chombo −20,000 after uma).
"""
import signal

import pytest

from controller import rules as R
from .e2e_harness import Hand, chombo, check_against_engine, draw, hand_records, payments_by_hand, play_game, ron, tsumo

RULES = R.load_ruleset("ema-2016")
# Dealer 0 starts. Seats are numbered counter-clockwise, so the turn after seat 2 is seat 3.
HANDS = [
    Hand(draw(0, 3), riichi=(0, 3)),                  # E1: both declarers tenpai, dealer repeats
    Hand(ron(2, (3, 3, 30), (1, 2, 40)), riichi=(1, 0)),  # E1 h1: double ron off seat 2
    Hand(ron(3, (2, 3, 40)), riichi=(2,), kans=1, restart=signal.SIGTERM),  # E2: the controller restarted
    Hand(tsumo((2, 4, 30))),                          # E3: dealer tsumo, repeats
    Hand(ron(0, (3, 1, 30))),                         # E3 h1
    Hand(ron(1, (0, 2, 30))),                         # E4
    Hand(tsumo((1, 1, 30)), paused=True),             # S1: the result typed while paused
    Hand(draw()),                                     # S2: all noten
    Hand(ron(3, (0, 5, None))),                       # S3 h1: mangan
    Hand(chombo(2)),                                  # S4: re-deal
    Hand(ron(2, (1, 1, 40))),                         # S4 again: the deal returns to seat 0, game over
]

# (hand, payments per seat, sticks left) worked out from the rule text
DRAW_WITH_DECLARERS = ("E1", [500, -1500, -1500, 500], 2)  # noten 1, 2 pay 1,500 each; 0, 3 bet 1,000
# Discarder 2; seat 3 is nearest. Seat 3: 3 han 30 fu = 3,900 + 300 + the 2 sticks on the
# table + seat 0's bet = 7,200; seat 1 (a declarer who wins): 2 han 40 fu = 2,600 + 300,
# his own bet back; seat 0 loses his bet; seat 2 pays 4,200 + 2,900.
DOUBLE_RON = ("E1", [-1000, 2900, -7100, 7200], 0)
PLAIN_HANDS = [
    ("E2", [0, 0, 5200, -5200], 0),          # 3/40 = 5,200; the winner's own bet comes back
    ("E3", [-3900, -3900, 11700, -3900], 0),  # dealer tsumo 4/30: 1,920 × 2 → 3,900 each (no kiriage)
    ("E3", [-1300, 0, 0, 1300], 0),          # 1/30 = 1,000 + 300 for the counter
    ("E4", [2000, -2000, 0, 0], 0),          # 2/30 = 1,920 → 2,000
    ("S1", [-500, 1100, -300, -300], 0),     # non-dealer tsumo 1/30: dealer 500, others 300
    ("S2", [0, 0, 0, 0], 0),                 # nobody tenpai
    ("S3", [8300, 0, 0, -8300], 0),          # mangan 8,000 + 300
    ("S4", [0, 0, 0, 0], 0),                 # chombo: −20,000 after uma, nothing at the table
    ("S4", [0, 1300, -1300, 0], 0),          # 1/40 = 1,280 → 1,300
]
# Seat 2 first (36,700), 0 (34,100), 1 (27,900), 3 (21,300); uma 15/5/−5/−15 thousand;
# seat 2's chombo takes 20,000 after uma.
FINAL = {"final": True, "scores": [34100, 27900, 36700, 21300], "final_scores": [9100, -7100, 1700, -23700],
         "ranks": [2, 3, 1, 4], "penalties": [0, 0, 20000, 0]}  # the chombo: ranked before it


@pytest.fixture(scope="module")
def game(table_factory):
    return play_game(table_factory("four-port", "ema-2016"), HANDS)


def test_the_journal_agrees_with_the_rules_engine(game):
    assert len(hand_records(game.journal)) == len(HANDS)
    check_against_engine(RULES, game.journal)


def test_hands_without_sticks_at_stake_pay_as_the_rule_text_says(game):
    assert payments_by_hand(game.journal)[2:] == PLAIN_HANDS


def test_a_kan_reveals_the_next_dead_wall_stack(game):
    assert game.hands[2].kan_exits == [0]
    e2 = hand_records(game.journal)[2]
    # the first indicator is the 3rd dead-wall stack from the break, the kan's the 4th
    assert e2["dora_indicators"] == e2["dead_wall"][2:4]


def test_a_restart_mid_hand_keeps_the_hand_its_declarations_and_kans(game):
    e2 = game.hands[2]
    assert e2.restarted_status["hand_in_play"] == {**e2.riichi_status["hand_in_play"], "kans": 1}
    assert e2.restarted_status["state"] == "playing"


def test_riichi_declared_at_the_cli_is_in_the_result(game):
    declared = [sorted(r["result"].get("riichi", [])) for r in hand_records(game.journal)[:3]]
    assert declared == [[0, 3], [0, 1], [2]]


def test_a_draw_keeps_the_bets_of_tenpai_declarers_on_the_table(game):
    assert payments_by_hand(game.journal)[0] == DRAW_WITH_DECLARERS


def test_double_ron_sticks_go_to_the_nearest_winner_and_a_winning_declarer_keeps_his_bet(game):
    assert payments_by_hand(game.journal)[1] == DOUBLE_RON


def test_final_standings_as_the_rule_text_says(game):
    assert game.journal[-1] == FINAL


def test_a_result_entered_while_paused_is_accepted(game):
    paused = game.hands[6].paused_result
    assert paused.returncode == 0, paused.stderr


def test_status_shows_the_stick_taken_at_declaration(game):
    before = hand_records(game.journal)[1]  # the hand before E2
    shown = game.hands[2].riichi_status
    assert shown["riichi_sticks"] == before["riichi_sticks_after"] + 1
    assert shown["scores"][2] == before["scores"][2] - 1000
