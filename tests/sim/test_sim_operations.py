"""Every operation of the simulated table and the state rules around it."""
from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from firmware_protocol.catalog import BUTTONS, SET_LOCATIONS
from firmware_protocol.codes import Code
from firmware_protocol.profile import DEFAULT_PROFILE, load_profile
from sim.tiles import tile_set


def locations(b) -> list[str]:
    return [SET_LOCATIONS[i] for i in b.status()["sets"]]


def test_power_on_one_set_stacked_the_other_collected(bench):
    b = bench()
    assert locations(b) == ["stacked", "collected"]
    assert b.status()["walls_up"] is False


def test_a_full_hand_cycle_with_the_second_set_shuffled_during_play(bench):
    b = bench()
    assert b.run("raise_walls").name == "walls_raised"
    assert locations(b) == ["on_table", "collected"]
    b.ok("shuffle")
    assert locations(b) == ["on_table", "shuffling"]
    assert b.run("roll_dice", count=2).name == "dice_rolled"
    assert b.run("separate_dead_wall", breaker=1, position=5, length=7).name == "dead_wall_separated"
    assert b.run("flip_dora", seat=1, stack=3).name == "dora_flipped"
    b.wait(30)
    assert b.events()[-1].args == {"count": 136}
    assert locations(b) == ["on_table", "stacked"]
    assert b.run("collect_tiles").args == {"count": 136}
    assert locations(b) == ["collected", "stacked"]
    b.run("raise_walls")
    assert locations(b) == ["collected", "on_table"]


def test_operations_take_their_profile_time(bench):
    b = bench()
    b.ok("raise_walls")
    b.wait(5.9)
    assert b.events() == []
    b.wait(0.2)
    assert [e.name for e in b.events()] == ["walls_raised"]


@pytest.mark.parametrize("profile,size,stacks", [("four-port", 136, (17,) * 4), ("mcr-144", 144, (18,) * 4),
                                                  ("sanma-108", 108, (13, 14, 13, 14))])
def test_walls_hold_the_whole_set_in_the_profile_geometry(bench, profile, size, stacks):
    b = bench(profile)
    b.run("raise_walls")
    walls = b.model.walls
    assert walls.stacks == stacks
    tiles = [walls.tile_at(s, k, lvl) for s in range(4) for k in range(1, stacks[s] + 1) for lvl in ("top", "bottom")]
    assert Counter(tiles) == Counter(tile_set(size))


def test_same_seed_same_walls_and_dice_other_seed_differs(bench):
    def play(seed):
        b = bench(seed=seed)
        b.run("raise_walls")
        return [b.model.tile_at(0, k, "top") for k in range(1, 18)], b.run("roll_dice", count=2).args["values"]
    assert play(3) == play(3)
    assert play(3) != play(4)


def test_dice_values(bench):
    b = bench()
    values = b.run("roll_dice", count=2).args["values"]
    assert len(values) == 2 and all(1 <= v <= 6 for v in values)
    assert b.model.dice == tuple(values)
    assert b.refused("roll_dice", count=3) == Code.BAD_ARGUMENT


def test_dead_wall_and_dora_are_remembered_with_geometry(bench):
    b = bench()
    b.run("raise_walls")
    b.run("separate_dead_wall", breaker=2, position=2, length=7)
    stacks = [(p.seat, p.stack) for p in b.model.dead_wall_stacks()]
    assert stacks == [(2, 2), (2, 1), (3, 17), (3, 16), (3, 15), (3, 14), (3, 13)]
    b.run("flip_dora", seat=3, stack=17)
    assert b.model.dora_indicators() == [b.model.tile_at(3, 17, "top")]
    status = b.status()
    assert status["dead_wall_separated"] is True and status["dora_flipped"] == 1
    assert b.refused("separate_dead_wall", breaker=2, position=2, length=7) == Code.BAD_STATE
    b.run("shuffle")
    b.run("collect_tiles")
    assert b.model.dead_wall is None and b.model.dora_flipped == []


