"""Scores by tiles through the console script: `mjtable result ... --tiles` has the rules
engine count the hand (op score_tiles), shows the breakdown and enters the han/fu result;
a hand the tiles do not make is refused in a player's words and nothing is entered."""
import pytest

from .e2e_harness import hand_records, payments_by_hand

# EMA 2016 §4.3, scoring example 2: riichi, pinfu, pure straight on a discard = 4 han 30 fu
EXAMPLE_2 = ("--tiles", "123m 33m 123456789s", "--win", "9s", "--dora", "1z")


@pytest.fixture(scope="module")
def table(table_factory):
    session = table_factory("four-port", "ema-2016")
    session.ok("start")
    session.wait_hand_after(0)
    return session


def test_a_hand_that_is_no_win_is_refused_and_nothing_is_entered(table):
    done = table.cli("result", "tsumo", "--winner", "1", "--tiles", "234m789m12345p669p", "--win", "6p",
                     "--dora", "1z")
    assert done.returncode == 1
    assert "not a winning hand" in done.stderr
    done = table.cli("result", "tsumo", "--winner", "1", "--tiles", "234m789m123p66p", "--win", "6p",
                     "--meld", "chi:345p", "--dora", "1z")
    assert "no yaku" in done.stderr
    done = table.cli("result", "tsumo", "--winner", "1", "--tiles", "234m789m12345p666p", "--win", "6p")
    assert "0 dora indicator(s) given; the table shows 1" in done.stderr
    assert hand_records(table.journal()) == []
    assert table.polled_status()["hand_in_play"]["seq"] == 1


def test_the_winner_types_the_tiles_and_the_engine_counts_han_and_fu(table):
    table.ok("riichi", "1")
    out = table.ok("result", "ron", "--discarder", "2", "--winner", "1", *EXAMPLE_2)
    assert out.splitlines() == ["seat 1: Riichi 1, Pinfu 1, Ittsu 2 = 4 han 30 fu", "recorded"]
    record = hand_records(table.journal())[0]
    assert record["result"]["winners"] == [{"seat": 1, "han": 4, "fu": 30}]
    assert payments_by_hand(table.journal())[0] == ("E1", [0, 7700, -7700, 0], 0)  # 7,700 (the bet comes back apart)
