"""Dealer rotation, counters, riichi sticks, draws, chombo and game end, per rule set."""
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import (GameState, ResultError, apply_result, final_standings, hand_label, load_ruleset,
                              new_game, preset_names, ruleset_from_text, validate_result)

EMA = load_ruleset("ema-2016")
ZJ = load_ruleset("zung-jung")
SANMA = load_ruleset("sanma")
MLEAGUE = load_ruleset("mleague")


def variant(rules, *edits):
    text = Path(rules.source).read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    return ruleset_from_text(text, "variant.yaml")


def ron(winner, discarder, han=1, fu=30, riichi=()):
    return {"kind": "ron", "discarder": discarder, "winners": [{"seat": winner, "han": han, "fu": fu}],
            "riichi": list(riichi)}


def other_win(state):
    """A hand the dealer does not win: the next seat rons the one after."""
    s = (state.dealer + 1) % 4
    return ron(s, (s + 1) % 4)


def test_hand_labels_and_wind_flip_with_no_repeats():
    state, labels, flips = new_game(EMA, dealer=2), [], []
    while not state.finished:
        labels.append(hand_label(state))
        out = apply_result(EMA, state, other_win(state))
        flips.append(out.wind_changed)
        state = out.state
    assert labels == ["E1", "E2", "E3", "E4", "S1", "S2", "S3", "S4"]
    assert state.hands_played == 8
    assert flips == [False, False, False, True, False, False, False, False]  # the marker flips to South once


def test_south_4_dealer_who_keeps_winning_never_ends():
    state = new_game(EMA, 0)
    for _ in range(7):
        state = apply_result(EMA, state, other_win(state)).state
    assert hand_label(state) == "S4" and state.dealer == 3
    for i in range(60):
        out = apply_result(EMA, state, ron(3, i % 3, han=1, fu=30))
        assert out.dealer_repeats and not out.game_over
        state = out.state
    assert hand_label(state) == "S4" and state.honba == 60
    out = apply_result(EMA, state, other_win(state))
    assert out.game_over and out.state.finished
    with pytest.raises(ResultError, match="over"):
        apply_result(EMA, out.state, other_win(state))


def test_dealer_tenpai_at_a_draw_repeats_and_noten_passes():
    state = new_game(EMA, 0)
    out = apply_result(EMA, state, {"kind": "draw", "tenpai": [0], "riichi": []})
    assert out.dealer_repeats and out.state.dealer == 0 and out.state.honba == 1
    out = apply_result(EMA, out.state, {"kind": "draw", "tenpai": [1, 2], "riichi": []})
    assert not out.dealer_repeats and out.state.dealer == 1 and out.state.honba == 2  # counters stay after a draw
    out = apply_result(EMA, out.state, ron(2, 3))
    assert out.state.honba == 0  # another player won and East did not


def test_counter_added_when_the_dealer_is_among_several_winners():
    state = replace(new_game(EMA, 0), honba=2)
    result = {"kind": "ron", "discarder": 2, "riichi": [],
              "winners": [{"seat": 0, "han": 1, "fu": 30}, {"seat": 3, "han": 1, "fu": 30}]}
    out = apply_result(EMA, state, result)
    assert out.dealer_repeats and out.state.honba == 3
    # the discarder pays each winner in full, counters included (300 each)
    assert out.payments == (1500 + 600, 0, -(1500 + 600) - (1000 + 600), 1000 + 600)


@pytest.mark.parametrize("tenpai,changes", [
    ([], (0, 0, 0, 0)), ([0, 1, 2, 3], (0, 0, 0, 0)), ([1], (-1000, 3000, -1000, -1000)),
    ([1, 3], (-1500, 1500, -1500, 1500)), ([0, 1, 3], (1000, 1000, -3000, 1000)),
])
def test_noten_payments(tenpai, changes):
    assert apply_result(EMA, new_game(EMA), {"kind": "draw", "tenpai": tenpai, "riichi": []}).payments == changes