def test_wind_marker_and_dealer_lamp(bench):
    b = bench()
    assert b.run("set_wind_marker", wind=1, seat=2).args == {"wind": 1, "seat": 2}
    b.ok("set_dealer_lamp", seat=3)
    assert (b.model.wind_marker.wind, b.model.wind_marker.seat, b.model.dealer_lamp) == (1, 2, 3)
    status = b.status()
    assert (status["wind"], status["wind_seat"], status["dealer_lamp"]) == (1, 2, 3)
    b.ok("set_dealer_lamp", seat=0xFF)
    assert b.model.dealer_lamp is None


def test_displays_hold_exactly_what_they_were_told(bench):
    b = bench()
    b.ok("show_scores", scores=[25000, 31000, 19000, 25000], mode=1, dealer=2)
    b.ok("show_round", wind=0, hand=3, honba=1, riichi_sticks=2)
    b.ok("show_error", code=201, seats=0b0100)
    b.ok("show_text", seats=0, text="dora 3S")
    seat2 = b.model.seat_displays[2]
    assert (seat2.score, seat2.mode, seat2.dealer, seat2.error) == (19000, "difference", 2, 201)
    assert b.model.seat_displays[0].error == 0
    centre = b.model.centre_display
    assert (centre.round.hand, centre.round.honba, centre.round.riichi_sticks, centre.text) == (3, 1, 2, "dora 3S")
    b.ok("show_error", code=0, seats=0)
    assert all(d.error == 0 for d in b.model.seat_displays)
    assert b.refused("show_scores", scores=[1, 2, 3], mode=0, dealer=0) == Code.BAD_ARGUMENT


def test_buttons_send_events(bench):
    b = bench()
    b.table.press_button(1, "riichi")
    assert b.events("button")[-1].args == {"seat": 1, "name": BUTTONS.index("riichi")}
    with pytest.raises(ValueError):
        b.table.press_button(4, "start")


def test_every_command_but_identify_needs_a_session(bench):
    b = bench(identify=False)
    assert b.refused("get_status") == Code.NOT_IDENTIFIED
    assert b.refused("raise_walls") == Code.NOT_IDENTIFIED
    assert b.refused("identify", protocol_version=99) == Code.VERSION_MISMATCH
    assert b.refused("heartbeat") == Code.NOT_IDENTIFIED
    identity = b.identify()
    assert identity.name == "identity"
    assert (identity["tiles"], identity["stacks"], identity["dora_flipper"]) == (136, [17] * 4, True)


def test_identity_reports_the_profile(bench):
    identity = bench("basic", identify=False).identify().args
    assert (identity["model"], identity["dead_wall_separator"], identity["dora_flipper"]) == ("basic-136", False,
                                                                                               False)
    assert identity["wind_marker"] == 1 and identity["heartbeat_timeout_ms"] == 3000


def test_devices_a_table_lacks_are_unsupported(bench):
    b = bench("basic")
    b.run("raise_walls")
    assert b.refused("separate_dead_wall", breaker=0, position=5, length=7) == Code.UNSUPPORTED
    assert b.refused("flip_dora", seat=0, stack=5) == Code.UNSUPPORTED
    assert b.run("set_wind_marker", wind=1, seat=1).name == "wind_marker_set"  # a lamp: at once


