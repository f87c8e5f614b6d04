"""The rules PROTOCOL.md states for a firmware author, checked against the simulated table:
argument ranges, the watchdog's feed, what status reports, what an interrupted or a
lamp-only operation does."""
import pytest

from protocol_tools import docgen
from firmware_protocol.catalog import OPERATIONS, SET_LOCATIONS
from firmware_protocol.codes import Code
from firmware_protocol.vectors import EXAMPLES
from sim.faults import FaultPlan
from firmware_protocol.profile import load_profile

TABLES = ("four-port", "sanma-108", "mcr-144")


def _bounds(r: docgen.Range, identity: dict, args: dict) -> tuple[int, int]:
    stacks = identity["stacks"]
    high = {"dice": lambda: identity["dice"], "wall": lambda: stacks[args[r.seat_field]],
            "longest": lambda: max(stacks)}[r.high]() if isinstance(r.high, str) else r.high
    return r.low, high


def _answer(b, name: str, args: dict) -> int | None:
    reply = b.send(name, **args)
    return reply["code"] if reply.name == "rejected" else None


@pytest.mark.parametrize("profile", TABLES)
@pytest.mark.parametrize("r", docgen.ARGUMENT_RANGES, ids=lambda r: f"{r.command}.{r.field}")
def test_each_documented_range_is_what_the_table_accepts(bench, profile, r):
    b = bench(profile)
    identity = b.identify().args
    args = dict(EXAMPLES[r.command])
    low, high = _bounds(r, identity, args)
    outside = [v for v in (low - 1, high + 1) if 0 <= v <= 0xFF and v not in r.also]
    if _answer(b, r.command, args) == Code.UNSUPPORTED:  # no such device: that comes first
        assert {_answer(b, r.command, {**args, r.field: v}) for v in outside} <= {Code.UNSUPPORTED}
        return
    for value in (low, high, *r.also):
        assert _answer(b, r.command, {**args, r.field: value}) != Code.BAD_ARGUMENT, value
    for value in outside:
        assert _answer(b, r.command, {**args, r.field: value}) == Code.BAD_ARGUMENT, value


@pytest.mark.parametrize("profile", TABLES)
def test_configure_accepts_exactly_the_documented_geometries(bench, profile):
    b = bench(profile)
    p = load_profile(profile)
    good = {"players": 4, "tiles": p.tiles, "stacks": list(p.stacks)}
    assert _answer(b, "configure", good) is None
    assert _answer(b, "configure", {**good, "players": 3}) is None
    moved = list(p.stacks)
    moved[0], moved[1] = moved[0] - 1, moved[1] + 1  # the same tiles, one stack over the lifts' size
    for bad in ({"players": 2}, {"players": 5}, {"tiles": p.tiles - 2}, {"stacks": list(p.stacks)[:3]},
                {"stacks": moved}, {"stacks": [p.stacks[0] - 1, *p.stacks[1:]]}):
        assert _answer(b, "configure", {**good, **bad}) == Code.BAD_ARGUMENT, bad


def test_not_identified_comes_before_every_other_refusal(bench):
    b = bench("basic", identify=False)  # a table without separator: UNSUPPORTED once identified
    assert b.refused("separate_dead_wall", breaker=9, position=0, length=0) == Code.NOT_IDENTIFIED
    b.identify()
    assert b.refused("separate_dead_wall", breaker=9, position=0, length=0) == Code.UNSUPPORTED


def test_rejected_commands_feed_the_watchdog(bench):
    b = bench(watchdog=True)
    for _ in range(5):
        b.wait(2.5)
        assert b.refused("flip_dora", seat=0, stack=1) == Code.BAD_STATE  # the walls are not up
    assert b.events() == []


def test_the_watchdog_never_replaces_a_pending_fault(bench):
    b = bench(faults=FaultPlan(jam={1: "stacker"}))
    b.run("raise_walls")
    b.ok("shuffle")
    assert b.next_event()["code"] == Code.JAM
    b.table.firmware.watchdog_enabled = True
    b.ok("heartbeat")
    b.wait(30)  # then the host falls silent
    assert [e["code"] for e in b.events("fault")] == [Code.JAM]
    assert b.status()["fault"] == Code.JAM


def test_the_watchdog_fires_again_after_a_later_silence(bench):
    b = bench(watchdog=True)
    b.wait(5)
    b.ok("resume")
    b.wait(5)
    assert [e["code"] for e in b.events("fault")] == [Code.WATCHDOG, Code.WATCHDOG]


def test_the_status_example_is_a_state_the_table_reports(bench):
    b = bench()
    b.run("raise_walls")
    b.ok("shuffle")
    b.run("separate_dead_wall", breaker=2, position=7, length=7)
    b.run("flip_dora", seat=2, stack=5)
    b.ok("set_dealer_lamp", seat=1)
    assert b.status() == {**EXAMPLES["status"], "boot_id": b.table.boot_id}


def test_at_power_on_one_set_is_stacked_and_the_other_collected(bench):
    assert [SET_LOCATIONS[s] for s in bench().status()["sets"]] == ["stacked", "collected"]


def test_status_operation_names_the_latest_operation_started(bench):
    b = bench()
    b.run("raise_walls")
    b.ok("shuffle")
    b.ok("roll_dice", count=2)
    assert OPERATIONS[b.status()["operation"]] == "roll_dice"
    assert SET_LOCATIONS[b.status()["sets"][1]] == "shuffling"
    b.wait(3)
    assert OPERATIONS[b.status()["operation"]] == "shuffle"


def test_an_interrupted_collect_leaves_the_set_and_its_dead_wall_on_the_table(bench):
    b = bench()
    b.run("raise_walls")
    b.run("separate_dead_wall", breaker=2, position=7, length=7)
    b.run("flip_dora", seat=2, stack=5)
    b.run("shuffle")  # the hopper is empty: the played set may go in
    b.ok("collect_tiles")
    b.wait(1)
    b.ok("stop")
    b.wait(10)
    after = b.status()
    assert (after["walls_up"], after["dead_wall_separated"], after["dora_flipped"]) == (True, True, 1)
    assert not after["centre_open"] and SET_LOCATIONS[after["sets"][0]] == "on_table"
    assert b.events("tiles_collected") == []


def test_collecting_clears_walls_up_dead_wall_and_dora_and_a_reset_does_not(bench):
    b = bench()
    b.run("raise_walls")
    b.run("separate_dead_wall", breaker=2, position=7, length=7)
    b.run("flip_dora", seat=2, stack=5)
    b.run("flip_dora", seat=2, stack=5)  # the same stack again: counted once
    b.table.reset_mcu()
    b.identify()
    kept = b.status()
    assert (kept["walls_up"], kept["dead_wall_separated"], kept["dora_flipped"]) == (True, True, 1)
    b.run("shuffle")
    b.run("collect_tiles")
    cleared = b.status()
    assert (cleared["walls_up"], cleared["dead_wall_separated"], cleared["dora_flipped"]) == (False, False, 0)


def test_a_lamp_only_wind_marker_completes_right_after_its_reply(bench):
    b = bench("basic")
    assert load_profile("basic").wind_marker == "lamp"
    b.ok("set_wind_marker", wind=1, seat=2)
    assert b.next_event(within=0.001).name == "wind_marker_set"


def test_configure_is_accepted_while_a_shuffle_runs(bench):
    b = bench()
    b.run("raise_walls")
    b.ok("shuffle")
    b.ok("configure", players=4, tiles=136, stacks=[17, 17, 17, 17])
