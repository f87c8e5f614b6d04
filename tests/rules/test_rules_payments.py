"""Hand payments: riichi against the `mahjong` package, Zung Jung and MCR against their rule texts."""
from dataclasses import replace
from pathlib import Path

import pytest
from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
from mahjong.hand_calculating.scores import ScoresCalculator

from controller.rules import ResultError, apply_result, check_han_fu, load_ruleset, new_game, ruleset_from_text

EMA = load_ruleset("ema-2016")
EMA_KIRIAGE = ruleset_from_text(Path(EMA.source).read_text().replace("kiriage: false", "kiriage: true"))
ALL_FU = (20, 25, *range(30, 120, 10))


def existing(rules, tsumo):
    """Every han/fu combination the engine accepts, up to 13 han."""
    return [(han, fu) for han in range(1, 14) for fu in ALL_FU if check_han_fu(rules.payment, han, fu, tsumo) is None]


def oracle(han, fu, *, tsumo, dealer, honba, sticks, kiriage, kazoe, yakuman=False):
    options = OptionalRules(kiriage=kiriage, kazoe_limit=kazoe)
    config = HandConfig(is_tsumo=tsumo, player_wind=27 if dealer else 28, tsumi_number=honba,
                        kyoutaku_number=sticks, options=options)
    return ScoresCalculator.calculate_scores(han=han, fu=fu, config=config, is_yakuman=yakuman)


def play(rules, winner, win, *, tsumo, honba, sticks):
    """Dealer seat 0; a ron is discarded by seat 2 (seat 3 when seat 2 wins)."""
    state = replace(new_game(rules, 0), honba=honba, riichi_sticks=sticks)
    if tsumo:
        result = {"kind": "tsumo", "winners": [{"seat": winner, **win}], "riichi": []}
    else:
        result = {"kind": "ron", "discarder": 2, "winners": [{"seat": winner, **win}], "riichi": []}
    return apply_result(rules, state, result).payments


def expected(score, *, winner, tsumo):
    """Per-seat changes from the oracle's breakdown (dealer at seat 0, discarder seat 2)."""
    pay = [0, 0, 0, 0]
    if not tsumo:
        pay[2] = -(score["main"] + score["main_bonus"])
    else:
        for s in range(4):
            if s != winner:
                first = s == 0 or winner == 0  # the dealer's share, or everyone's when the dealer wins
                pay[s] = -((score["main"] + score["main_bonus"]) if first else
                           (score["additional"] + score["additional_bonus"]))
    pay[winner] = score["total"]
    return pay


CASES = [
    (EMA, False, HandConfig.KAZOE_SANBAIMAN),
    (EMA_KIRIAGE, True, HandConfig.KAZOE_SANBAIMAN),
    (load_ruleset("wrc"), True, HandConfig.KAZOE_SANBAIMAN),
    (load_ruleset("mleague"), True, HandConfig.KAZOE_SANBAIMAN),  # 役満以外のアガリは三倍満が上限
]


@pytest.mark.parametrize("rules,kiriage,kazoe", CASES, ids=["ema", "ema+kiriage", "wrc", "mleague"])
@pytest.mark.parametrize("tsumo", [False, True], ids=["ron", "tsumo"])
@pytest.mark.parametrize("winner", [0, 1], ids=["dealer", "non-dealer"])
def test_riichi_payments_match_the_mahjong_package(rules, kiriage, kazoe, tsumo, winner):
    assert rules.payment.kiriage is kiriage
    combos = existing(rules, tsumo)
    assert len(combos) > 100
    for han, fu in combos:
        for honba in range(4):
            for sticks in range(3):
                got = play(rules, winner, {"han": han, "fu": fu}, tsumo=tsumo, honba=honba, sticks=sticks)
                score = oracle(han, fu, tsumo=tsumo, dealer=winner == 0, honba=honba, sticks=sticks,
                               kiriage=kiriage, kazoe=kazoe)
                assert list(got) == expected(score, winner=winner, tsumo=tsumo), (han, fu, honba, sticks)


@pytest.mark.parametrize("tsumo", [False, True])
@pytest.mark.parametrize("winner", [0, 1])
def test_yakuman_matches_the_mahjong_package(tsumo, winner):
    got = play(EMA, winner, {"yakuman": 1}, tsumo=tsumo, honba=2, sticks=1)
    score = oracle(13, 30, tsumo=tsumo, dealer=winner == 0, honba=2, sticks=1, kiriage=False,
                   kazoe=HandConfig.KAZOE_SANBAIMAN, yakuman=True)
    assert list(got) == expected(score, winner=winner, tsumo=tsumo)


