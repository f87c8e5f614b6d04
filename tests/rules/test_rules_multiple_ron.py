"""Riichi sticks on a multiple ron (EMA 2016 §4.1).

The discarder pays each winner in full. The sticks already on the table and the bets of
this hand's declarers who did not win go to the winner nearest the discarder's right (the
first winner in turn after the discarder); a declarer who wins always gets his own bet
back. Every figure below is written out from that text: 1 han 30 fu by a non-dealer on a
discard is 1,000, a stick is 1,000.
"""
from dataclasses import replace

import pytest

from controller.rules import apply_result, load_ruleset, new_game

EMA = load_ruleset("ema-2016")
SANMA = load_ruleset("sanma")


def multiple_ron(rules, discarder, winners, riichi, sticks, dealer=0):
    state = replace(new_game(rules, dealer), riichi_sticks=sticks)
    result = {"kind": "ron", "discarder": discarder, "riichi": riichi,
              "winners": [{"seat": w, "han": 1, "fu": 30} for w in winners]}
    return apply_result(rules, state, result)


def test_two_winning_declarers_each_keep_their_bet_the_table_stick_goes_to_the_nearer():
    # seats 1 and 3 declared riichi and both win on seat 2's discard, 1 stick on the table:
    # seat 3 is at seat 2's right, so it takes the table stick; seat 1 only gets its bet back
    out = multiple_ron(EMA, discarder=2, winners=[1, 3], riichi=[1, 3], sticks=1)
    assert out.payments == (0, 1000 - 1000 + 1000, -2000, 1000 - 1000 + 1000 + 1000)
    assert out.riichi_sticks_after == 0


def test_the_farther_winner_keeps_his_own_bet():
    # seat 0 discards; seat 1 (its right) collects, but seat 3's bet stays with seat 3
    out = multiple_ron(EMA, discarder=0, winners=[1, 3], riichi=[3], sticks=0)
    assert out.payments == (-2000, 1000, 0, 1000 - 1000 + 1000)


def test_bets_of_declarers_who_did_not_win_go_to_the_nearer_winner():
    # seat 0 declared and lost, seat 1 declared and won, 2 sticks on the table; seat 2 discards
    out = multiple_ron(EMA, discarder=2, winners=[1, 3], riichi=[0, 1], sticks=2)
    assert out.payments == (-1000, 1000 - 1000 + 1000, -2000, 1000 + 1000 + 2000)
    assert out.riichi_sticks_after == 0


def test_the_discarders_own_bet_goes_to_the_nearer_winner():
    out = multiple_ron(EMA, discarder=2, winners=[1, 3], riichi=[2, 3], sticks=0)
    assert out.payments == (0, 1000, -2000 - 1000, 1000 - 1000 + 1000 + 1000)


def test_triple_ron_one_collector():
    # seat 1 discards: seat 2 is at its right
    out = multiple_ron(EMA, discarder=1, winners=[0, 2, 3], riichi=[0, 2, 3], sticks=1)
    # the dealer (seat 0) wins 1 han 30 fu: 1,500
    assert out.payments == (1500, -1500 - 1000 - 1000, 1000 + 1000, 1000)


@pytest.mark.parametrize("riichi,sticks", [([], 0), ([1], 0), ([0, 1, 3], 2)])
def test_a_single_winner_collects_everything(riichi, sticks):
    out = multiple_ron(EMA, discarder=2, winners=[1], riichi=riichi, sticks=sticks)
    others = len([s for s in riichi if s != 1])
    assert out.payments[1] == 1000 + (others + sticks) * 1000


def test_sanma_double_ron():
    # three players, seat 0 (dealer) discards: seat 1 is at its right
    out = multiple_ron(SANMA, discarder=0, winners=[1, 2], riichi=[1, 2], sticks=1)
    assert out.payments == (-2000, 1000 - 1000 + 1000 + 1000, 1000 - 1000 + 1000, 0)


def test_tenhou_style_all_sticks_and_counters_go_to_the_nearest_winner():
    # multiple_ron_sticks: nearest_winner (Tenhou-style parlours): seat 2 discards, seats 1
    # and 0 win, both declared riichi, 1 stick and 2 counters on the table. Seat 0 (2's
    # right in sanma: seats 0-2) takes every stick and the 2 × 200 counters; seat 1 is paid
    # its hand alone and loses its bet
    rules = replace(SANMA, multiple_ron_sticks="nearest_winner")
    state = replace(new_game(rules, 0), riichi_sticks=1, honba=2)
    result = {"kind": "ron", "discarder": 2, "riichi": [0, 1],
              "winners": [{"seat": w, "han": 1, "fu": 30} for w in (1, 0)]}
    out = apply_result(rules, state, result)
    # the dealer's 1/30 ron is 1,500; a non-dealer's 1,000
    assert out.payments == (1500 + 400 - 1000 + 3000, 1000 - 1000, -(1500 + 400) - 1000, 0)
    ema_way = apply_result(SANMA, state, result)  # the preset: own bets back, counters to each
    assert ema_way.payments == (1500 + 400 - 1000 + 1000 + 1000, 1000 + 400 - 1000 + 1000, -(1500 + 400) - 1400, 0)