def test_riichi_sticks_stay_after_a_draw_and_go_to_the_next_winner():
    out = apply_result(EMA, new_game(EMA), {"kind": "draw", "tenpai": [0, 3], "riichi": [0, 3]})
    assert out.riichi_sticks_after == 2 and out.payments == (500, -1500, -1500, 500)
    out = apply_result(EMA, out.state, ron(2, 1, riichi=[1]))
    assert out.riichi_sticks_after == 0
    assert out.payments[2] == 1000 + 300 + 3 * 1000 and out.payments[1] == -(1000 + 300) - 1000


@pytest.mark.parametrize("discarder,winners,collector", [(0, [1, 3], 1), (2, [1, 3], 3), (3, [1, 2], 1)])
def test_multiple_ron_sticks_go_to_the_winner_nearest_the_discarders_right(discarder, winners, collector):
    state = replace(new_game(EMA, 0), riichi_sticks=2)
    result = {"kind": "ron", "discarder": discarder, "riichi": [],
              "winners": [{"seat": w, "han": 1, "fu": 30} for w in winners]}
    out = apply_result(EMA, state, result)
    assert out.payments[collector] == 1000 + 2000


def test_head_bump_rule_sets_refuse_two_winners():
    result = {"kind": "ron", "discarder": 0, "riichi": [],
              "winners": [{"seat": 1, "han": 1, "fu": 30}, {"seat": 2, "han": 1, "fu": 30}]}
    with pytest.raises(ResultError, match="head bump"):
        apply_result(load_ruleset("wrc"), new_game(load_ruleset("wrc")), result)


def test_tournament_chombo_is_deducted_after_uma_and_is_a_redeal():
    state = replace(new_game(EMA, 0), honba=1)
    out = apply_result(EMA, state, {"kind": "chombo", "offender": 3, "riichi": [1]})
    assert out.payments == (0, 0, 0, 0)  # riichi bets returned, no table payment
    assert out.state.dealer == 0 and out.state.honba == 1 and hand_label(out.state) == "E1"
    assert out.state.hands_played == 0 and out.dealer_repeats and not out.game_over
    assert out.state.penalties == (0, 0, 0, 20000)
    standings = final_standings(EMA, out.state)
    assert standings.final_scores[3] == 0 - 20000 + (-15000 + 15000 + 5000 - 5000) // 4


def test_reverse_mangan_chombo_outside_tournaments():
    parlour = variant(EMA, ("mode: final", "mode: table"))
    assert apply_result(parlour, new_game(parlour, 0), {"kind": "chombo", "offender": 2}).payments == \
        (4000, 2000, -8000, 2000)
    assert apply_result(parlour, new_game(parlour, 0), {"kind": "chombo", "offender": 0}).payments == \
        (-12000, 4000, 4000, 4000)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["ron", "tsumo", "draw"]), st.integers(0, 3), st.integers(0, 3),
                          st.integers(8, 60)), min_size=16, max_size=16))
def test_zung_jung_always_16_hands(hands):
    state, labels = new_game(ZJ, 1), []
    for kind, a, b, points in hands:
        assert not state.finished
        labels.append(hand_label(state))
        if kind == "draw":
            result = {"kind": "draw"}
        elif kind == "tsumo":
            result = {"kind": "tsumo", "winners": [{"seat": a, "points": points}]}
        else:
            result = {"kind": "ron", "discarder": b if b != a else (a + 1) % 4,
                      "winners": [{"seat": a, "points": points}]}
        out = apply_result(ZJ, state, result)
        assert not out.dealer_repeats
        state = out.state
    assert state.finished and state.hands_played == 16
    assert labels == [w + str(i) for w in "ESWN" for i in range(1, 5)]


def test_sanma_rotates_over_three_seats_and_busts():
    state = new_game(SANMA, 2)
    seen = []
    for _ in range(3):
        seen.append(state.dealer)
        s = state.dealer
        nxt = 0 if s == 2 else s + 1
        state = apply_result(SANMA, state, ron(nxt, s)).state
    assert seen == [2, 0, 1] and hand_label(state) == "S1"
    assert state.scores[3] == 0
    big = {"kind": "ron", "discarder": 1, "winners": [{"seat": 0, "yakuman": 1}], "riichi": []}
    out = apply_result(SANMA, replace(state, scores=(35000, 20000, 35000, 0)), big)
    assert out.game_over  # seat 1 went below zero


