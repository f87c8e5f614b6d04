"""A whole M.League game on the four-port table through the CLI, ending with two seats
tied for second place.

Hand-written figures from the M.League rules: start 25,000, return 30,000, rank points
+50/+10/−10/−30 thousand (uma 30/10/−10/−30 with the 20,000 oka to the first), tied places
split the rank points of the places they share; payments and counters as EMA.
"""
import pytest

from controller import rules as R
from .e2e_harness import Hand, check_against_engine, draw, hand_records, payments_by_hand, play_game, ron

RULES = R.load_ruleset("mleague")
HANDS = [
    Hand(ron(3, (0, 2, 30))),                      # E1: dealer 2/30 = 2,900
    Hand(draw(0, 1, 2)),                           # E1 h1: seat 3 alone noten
    Hand(draw()),                                  # E1 h2: all noten, the deal passes
    Hand(ron(0, (3, 1, 30))),                      # E2 h3
    Hand(draw()),                                  # E3
    Hand(ron(0, (3, 2, 30)), riichi=(3,), kans=1),  # E4 h1: the declarer wins
    Hand(draw()),                                  # E4 h2
    Hand(draw()),                                  # S1 h3
    Hand(draw()),                                  # S2 h4
    Hand(draw()),                                  # S3 h5
    Hand(ron(3, (0, 3, 30))),                      # S4 h6: the deal returns to seat 0, game over
]
WORKED_OUT = [
    ("E1", [2900, 0, 0, -2900], 0),
    ("E1", [1000, 1000, 1000, -3000], 0),
    ("E1", [0, 0, 0, 0], 0),
    ("E2", [-1900, 0, 0, 1900], 0),     # 1,000 + 3 counters × 300
    ("E3", [0, 0, 0, 0], 0),
    ("E4", [-3200, 0, 0, 3200], 0),     # dealer 2/30 = 2,900 + 300; own bet back
    ("E4", [0, 0, 0, 0], 0),
    ("S1", [0, 0, 0, 0], 0),
    ("S2", [0, 0, 0, 0], 0),
    ("S3", [0, 0, 0, 0], 0),
    ("S4", [5700, 0, 0, -5700], 0),     # 3,900 + 6 counters × 300
]
# Seat 0 first with 29,500 (+30,000 uma, +20,000 oka); seats 1 and 2 tie at 26,000 and
# share the +10,000 and −10,000 of 2nd and 3rd place; seat 3 last (−30,000).
FINAL = {"final": True, "scores": [29500, 26000, 26000, 18500], "final_scores": [49500, -4000, -4000, -41500],
         "ranks": [1, 2, 2, 4]}


@pytest.fixture(scope="module")
def game(table_factory):
    return play_game(table_factory("four-port", "mleague"), HANDS)


def test_the_journal_agrees_with_the_rules_engine(game):
    assert len(hand_records(game.journal)) == len(HANDS)
    check_against_engine(RULES, game.journal)


def test_hands_pay_as_the_rule_text_says(game):
    assert payments_by_hand(game.journal) == WORKED_OUT


def test_a_kan_reveals_the_next_dead_wall_stack(game):
    assert game.hands[5].kan_exits == [0]
    e4 = hand_records(game.journal)[5]
    assert e4["dora_indicators"] == e4["dead_wall"][2:4]


def test_tied_places_split_their_rank_points(game):
    assert game.journal[-1] == FINAL


def test_riichi_may_be_declared_below_1000_points(table_factory):
    table = table_factory("four-port", "mleague")
    table.ok("start", where="--config")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    table.ok("result", *ron(3, (0, "yakuman", 1)))  # the dealer's yakuman: seat 3 at −23,000
    table.wait_hand_after(seq)
    table.ok("riichi", "3")
    table.ok("result", *draw(3), "--riichi", "3")
    # no busting: play goes on; the declarer tenpai alone takes 3,000 and bets 1,000
    assert payments_by_hand(table.journal())[1] == ("E1", [-1000, -1000, -1000, 2000], 1)


def test_thirteen_han_is_a_sanbaiman_and_a_typing_error_is_refused(table_factory):
    """M.League caps non-yakuman hands at sanbaiman (役満以外のアガリは三倍満が上限): no
    counted yakuman; 31 han (3 typed twice) is refused in people's words, nothing paid."""
    table = table_factory("four-port", "mleague")
    table.ok("start", where="--config")
    table.wait_hand_after(0)
    typo = table.cli("result", *ron(3, (1, 31, None)))
    assert typo.returncode == 1 and "31 han is more than mleague takes (20)" in typo.stderr
    assert "from 11 han pays sanbaiman" in typo.stderr
    no_fu = table.cli("result", *ron(3, (1, 3, None)))
    assert no_fu.returncode == 1 and ("the win of seat 1 (South), 3 han on a discard: give the fu too "
                                      "(below 5 han they set the hand's value)") in no_fu.stderr
    assert "None" not in no_fu.stderr and "winners[" not in no_fu.stderr
    table.ok("result", *ron(3, (1, 13, None)))
    assert payments_by_hand(table.journal())[0] == ("E1", [0, 24000, 0, -24000], 0)
