"""Hands scored from their tiles (controller/rules/tiles.py), worked from the texts: the
scoring examples of the EMA Riichi Competition Rules 2016 (§4.3, /work/shared/reference),
its minipoint table (§4.1.1), and M.League's red fives; each paid by the rules engine."""
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from controller.rules import apply_result, load_ruleset, new_game, ruleset_from_text
from controller.rules.tiles import TilesError, score_hand

EMA, MLEAGUE, WRC = load_ruleset("ema-2016"), load_ruleset("mleague"), load_ruleset("wrc")
DEALER = 0


def scored(rules, hand, *, seat=1, tsumo=False, riichi=False, dora_shown=None):
    state = new_game(rules, DEALER)
    return score_hand(rules, state, seat, tsumo=tsumo, riichi=riichi, hand=hand, dora_shown=dora_shown)


def paid(rules, score, *, seat=1, tsumo=False, discarder=2):
    """What the winner receives in all, as the engine pays the scored hand."""
    win = score.win(seat)
    result = {"kind": "tsumo", "winners": [win]} if tsumo else {"kind": "ron", "discarder": discarder,
                                                                "winners": [win]}
    return apply_result(rules, new_game(rules, DEALER), {**result, "riichi": []}).payments[seat]


def yaku(score):
    return dict(score.yaku)


# ---- EMA 2016 §4.3, the scoring examples (tiles as the text's pictures show them)

def test_example_1_riichi_tsumo_pinfu_pure_straight_is_a_mangan():
    s = scored(EMA, {"tiles": "123m33m123456789s", "win": "9s"}, tsumo=True, riichi=True)
    assert yaku(s) == {"Riichi": 1, "Menzen Tsumo": 1, "Pinfu": 1, "Ittsu": 2}
    assert (s.han, s.limit) == (5, "mangan")
    assert paid(EMA, s, tsumo=True) == 8000


def test_example_2_the_same_hand_on_a_discard_is_4_han_30_fu():
    s = scored(EMA, {"tiles": "123m33m123456789s", "win": "9s"}, riichi=True)
    assert s.win(1) == {"seat": 1, "han": 4, "fu": 30} and s.limit is None  # no kiriage in EMA 2016
    assert paid(EMA, s) == 7700


def test_example_3_open_pure_straight_with_dora_is_2_han_30_fu():
    hand = {"tiles": "33m123s123s789s", "win": "9s", "melds": [{"kind": "chi", "tiles": "456s"}], "dora": "6s"}
    s = scored(EMA, hand, dora_shown=1)
    assert yaku(s) == {"Ittsu": 1, "Dora": 1}
    assert s.win(1) == {"seat": 1, "han": 2, "fu": 30}  # 20 + 2 for open pinfu, rounded up
    assert paid(EMA, s) == 2000


def test_example_4_four_concealed_pungs_is_a_yakuman():
    s = scored(EMA, {"tiles": "333m222p444p33s888s", "win": "8s"}, tsumo=True)
    assert s.win(1) == {"seat": 1, "yakuman": 1} and s.limit == "yakuman"
    assert paid(EMA, s, tsumo=True) == 32000


def test_example_5_on_a_discard_the_last_pung_is_open_and_three_dora_make_a_baiman():
    s = scored(EMA, {"tiles": "333m222p444p33s888s", "win": "8s", "dora": "3p"})
    assert yaku(s) == {"San Ankou": 2, "Toitoi": 2, "Tanyao": 1, "Dora": 3}
    assert (s.han, s.limit) == (8, "baiman")
    assert paid(EMA, s) == 16000


def test_example_6_seven_pairs_riichi_ippatsu_tsumo_is_a_haneman():
    s = scored(EMA, {"tiles": "22m33m55m22p66p33s44s", "win": "4s", "flags": ["ippatsu"]}, tsumo=True, riichi=True)
    assert yaku(s) == {"Riichi": 1, "Ippatsu": 1, "Menzen Tsumo": 1, "Tanyao": 1, "Chiitoitsu": 2}
    assert s.limit == "haneman" and paid(EMA, s, tsumo=True) == 12000


