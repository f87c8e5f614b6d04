"""Final standings: return points, uma split on ties, oka, leftover sticks (EMA 2016 §3.6)."""
from dataclasses import replace

import pytest

from controller.rules import final_standings, load_ruleset, new_game

EMA = load_ruleset("ema-2016")
MLEAGUE = load_ruleset("mleague")
WRC = load_ruleset("wrc")


def ended(rules, scores, dealer=0, sticks=0):
    return replace(new_game(rules, dealer), scores=scores, riichi_sticks=sticks, finished=True)


def test_ema_uma_without_ties():
    s = final_standings(EMA, ended(EMA, (45000, 35000, 25000, 15000)))
    assert s.final_scores == (15000 + 15000, 5000 + 5000, -5000 - 5000, -15000 - 15000)
    assert s.ranks == (1, 2, 3, 4)


def test_ema_tie_for_first_shares_the_first_two_umas():
    # EMA 3.6.1: two players tied first each get 10,000
    s = final_standings(EMA, ended(EMA, (40000, 40000, 25000, 15000)))
    assert s.final_scores[:2] == (10000 + 10000, 10000 + 10000)
    assert s.ranks == (1, 1, 3, 4)


def test_ema_leftover_sticks_go_to_the_winner_split_on_a_tie():
    s = final_standings(EMA, ended(EMA, (39000, 39000, 25000, 15000), sticks=2))
    assert s.scores[:2] == (40000, 40000)
    assert s.final_scores[:2] == (20000, 20000)
    assert sum(s.final_scores) == 0


def test_wrc_leftover_sticks_go_to_no_one():
    s = final_standings(WRC, ended(WRC, (45000, 35000, 25000, 13000), sticks=2))
    assert s.scores == (45000, 35000, 25000, 13000)
    assert sum(s.final_scores) == -2000


def test_mleague_rank_points_include_oka():
    # +50/+10/-10/-30 rank points with oka: 40,000 → (40,000 - 30,000) + 50,000
    s = final_standings(MLEAGUE, ended(MLEAGUE, (40000, 30000, 20000, 10000)))
    assert s.final_scores == (60000, 10000, -20000, -50000)


@pytest.mark.parametrize("scores,final,ranks", [
    # tied first: each gets (+50 + 10) / 2 = +30 rank points
    ((35000, 35000, 20000, 10000), (5000 + 30000, 5000 + 30000, -10000 - 10000, -20000 - 30000), (1, 1, 3, 4)),
    # tied second (seats 1 and 3, not neighbours in seat order): each (+10 - 10) / 2 = 0
    ((40000, 25000, 10000, 25000), (10000 + 50000, -5000, -20000 - 30000, -5000), (1, 2, 4, 2)),
    # all four tied: (+50 + 10 - 10 - 30) / 4 = +5 each
    ((25000,) * 4, (-5000 + 5000,) * 4, (1, 1, 1, 1)),
])
def test_mleague_tied_places_split_the_rank_points_they_share(scores, final, ranks):
    s = final_standings(MLEAGUE, ended(MLEAGUE, scores, dealer=2))
    assert s.final_scores == final and s.ranks == ranks


def test_ties_by_seat_order_where_the_rule_set_says_so():
    sanma = load_ruleset("sanma")
    assert sanma.standings.ties == "seat_order"
    # a tie goes to the seat nearer the starting dealer (dealer seat 2: order 2, 0, 1)
    s = final_standings(sanma, ended(sanma, (35000, 35000, 35000, 0), dealer=2))
    assert s.ranks == (2, 3, 1, None)
    assert s.final_scores[:3] == (-5000 + 0, -5000 - 15000, -5000 + 15000 + 15000)


def test_three_player_standings_leave_the_empty_side_out():
    sanma = load_ruleset("sanma")
    s = final_standings(sanma, ended(sanma, (50000, 35000, 20000, 0)))
    assert s.ranks == (1, 2, 3, None) and s.final_scores[3] is None
    assert s.final_scores[:3] == (50000 - 40000 + 15000 + 15000, 35000 - 40000, 20000 - 40000 - 15000)