def test_ema_figures_from_the_rules():
    # EMA 2016: no kiriage, 4 han 30 fu = 7,700 / 11,600; mangan 8,000 / 12,000
    assert play(EMA, 1, {"han": 4, "fu": 30}, tsumo=False, honba=0, sticks=0)[1] == 7700
    assert play(EMA, 0, {"han": 4, "fu": 30}, tsumo=False, honba=0, sticks=0)[0] == 11600
    assert play(EMA_KIRIAGE, 1, {"han": 4, "fu": 30}, tsumo=False, honba=0, sticks=0)[1] == 8000
    assert play(EMA, 1, {"han": 13, "fu": 40}, tsumo=False, honba=0, sticks=0)[1] == 24000  # 13+ = sanbaiman


@pytest.mark.parametrize("han,fu,tsumo", [
    (1, 20, False), (1, 20, True), (2, 20, False), (1, 25, False), (2, 25, True), (3, 35, False),
    (2, 120, False), (4, 15, True), (2, 10, False), (4, None, False), (12, 20, False),
])
def test_combinations_that_do_not_exist_are_rejected(han, fu, tsumo):
    assert check_han_fu(EMA.payment, han, fu, tsumo) is not None
    with pytest.raises(ResultError, match="fu"):
        play(EMA, 1, {"han": han, "fu": fu}, tsumo=tsumo, honba=0, sticks=0)


@pytest.mark.parametrize("han,fu,tsumo", [(2, 20, True), (2, 25, False), (3, 25, True), (1, 30, False), (1, 110, True),
                                          (5, None, False), (12, 30, False), (12, None, True)])
def test_combinations_that_exist_are_accepted(han, fu, tsumo):
    assert check_han_fu(EMA.payment, han, fu, tsumo) is None


# ----------------------------------------------------------------------------- Zung Jung

ZJ = load_ruleset("zung-jung")
ZJ_UNIFORM = ruleset_from_text(Path(ZJ.source).read_text().replace("method: formal", "method: uniform"))


def zj(rules, kind, points, **extra):
    win = {"seat": 1, "points": points, **({"responsible": extra.pop("responsible")} if "responsible" in extra else {})}
    result = {"kind": kind, "winners": [win], **({"discarder": 2} if kind == "ron" else {}), **extra}
    return apply_result(rules, new_game(rules, 0), result).payments


def test_zung_jung_discard_above_25_the_discarder_pays_the_rest():
    assert zj(ZJ, "ron", 70) == (-25, 210, -160, -25)  # 25 + 25 + 160 = 210 = 3 × 70


def test_zung_jung_discard_up_to_25_everyone_pays_once():
    assert zj(ZJ, "ron", 25) == (-25, 75, -25, -25)
    assert zj(ZJ, "ron", 8) == (-8, 24, -8, -8)


def test_zung_jung_self_draw_everyone_pays_once():
    assert zj(ZJ, "tsumo", 70) == (-70, 210, -70, -70)


def test_zung_jung_no_one_responsible_everyone_pays_once():
    assert zj(ZJ, "ron", 70, responsible=None) == (-70, 210, -70, -70)


def test_zung_jung_responsible_other_than_the_discarder():
    assert zj(ZJ, "ron", 70, responsible=3) == (-25, 210, -25, -160)


def test_zung_jung_uniform_scheme():
    assert zj(ZJ_UNIFORM, "ron", 70) == (-70, 210, -70, -70)


@pytest.mark.parametrize("points", [0, 321, True, 30.0])
def test_zung_jung_points_out_of_range(points):
    with pytest.raises(ResultError, match="points"):
        zj(ZJ, "ron", points)


# ----------------------------------------------------------------------------- MCR

MCR = load_ruleset("mcr")


def test_mcr_self_draw_each_pays_hand_plus_8():
    assert zj(MCR, "tsumo", 8) == (-16, 48, -16, -16)


def test_mcr_discard_the_discarder_pays_hand_plus_8_others_8():
    assert zj(MCR, "ron", 10) == (-8, 34, -18, -8)


def test_mcr_minimum_8_points():
    with pytest.raises(ResultError, match="allowed: 8"):
        zj(MCR, "ron", 7)


def test_mcr_has_no_responsible_key():
    with pytest.raises(ResultError, match="responsible"):
        zj(MCR, "ron", 10, responsible=None)