def test_example_7_seven_pairs_is_25_fu_with_nothing_added():
    s = scored(EMA, {"tiles": "77z33m55m22p66p33s44s", "win": "4s"})
    assert s.win(1) == {"seat": 1, "han": 2, "fu": 25}
    assert paid(EMA, s) == 1600


def test_example_8_twice_pure_double_chow_beats_seven_pairs():
    s = scored(EMA, {"tiles": "345345m112233p77z", "win": "7z"}, tsumo=True)
    assert yaku(s) == {"Menzen Tsumo": 1, "Ryanpeikou": 3}
    assert s.win(1) == {"seat": 1, "han": 4, "fu": 30}
    assert paid(EMA, s, tsumo=True) == 7900


def test_example_9_the_dealers_east_pung_counts_twice():
    hand = {"tiles": "11s123s789s333z", "win": "3z", "melds": [{"kind": "pon", "tiles": "111z"}], "dora": "6s"}
    s = scored(EMA, hand, seat=DEALER, dora_shown=1)
    assert yaku(s) == {"Honitsu": 2, "Yakuhai (seat wind east)": 1, "Yakuhai (round wind east)": 1,
                       "Chantai": 1, "Dora": 1}
    assert s.limit == "haneman" and paid(EMA, s, seat=DEALER) == 18000


def test_example_10_the_wait_is_read_for_the_most_fu():
    s = scored(EMA, {"tiles": "444z11p234p567p789p", "win": "7p"}, tsumo=True)
    assert s.win(1) == {"seat": 1, "han": 4, "fu": 40}  # 20 + 8 concealed honour pung + 2 tsumo + 2 edge
    assert paid(EMA, s, tsumo=True) == 8000


# ---- the minipoint table (§4.1.1), red fives, the refusals

def test_pinfu_tsumo_is_20_fu():
    s = scored(EMA, {"tiles": "234m789m12345p666p", "win": "6p"}, tsumo=True)
    assert s.win(1) == {"seat": 1, "han": 2, "fu": 20}
    assert paid(EMA, s, tsumo=True) == 400 + 400 + 700  # 2 han 20 fu: base 320


def test_a_concealed_kan_of_terminals_is_32_fu():
    hand = {"tiles": "234m55m567p789p", "win": "2m", "melds": [{"kind": "closed_kan", "tiles": "1111s"}]}
    s = scored(EMA, hand, riichi=True)
    assert dict(s.fu_parts)["closed_terminal_kan"] == 32
    assert s.win(1) == {"seat": 1, "han": 1, "fu": 70}  # 20 + 10 concealed ron + 32, rounded up
    assert paid(EMA, s) == 2300


def test_an_open_kan_keeps_riichi_out():
    hand = {"tiles": "234m55m567p789p", "win": "2m", "melds": [{"kind": "kan", "tiles": "1111s"}]}
    with pytest.raises(TilesError, match="riichi needs a closed hand"):
        scored(EMA, hand, riichi=True)


def test_mleague_counts_a_red_five_and_open_all_simples():
    hand = {"tiles": "234m406p22s678s", "win": "6p", "melds": [{"kind": "pon", "tiles": "888s"}]}
    s = scored(MLEAGUE, hand)
    assert yaku(s) == {"Tanyao": 1, "Aka Dora": 1}
    assert s.win(1) == {"seat": 1, "han": 2, "fu": 30}


def test_a_red_five_is_refused_where_the_set_has_none():
    hand = {"tiles": "234m406p22s678s", "win": "6p", "melds": [{"kind": "pon", "tiles": "888s"}]}
    with pytest.raises(TilesError, match="no red fives"):
        scored(EMA, hand)


def test_open_all_simples_follows_the_rule_set():
    hand = {"tiles": "234m456p22s678s", "win": "6p", "melds": [{"kind": "pon", "tiles": "888s"}]}
    assert yaku(scored(WRC, hand)) == {"Tanyao": 1}
    closed_only = replace(WRC, payment=replace(WRC.payment, open_tanyao=False))
    with pytest.raises(TilesError, match="^no yaku"):
        scored(closed_only, hand)


