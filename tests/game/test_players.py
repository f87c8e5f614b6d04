"""controller/club/players.py: the CLI's player form, the checks, the draw; and a table without
seat displays, which shows the whole seating on its centre display (a virtual-time game)."""
import dataclasses
import functools
import random

import pytest

from controller import rules as R
from controller.errors import Refusal
from controller.club.players import Player, centre_text, check_players, parse_player, seat_players
from controller.app.simulation import profile_for, run_game
from firmware_protocol.profile import load_profile

SEATS = (0, 1, 2, 3)


def test_the_cli_form_reads_back_as_written():
    parsed = parse_player("Ann:EMA=04010001,club=A-17")
    assert parsed == {"name": "Ann", "ema_id": "04010001", "club_id": "A-17"}
    assert Player.from_dict(parsed).cli_form() == "Ann:EMA=04010001,CLUB=A-17"
    assert parse_player("Bo") == {"name": "Bo"}


def test_names_are_trimmed_and_the_ids_kept():
    players = check_players([{"name": "  Ann  Lee "}, {"name": "Bo", "club_id": "7"}, {"name": "Cy"}], (0, 1, 2))
    assert players == [Player("Ann Lee"), Player("Bo", club_id="7"), Player("Cy")]


@pytest.mark.parametrize("given, message", [
    ([{"name": "Ann"}], "this rule set seats 4 players; 1 given"),
    ([{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"nom": "Di"}], 'a player is an object with a "name"'),
    ([{"name": "Ann", "fide": "1"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}], "not fide"),
    ([{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di", "club_id": ""}], "Di's club ID is 1 to 32"),
    # 16 bytes fit; 9 two-byte letters do not
    ([{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "ééééééééé"}], "at most 16 bytes"),
])
def test_bad_players_are_refused_with_the_reason(given, message):
    with pytest.raises(Refusal, match=message) as refused:
        check_players(given, SEATS)
    assert refused.value.code == "bad_request"


def test_the_draw_is_the_seeds_and_uses_every_player():
    players = [Player(n) for n in ("Ann", "Bo", "Cy", "Di")]
    first = seat_players(players, SEATS, "draw", random.Random(11))
    assert first == seat_players(players, SEATS, "draw", random.Random(11))
    assert sorted(p.name for p in first.values()) == ["Ann", "Bo", "Cy", "Di"]
    assert seat_players(players, SEATS, "as-given", random.Random(11)) == dict(zip(SEATS, players))


def test_sanma_seats_only_the_seats_in_play():
    players = [Player(n) for n in ("Ann", "Bo", "Cy")]
    assert list(seat_players(players, (0, 1, 3), "as-given", random.Random(0))) == [0, 1, 3]


def test_the_centre_lists_the_seating_from_east():
    seated = dict(zip(SEATS, [Player(n) for n in ("Ann", "Bo", "Cy", "Di")]))
    assert centre_text(seated, SEATS, dealer=2) == "E Cy S Di W Ann N Bo"


def test_a_table_without_seat_displays_shows_the_seating_on_its_centre():
    rules = R.load_ruleset("ema-2016")
    profile = dataclasses.replace(load_profile(profile_for(rules)), seat_displays=False)
    players = [Player(n) for n in ("Ann", "Bo", "Cy", "Di")]

    def named(controller, _table):
        controller.new_game = functools.partial(controller.new_game, players=players)
    run = run_game(rules, seed=3, profile=profile, on_controller=named)
    texts = [r.args["text"] for r in run.trace if r.dir == "cmd" and r.name == "show_text"]
    assert "E Ann S Bo W Cy N Di" in texts
    assert all(r.args["seats"] == 0 for r in run.trace if r.dir == "cmd" and r.name == "show_text")