def test_agari_yame_in_the_last_hand():
    state = new_game(SANMA, 0)
    for _ in range(5):  # to S3
        state = apply_result(SANMA, state, ron((state.dealer + 1) % 3, (state.dealer + 2) % 3)).state
    assert hand_label(state) == "S3"
    out = apply_result(SANMA, state, ron(state.dealer, (state.dealer + 1) % 3, han=5))
    assert out.game_over and out.dealer_repeats
    assert not apply_result(EMA, replace(new_game(EMA, 0), round_wind=1, dealer=3, hand_in_round=4),
                            ron(3, 0, han=5)).game_over  # EMA: no agari-yame


def test_west_extension_until_someone_reaches_the_target():
    rules = variant(EMA, ("start: 30000\n  return: 30000", "start: 25000\n  return: 30000"),
                    ("oka: 0", "oka: 20000"), ("extension: null", "extension: {target: 30000, rounds: 1}"))
    noten = {"kind": "draw", "tenpai": [], "riichi": []}
    state = new_game(rules, 0)
    for _ in range(8):
        out = apply_result(rules, state, noten)
        state = out.state
    assert not out.game_over and out.wind_changed and hand_label(state) == "W1"
    assert state.honba == 8
    out = apply_result(rules, state, ron(2, 1, han=1, fu=30))  # 1,000 + 8 × 300 → 28,400: not yet
    assert not out.game_over and out.state.scores[2] == 28400
    out = apply_result(rules, out.state, ron(2, 1, han=2, fu=30))  # 2,000 → 30,400
    assert out.game_over and out.state.scores[2] >= 30000


# ----------------------------------------------------------------------------- bad results