def test_a_hand_without_yaku_is_refused():
    hand = {"tiles": "234m789m123p66p", "win": "6p", "melds": [{"kind": "chi", "tiles": "345p"}], "dora": "5p"}
    with pytest.raises(TilesError, match=r"^no yaku: the hand needs at least one yaku \(dora are not yaku\)"):
        scored(EMA, hand)


@pytest.mark.parametrize("hand,why", [
    ({"tiles": "234m789m12345p669p", "win": "6p"}, "^not a winning hand$"),
    ({"tiles": "234m789m12345p66p", "win": "6p"}, "13 tiles; a winning hand has 14"),
    ({"tiles": "234m789m12345p666p", "win": "7p"}, "winning tile 7p is not among the tiles"),
    ({"tiles": "11111m789m123p666p", "win": "1m"}, "more 1m than the set has"),
    ({"tiles": "234m789m12345p666p", "win": "6p", "melds": [{"kind": "chi", "tiles": "135p"}]}, "three in a row"),
    ({"tiles": "234m789m12345p666p", "win": "6p", "flags": ["riichi"]}, "riichi is the declaration's"),
    ({"tiles": "234m789m12345p666x", "win": "6p"}, "are not tiles"),
    ({"tiles": "234m789m12345p666p", "win": "6p", "flags": ["ippatsu"]}, "ippatsu needs riichi"),
])
def test_what_cannot_be_is_said_in_a_players_words(hand, why):
    with pytest.raises(TilesError, match=why):
        scored(EMA, hand, tsumo=True)


def test_the_dora_indicators_must_be_the_ones_the_table_turned():
    hand = {"tiles": "234m789m12345p666p", "win": "6p", "dora": "1m"}
    with pytest.raises(TilesError, match="1 dora indicator.s. given; the table shows 2"):
        scored(EMA, hand, tsumo=True, dora_shown=2)


def test_ura_dora_count_for_riichi_only():
    hand = {"tiles": "234m789m12345p666p", "win": "6p", "dora": "1m", "ura": "5p"}
    assert yaku(scored(EMA, hand, tsumo=True, riichi=True))["Ura Dora"] == 3
    with pytest.raises(TilesError, match="ura dora count only"):
        scored(EMA, hand, tsumo=True)


def test_point_rule_sets_are_not_scored_by_tiles():
    with pytest.raises(TilesError, match="scores hands in points"):
        scored(load_ruleset("zung-jung"), {"tiles": "234m789m12345p666p", "win": "6p"})


def test_a_rule_set_file_may_play_all_simples_closed_only():
    text = Path(EMA.source).read_text().replace("  max_fu: 110", "  max_fu: 110\n  open_tanyao: false")
    assert ruleset_from_text(text).payment.open_tanyao is False
    assert EMA.payment.open_tanyao is True  # the presets leave it out: open


def test_the_package_is_not_loaded_until_a_hand_is_scored():
    code = ("import sys, controller.app.assembly, controller.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'mahjong'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_with_kiriage_example_2_is_paid_as_a_mangan():
    s = scored(WRC, {"tiles": "123m33m123456789s", "win": "9s"}, riichi=True)
    assert s.win(1) == {"seat": 1, "han": 4, "fu": 30} and s.limit == "mangan"
    assert paid(WRC, s) == 8000


def test_sanma_has_no_characters_between_1_and_9():
    sanma = load_ruleset("sanma")
    with pytest.raises(TilesError, match="2m: this rule set's tiles have none"):
        scored(sanma, {"tiles": "234m789p12345p666p", "win": "6p"}, tsumo=True)
    s = scored(sanma, {"tiles": "111m99m123p456s777z", "win": "9m", "dora": "1m"})  # 1m shows 9m as dora
    assert yaku(s) == {"Yakuhai (chun)": 1, "Dora": 2}
