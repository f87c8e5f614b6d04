"""§State rules for the motion commands: one hand's cycle of the machine (raise, dice,
dead wall, dora, marker, shuffle, collect), each command's completion, the interlocks
and BUSY refusals on the way, and stop / resume as a host uses them.

The checks run in this order on one table; each starts from where the previous one left
the tiles. A refusal that can only be seen while an operation moves is tried during it
and reported by its own check.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..codes import Code
from .check import NotApplicable, check, device
from .commands import geometry
from .kit import QUIET, Kit, consistent
from .probe import CheckFailed

STATE = "§State rules"
SEPARATE = {"breaker": 0, "position": 3, "length": 2}
FLIP = {"seat": 1, "stack": 2}
MARKER = {"wind": 1, "seat": 1}


def two_sets(identity: dict) -> str | None:
    return None if identity.get("tile_sets", 0) >= 2 else "the table holds one tile set"


def _during(kit: Kit, name: str, attempt: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[None]]:
    """Try `attempt` while an operation moves; the check `name` reports how it went."""
    async def run() -> None:
        try:
            await attempt()
            kit.observed[name] = None
        except CheckFailed as failed:
            kit.observed[name] = failed
    return run


def _observed(name: str, during: str):
    async def report(kit: Kit) -> None:
        if name not in kit.observed:
            raise NotApplicable(f"not tried: {during} did not run")
        failed = kit.observed.pop(name)
        if failed is not None:
            raise failed
    return report


async def _locations(kit: Kit) -> set[str]:
    return set(await kit.locations())


@check(STATE, "motion.to_rest", "the table is brought to rest with a stacked set ready to rise")
async def to_rest(kit: Kit) -> str:
    await kit.settle()
    for _ in range(3):  # each set moves on, one at a time, until the lifts hold a stacked set
        where, walls_up = await _locations(kit), (await kit.status())["walls_up"]
        if "stacked" in where and not walls_up:
            return "sets " + ", ".join(sorted(where))
        if "on_table" in where and "collected" not in where:
            await kit.operate("collect_tiles", "tiles_collected")
        elif "collected" in where and "stacked" not in where:
            await kit.operate("shuffle", "shuffle_done")
        else:
            break
    raise CheckFailed(f"cannot bring a stacked set to the lifts from sets at {sorted(where)}")


@check(STATE, "state.shuffle_lifts_full", "shuffle while the lifts hold a stacked set is rejected BUSY", two_sets)
async def shuffle_lifts_full(kit: Kit) -> None:
    if "collected" not in await _locations(kit):
        raise NotApplicable("no collected set to try")
    await kit.refused(Code.BUSY, "shuffle")


@check(STATE, "command.raise_walls", "raise_walls: ok, then walls_raised; the walls are up")
async def raise_walls(kit: Kit) -> None:
    await kit.operate("raise_walls", "walls_raised",
                      _during(kit, "state.walls_rising", lambda: kit.refused(Code.WALLS_RISING, "collect_tiles")))
    if not (await kit.status())["walls_up"]:
        raise CheckFailed("status.walls_up is not set after walls_raised")


walls_rising = check(STATE, "state.walls_rising", "collect_tiles while walls rise is rejected WALLS_RISING")(
    _observed("state.walls_rising", "raise_walls"))


@check(STATE, "state.no_stacked_set", "raise_walls without a stacked set is rejected NO_STACKED_SET")
async def no_stacked_set(kit: Kit) -> None:
    if "stacked" in await _locations(kit):
        raise NotApplicable("a set is stacked")
    await kit.refused(Code.NO_STACKED_SET, "raise_walls")


@check(STATE, "state.hopper_full", "collect_tiles while a collected set waits in the hopper is rejected BUSY",
       two_sets)
async def hopper_full(kit: Kit) -> None:
    if "collected" not in await _locations(kit):
        raise NotApplicable("no collected set in the hopper")
    await kit.refused(Code.BUSY, "collect_tiles")


@check(STATE, "command.roll_dice", "roll_dice: ok, then dice_rolled with one value 1-6 per die")
async def roll_dice(kit: Kit) -> str:
    count = kit.identity["dice"]
    values = (await kit.operate("roll_dice", "dice_rolled", count=count))["values"]
    if len(values) != count or not all(1 <= v <= 6 for v in values):
        raise CheckFailed(f"roll_dice(count={count}) rolled {values}")
    return f"rolled {values}"


@check(STATE, "command.separate_dead_wall", "separate_dead_wall: ok, then dead_wall_separated",
       device("dead_wall_separator", "dead-wall separator"))
async def separate_dead_wall(kit: Kit) -> None:
    await kit.operate("separate_dead_wall", "dead_wall_separated", **SEPARATE)
    if not (await kit.status())["dead_wall_separated"]:
        raise CheckFailed("status.dead_wall_separated is not set after dead_wall_separated")


@check(STATE, "state.separated_twice", "a second separate_dead_wall in the same walls is rejected BAD_STATE",
       device("dead_wall_separator", "dead-wall separator"))
async def separated_twice(kit: Kit) -> None:
    await kit.refused(Code.BAD_STATE, "separate_dead_wall", **SEPARATE)


@check(STATE, "command.flip_dora", "flip_dora: ok, then dora_flipped(seat, stack) as commanded",
       device("dora_flipper", "dora flipper"))
async def flip_dora(kit: Kit) -> None:
    event = await kit.operate("flip_dora", "dora_flipped", **FLIP)
    if event.args != FLIP:
        raise CheckFailed(f"flip_dora{tuple(FLIP.values())} ended with dora_flipped{tuple(event.args.values())}")
    if (await kit.status())["dora_flipped"] < 1:
        raise CheckFailed("status.dora_flipped is 0 after dora_flipped")


@check(STATE, "state.flip_twice", "flip_dora on a stack already face up: dora_flipped again, counted once in status",
       device("dora_flipper", "dora flipper"))
async def flip_twice(kit: Kit) -> None:
    before = (await kit.status())["dora_flipped"]
    if not before:
        raise NotApplicable("no stack is face up (see command.flip_dora)")
    event = await kit.operate("flip_dora", "dora_flipped", **FLIP)
    if event.args != FLIP:
        raise CheckFailed(f"the second flip_dora{tuple(FLIP.values())} ended with dora_flipped{tuple(event.args.values())}")
    after = (await kit.status())["dora_flipped"]
    if after != before:
        raise CheckFailed(f"status.dora_flipped went from {before} to {after}: a stack flipped twice counts once")


@check(STATE, "command.set_wind_marker", "set_wind_marker: ok, then wind_marker_set(wind, seat) as commanded",
       device("wind_marker", "wind marker"))
async def set_wind_marker(kit: Kit) -> None:
    event = await kit.operate("set_wind_marker", "wind_marker_set", **MARKER)
    status = await kit.status()
    if event.args != MARKER or (status["wind"], status["wind_seat"]) != tuple(MARKER.values()):
        raise CheckFailed(f"set_wind_marker{tuple(MARKER.values())} ended with {event.args}, "
                          f"status shows {status['wind']}/{status['wind_seat']}")


@check(STATE, "command.shuffle", "shuffle: ok, then shuffle_done with the set's tile count", two_sets)
async def shuffle(kit: Kit) -> None:
    busy = _during(kit, "state.busy", lambda: kit.refused(Code.BUSY, "shuffle"))
    configure = _during(kit, "state.configure_shuffling", lambda: kit.ok("configure", **geometry(kit)))

    async def during() -> None:
        await busy()
        await configure()
    event = await kit.operate("shuffle", "shuffle_done", during)
    if event["count"] != kit.identity["tiles"]:
        raise CheckFailed(f"shuffle_done counted {event['count']} tiles of {kit.identity['tiles']}")
    if "stacked" not in await _locations(kit):
        raise CheckFailed("no set is stacked after shuffle_done")


busy = check(STATE, "state.busy", "a second command for a busy subsystem (shuffle) is rejected BUSY")(
    _observed("state.busy", "shuffle"))
configure_shuffling = check(STATE, "state.configure_shuffling", "configure while a shuffle runs is accepted")(
    _observed("state.configure_shuffling", "shuffle"))


@check(STATE, "state.nothing_to_shuffle", "shuffle without a collected set is rejected NOTHING_TO_SHUFFLE")
async def nothing_to_shuffle(kit: Kit) -> None:
    if "collected" in await _locations(kit):
        raise NotApplicable("a collected set waits in the hopper")
    await kit.refused(Code.NOTHING_TO_SHUFFLE, "shuffle")


@check(STATE, "state.walls_still_up", "raise_walls while a set is still on the table is rejected BAD_STATE")
async def walls_still_up(kit: Kit) -> None:
    if not {"stacked", "on_table"} <= await _locations(kit):
        raise NotApplicable("needs a stacked set and walls up")
    await kit.refused(Code.BAD_STATE, "raise_walls")


@check(STATE, "state.stop_collect", "stop during collect_tiles: no completion; the set stays on the table, its "
       "dead wall and dora as they were, the centre closed")
async def stop_collect(kit: Kit) -> None:
    before = await kit.status()
    if not before["walls_up"]:
        raise NotApplicable("no walls up to collect")
    mark = len(kit.probe.delivered)
    await kit.ok("collect_tiles")
    await kit.ok("stop")
    try:
        if kit.probe.events_after(mark, "tiles_collected"):
            raise NotApplicable("collect_tiles ended before stop arrived")
        await kit.pause(max(QUIET, 2 * kit.durations.get("collect_tiles", 0.0)))
        after = await kit.status()
    finally:
        await kit.ok("resume")
    if kit.probe.events_after(mark, "tiles_collected"):
        raise CheckFailed("tiles_collected came after stop")
    kept = ("sets", "walls_up", "dead_wall_separated", "dora_flipped")
    changed = [f"{k} {before[k]} → {after[k]}" for k in kept if after[k] != before[k]]
    if after["operation"] or after["centre_open"] or changed:
        raise CheckFailed(f"after stop during collect_tiles: {kit.stopped_reason(after)}, centre_open="
                          f"{after['centre_open']}" + (", " + ", ".join(changed) if changed else ""))


@check(STATE, "command.collect_tiles", "collect_tiles: ok, then tiles_collected with the set's count; "
       "the walls, dead wall and dora are cleared")
async def collect_tiles(kit: Kit) -> None:
    if not (await kit.status())["walls_up"]:
        raise NotApplicable("no walls up to collect (see state.stop_collect)")
    during = _during(kit, "state.centre_open", lambda: kit.refused(Code.CENTRE_OPEN, "raise_walls"))
    event = await kit.operate("collect_tiles", "tiles_collected",
                              during if "stacked" in await _locations(kit) else None)
    if event["count"] != kit.identity["tiles"]:
        raise CheckFailed(f"tiles_collected counted {event['count']} tiles of {kit.identity['tiles']}")
    status = await kit.status()
    if status["walls_up"] or status["dead_wall_separated"] or status["dora_flipped"]:
        raise CheckFailed(f"after collecting: walls_up={status['walls_up']}, dead_wall_separated="
                          f"{status['dead_wall_separated']}, dora_flipped={status['dora_flipped']}")


centre_open = check(STATE, "state.centre_open", "raise_walls while the centre is open is rejected CENTRE_OPEN")(
    _observed("state.centre_open", "collect_tiles with a stacked set"))


@check(STATE, "state.walls_down", "separate_dead_wall and flip_dora without walls are rejected BAD_STATE")
async def walls_down(kit: Kit) -> str:
    tried = [(name, args) for field, name, args in (("dead_wall_separator", "separate_dead_wall", SEPARATE),
                                                     ("dora_flipper", "flip_dora", FLIP)) if kit.has(field)]
    if not tried:
        raise NotApplicable("the table has no separator and no dora flipper")
    if (await kit.status())["walls_up"]:
        raise NotApplicable("the walls are up")
    for name, args in tried:
        await kit.refused(Code.BAD_STATE, name, **args)
    return ", ".join(name for name, _ in tried)


@check(STATE, "state.stop_aborts", "stop during raise_walls: no completion, motion stopped, tiles still stacked")
async def stop_aborts(kit: Kit) -> None:
    if "stacked" not in await _locations(kit):
        raise NotApplicable("no stacked set to raise")
    mark = len(kit.probe.delivered)
    await kit.ok("raise_walls")
    await kit.ok("stop")
    if kit.probe.events_after(mark, "walls_raised"):
        raise NotApplicable("raise_walls ended before stop arrived")
    await kit.pause(max(QUIET, 2 * kit.durations.get("raise_walls", 0.0)))
    status = await kit.status()
    if kit.probe.events_after(mark, "walls_raised"):
        raise CheckFailed("walls_raised came after stop")
    if status["operation"] or not status["stopped"] or status["walls_up"]:
        raise CheckFailed(f"after stop: {kit.stopped_reason(status)}, walls_up={status['walls_up']}")
    if "stacked" not in await _locations(kit):
        raise CheckFailed("the set is no longer stacked after an aborted raise")


@check(STATE, "state.stopped", "while stopped motion is rejected STOPPED, displays work; resume clears it")
async def stopped(kit: Kit) -> None:
    if not (await kit.status())["stopped"]:
        await kit.ok("stop")
    await kit.refused(Code.STOPPED, "roll_dice", count=1)
    await kit.ok("set_dealer_lamp", seat=0)
    await kit.ok("resume")
    if (await kit.status())["stopped"]:
        raise CheckFailed("status.stopped is still set after resume")
    if "stacked" in await _locations(kit):  # re-issue the interrupted operation, as a host does
        await kit.operate("raise_walls", "walls_raised")


@check(STATE, "state.lid_open", "motion while the lid is open is rejected LID_OPEN")
async def lid_open(kit: Kit) -> None:
    if not (await kit.status())["lid_open"]:
        raise NotApplicable("the lid is closed and the protocol cannot open it")
    await kit.refused(Code.LID_OPEN, "roll_dice", count=1)


CHECKS = tuple(map(consistent, (
    to_rest, shuffle_lifts_full, raise_walls, walls_rising, no_stacked_set, hopper_full, roll_dice,
    separate_dead_wall, separated_twice, flip_dora, flip_twice, set_wind_marker, shuffle, busy, configure_shuffling,
    nothing_to_shuffle, walls_still_up, stop_collect, collect_tiles, centre_open, walls_down, stop_aborts, stopped,
    lid_open)))