def test_displays_a_table_lacks_are_unsupported(bench):
    four_port = load_profile(DEFAULT_PROFILE)
    no_seat = bench(dataclasses.replace(four_port, seat_displays=False))
    assert no_seat.refused("show_scores", scores=[0] * 4, mode=0, dealer=0) == Code.UNSUPPORTED
    assert no_seat.refused("show_text", seats=0b0001, text="hi") == Code.UNSUPPORTED
    assert no_seat.refused("show_error", code=201, seats=0b0001) == Code.UNSUPPORTED
    no_seat.ok("show_text", seats=0, text="on the centre")
    no_seat.ok("show_error", code=201, seats=0)  # every display there is: the centre
    assert no_seat.model.centre_display.error == 201 and no_seat.model.seat_displays[0].error == 0

    no_centre = bench(dataclasses.replace(four_port, centre_display=False))
    assert no_centre.refused("show_round", wind=0, hand=1, honba=0, riichi_sticks=0) == Code.UNSUPPORTED
    assert no_centre.refused("show_text", seats=0, text="hi") == Code.UNSUPPORTED
    no_centre.ok("show_error", code=201, seats=0)
    assert no_centre.model.centre_display.error == 0 and no_centre.model.seat_displays[3].error == 201

    none = bench(dataclasses.replace(four_port, centre_display=False, seat_displays=False, wind_marker="none"))
    assert none.refused("show_error", code=201, seats=0) == Code.UNSUPPORTED
    assert none.refused("set_wind_marker", wind=0, seat=0) == Code.UNSUPPORTED
    none.ok("set_dealer_lamp", seat=1)


# --- interlocks ---------------------------------------------------------------------------
def test_one_operation_per_subsystem(bench):
    b = bench()
    b.ok("roll_dice", count=2)
    assert b.refused("roll_dice", count=2) == Code.BUSY
    b.ok("raise_walls")  # another subsystem runs alongside
    assert b.refused("raise_walls") == Code.BUSY


def test_no_collect_while_walls_rise(bench):
    b = bench()
    b.ok("raise_walls")
    assert b.refused("collect_tiles") == Code.WALLS_RISING


def test_no_collect_while_a_set_waits_in_the_hopper_or_shuffles(bench):
    b = bench()
    b.run("raise_walls")
    assert b.refused("collect_tiles") == Code.BUSY  # set B is still collected
    b.ok("shuffle")
    assert b.refused("collect_tiles") == Code.BUSY


def test_no_raise_while_the_centre_is_open(bench):
    b = bench()
    b.run("raise_walls")
    b.run("shuffle")
    b.ok("collect_tiles")
    assert b.status()["centre_open"] is True
    assert b.refused("raise_walls") == Code.CENTRE_OPEN
    b.wait(10)
    b.run("raise_walls")


def test_raise_needs_a_stacked_set_and_a_clear_table(bench):
    b = bench()
    b.run("raise_walls")
    assert b.refused("raise_walls") == Code.NO_STACKED_SET
    b.run("shuffle")
    assert b.refused("raise_walls") == Code.BAD_STATE


def test_shuffle_needs_a_collected_set_and_free_lifts(bench):
    b = bench()
    assert b.refused("shuffle") == Code.BUSY  # set A still stacked in the lifts
    b.run("raise_walls")
    b.run("shuffle")
    assert b.refused("shuffle") == Code.NOTHING_TO_SHUFFLE


def test_dead_wall_and_dora_need_walls_up_and_stacks_in_range(bench):
    b = bench()
    assert b.refused("separate_dead_wall", breaker=0, position=5, length=7) == Code.BAD_STATE
    assert b.refused("flip_dora", seat=0, stack=5) == Code.BAD_STATE
    b.run("raise_walls")
    assert b.refused("separate_dead_wall", breaker=4, position=5, length=7) == Code.BAD_ARGUMENT
    assert b.refused("separate_dead_wall", breaker=0, position=18, length=7) == Code.BAD_ARGUMENT
    assert b.refused("flip_dora", seat=0, stack=0) == Code.BAD_ARGUMENT


def test_configure_accepts_only_what_the_set_can_do(bench):
    b = bench()
    b.ok("configure", players=4, tiles=136, stacks=[17, 17, 17, 17])
    assert b.refused("configure", players=4, tiles=144, stacks=[18] * 4) == Code.BAD_ARGUMENT
    assert b.refused("configure", players=4, tiles=136, stacks=[18, 16, 17, 17]) == Code.BAD_ARGUMENT
    assert b.refused("configure", players=2, tiles=136, stacks=[17] * 4) == Code.BAD_ARGUMENT