BAD = [
    ({"kind": "ron", "discarder": 4, "winners": [{"seat": 1, "han": 1, "fu": 30}]}, "discarder 4"),
    ({"kind": "ron", "discarder": 1, "winners": [{"seat": 1, "han": 1, "fu": 30}]}, "among the winners"),
    ({"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 0, "fu": 30}]}, "han"),
    ({"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": True, "fu": 30}]}, "han"),
    ({"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 1, "fu": 30, "dora": 2}]}, "unknown key"),
    ({"kind": "ron", "discarder": 2, "winners": []}, "non-empty"),
    ({"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "points": 30}]}, "unknown key.*'points'"),
    ({"kind": "tsumo", "winners": [{"seat": 1, "fu": 30}]}, "missing key.*'han'"),
    ({"kind": "tsumo", "winners": [{"seat": 1, "han": 1, "fu": 30}, {"seat": 2, "han": 1, "fu": 30}]}, "one winner"),
    ({"kind": "tsumo", "winners": [{"seat": 1, "yakuman": 2}]}, "at most 1"),
    ({"kind": "draw", "tenpai": [0, 0], "riichi": []}, "twice"),
    ({"kind": "draw", "tenpai": [0], "riichi": [0, 0]}, "twice"),
    ({"kind": "draw", "tenpai": [0], "riichi": [3]}, "must be tenpai"),
    ({"kind": "draw", "abortive": True}, "no abortive"),
    ({"kind": "chombo", "offender": "3"}, "offender"),
    ({"kind": "nagashi"}, "allowed: ron, tsumo, draw, chombo"),
    ({"kind": "draw", "tenpai": [], "extra": 1}, "unknown key"),
    ("ron", "object"),
]


@pytest.mark.parametrize("result,message", BAD)
def test_bad_results_are_rejected_with_a_clear_message(result, message):
    state = new_game(EMA)
    with pytest.raises(ResultError, match=message):
        validate_result(EMA, state, result)
    assert state == new_game(EMA)


@pytest.mark.parametrize("rules,result,message", [
    (ZJ, {"kind": "draw", "riichi": [1]}, "no riichi"),
    (SANMA, {"kind": "tsumo", "winners": [{"seat": 3, "han": 1, "fu": 30}]}, "not a seat in play"),
    (SANMA, {"kind": "draw", "tenpai": [3]}, "not a seat in play"),
    (SANMA, {"kind": "ron", "discarder": 0, "winners": [{"seat": 1, "han": 1, "fu": 30}], "riichi": [2]}, ""),
    (MLEAGUE, {"kind": "draw", "abortive": True, "riichi": []}, "mleague has no abortive draws; allowed: an exhaus"),
    (MLEAGUE, {"kind": "ron", "discarder": 0, "riichi": [],
               "winners": [{"seat": 1, "han": 1, "fu": 30}, {"seat": 2, "han": 1, "fu": 30}]}, "head bump"),
])
def test_rule_set_specific_rejections(rules, result, message):
    state = new_game(rules)
    if not message:  # the minimum score for riichi (sanma: 1,000)
        state, message = replace(state, scores=(35000, 35000, 500, 0)), "at least 1000"
    with pytest.raises(ResultError, match=message):
        validate_result(rules, state, result)


def test_mleague_riichi_below_1000_points_goes_below_zero():
    # no busting: seat 3 with 500 points declares; seat 1 wins 1 han 30 fu on seat 2's discard
    state = replace(new_game(MLEAGUE), scores=(25000, 25000, 49500, 500))
    out = apply_result(MLEAGUE, state, ron(1, 2, riichi=[3]))
    assert out.payments == (0, 1000 + 1000, -1000, -1000)
    assert out.state.scores[3] == -500 and not out.game_over


def test_mleague_exhaustive_draw_is_still_accepted():
    out = apply_result(MLEAGUE, new_game(MLEAGUE), {"kind": "draw", "abortive": False, "tenpai": [1], "riichi": []})
    assert out.payments == (-1000, 3000, -1000, -1000)


# ----------------------------------------------------------------------------- invariant

def random_result(rules, state, draw):
    seats = list(rules.seats)
    kind = draw(st.sampled_from(["ron", "tsumo", "draw", "chombo"]))
    riichi = draw(st.lists(st.sampled_from(seats), unique=True)) if rules.has_riichi else []
    riichi = [s for s in riichi if rules.riichi.min_score is None or state.scores[s] >= rules.riichi.min_score]
    if kind == "draw":
        tenpai = sorted(set(draw(st.lists(st.sampled_from(seats), unique=True))) | set(riichi))
        return {"kind": "draw", "tenpai": tenpai, "riichi": riichi}
    if kind == "chombo":
        return {"kind": "chombo", "offender": draw(st.sampled_from(seats))}
    if rules.payment.scheme == "riichi":
        han = draw(st.integers(1, 13))
        fu = 25 if han >= 3 else draw(st.sampled_from([30, 40, 50, 70]))
        win = {"han": han, "fu": fu}
    else:
        win = {"points": draw(st.integers(rules.payment.min_points, 100))}
    if kind == "tsumo":
        return {"kind": "tsumo", "winners": [{"seat": draw(st.sampled_from(seats)), **win}], "riichi": riichi}
    discarder = draw(st.sampled_from(seats))
    others = [s for s in seats if s != discarder]
    count = draw(st.integers(1, len(others))) if rules.multiple_ron == "allowed" else 1
    winners = draw(st.permutations(others))[:count]
    return {"kind": "ron", "discarder": discarder, "winners": [{"seat": w, **win} for w in winners], "riichi": riichi}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(preset_names()), st.integers(0, 3), st.data())
def test_points_plus_sticks_never_change(preset, dealer, data):
    rules = load_ruleset(preset)
    state = new_game(rules, rules.seats[dealer % rules.players])
    total = sum(state.scores)
    for _ in range(40):
        if state.finished:
            break
        result = random_result(rules, state, data.draw)
        out = apply_result(rules, state, result)
        assert sum(out.payments) + (out.riichi_sticks_after - state.riichi_sticks) * rules.deposit == 0
        state = out.state
        assert sum(state.scores) + state.riichi_sticks * rules.deposit == total
        assert GameState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    standings = final_standings(rules, state)
    kept = 0 if rules.standings.leftover_sticks == "winner" else state.riichi_sticks * rules.deposit
    assert sum(v for v in standings.final_scores if v is not None) == -kept - sum(state.penalties)
