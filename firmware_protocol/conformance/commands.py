"""§Application rules and the state rules of the commands that never move anything:
heartbeat, get_status, configure, the displays; UNSUPPORTED for absent devices, and
BAD_ARGUMENT at the edge of every documented range."""
from __future__ import annotations

from typing import Any

from ..catalog import DISPLAY_MODES, OPERATIONS, SET_LOCATIONS
from ..codes import Code
from .check import NotApplicable, check, device
from .kit import Kit, broken_invariant
from .probe import CheckFailed

APPLICATION, STATE, STATUS = "§Application rules", "§State rules", "§Status"
NO_SEAT = 0xFF
SEATS = 4


@check(APPLICATION, "command.heartbeat", "heartbeat is answered ok")
async def heartbeat(kit: Kit) -> None:
    if (await kit.ok("heartbeat")).name != "ok":
        raise CheckFailed("heartbeat was not answered ok")


@check(APPLICATION, "command.get_status", "get_status is answered by a status within its ranges")
async def get_status(kit: Kit) -> str:
    s = await kit.status()
    problems = [text for bad, text in (
        (s["boot_id"] != kit.identity["boot_id"], f"boot_id {s['boot_id']} differs from identity's"),
        (s["operation"] >= len(OPERATIONS), f"operation {s['operation']}"),
        (len(s["sets"]) != kit.identity["tile_sets"],
         f"{len(s['sets'])} sets, identity says {kit.identity['tile_sets']}"),
        (any(v >= len(SET_LOCATIONS) for v in s["sets"]), f"sets {s['sets']}"),
        (s["dealer_lamp"] >= SEATS and s["dealer_lamp"] != NO_SEAT, f"dealer_lamp {s['dealer_lamp']}"),
        (s["wind"] >= 4 or s["wind_seat"] >= SEATS, f"wind marker {s['wind']}/{s['wind_seat']}"),
    ) if bad]
    if problems:
        raise CheckFailed("status: " + ", ".join(problems))
    return "sets " + ", ".join(SET_LOCATIONS[v] for v in s["sets"])


@check(STATUS, "status.invariants", "the power-on status holds the tile sets' invariants (walls_up ⇔ a set on_table, ...)")
async def invariants(kit: Kit) -> None:
    """Checked before anything moves: a table whose status contradicts itself would fail
    every motion check after it for one cause; those checks are n/a instead."""
    kit.inconsistent = broken_invariant(await kit.status())
    if kit.inconsistent:
        raise CheckFailed(f"the status breaks {kit.inconsistent}")


@check(STATE, "command.configure", "configure with the table's set and four walls is accepted")
async def configure(kit: Kit) -> None:
    await kit.ok("configure", **geometry(kit))


async def _display(kit: Kit, present: bool, missing: str, name: str, **args: Any) -> str | None:
    """Accepted if the table has the display, else rejected UNSUPPORTED."""
    if present:
        await kit.ok(name, **args)
        return None
    await kit.refused(Code.UNSUPPORTED, name, **args)
    return f"UNSUPPORTED: no {missing}"


@check(STATE, "command.show_scores", "show_scores is accepted (UNSUPPORTED without seat displays)")
async def show_scores(kit: Kit) -> str | None:
    return await _display(kit, kit.has("seat_displays"), "seat displays", "show_scores",
                          scores=[25000] * SEATS, mode=0, dealer=0)


@check(STATE, "command.show_round", "show_round is accepted (UNSUPPORTED without a centre display)")
async def show_round(kit: Kit) -> str | None:
    return await _display(kit, kit.has("centre_display"), "centre display", "show_round",
                          wind=0, hand=1, honba=0, riichi_sticks=0)


@check(STATE, "command.show_text", "show_text on the centre and on a seat (UNSUPPORTED without the display)")
async def show_text(kit: Kit) -> str | None:
    notes = [await _display(kit, kit.has("centre_display"), "centre display", "show_text", seats=0, text="E"),
             await _display(kit, kit.has("seat_displays"), "seat displays", "show_text", seats=0b0101, text="S")]
    return "; ".join(n for n in notes if n) or None


@check(STATE, "command.show_error", "show_error on every display and on a seat, then cleared")
async def show_error(kit: Kit) -> str | None:
    anywhere = kit.has("centre_display") or kit.has("seat_displays")
    notes = [await _display(kit, anywhere, "display", "show_error", code=int(Code.JAM), seats=0),
             await _display(kit, kit.has("seat_displays"), "seat displays", "show_error", code=0, seats=0b0010)]
    if anywhere:
        await kit.ok("show_error", code=0, seats=0)
    return "; ".join(n for n in notes if n) or None


@check(STATE, "command.set_dealer_lamp", "set_dealer_lamp lights a seat and 255 switches it off (status shows it)")
async def set_dealer_lamp(kit: Kit) -> None:
    for seat in (2, NO_SEAT):
        await kit.ok("set_dealer_lamp", seat=seat)
        shown = (await kit.status())["dealer_lamp"]
        if shown != seat:
            raise CheckFailed(f"after set_dealer_lamp({seat}) status.dealer_lamp is {shown}")


@check(STATE, "command.stop_resume", "stop and resume at rest are answered ok")
async def stop_resume(kit: Kit) -> None:
    await kit.ok("stop")
    if not (await kit.status())["stopped"]:
        raise CheckFailed("status.stopped is not set after stop")
    await kit.ok("resume")
    if (await kit.status())["stopped"]:
        raise CheckFailed("status.stopped is still set after resume")


# ---- BAD_ARGUMENT: one check per command with ranges, each edge just outside ----------
def _bad(name: str, needs=None):
    def wrap(cases):
        async def run(kit: Kit) -> str:
            tried = cases(kit)
            for args in tried:
                await kit.refused(Code.BAD_ARGUMENT, name, **args)
            return f"{len(tried)} values refused"
        return check(STATE, f"bad_argument.{name}", f"{name} outside its documented ranges is rejected BAD_ARGUMENT",
                     needs)(run)
    return wrap


def geometry(kit: Kit) -> dict[str, Any]:
    return {"players": 3 if kit.identity["tiles"] == 108 else 4, "tiles": kit.identity["tiles"],
            "stacks": kit.stacks()}


@_bad("configure")
def bad_configure(kit: Kit) -> list[dict]:
    good, capacity = geometry(kit), kit.identity["stacks"]
    return [{**good, "players": 2}, {**good, "players": 5}, {**good, "tiles": good["tiles"] + 2},
            {**good, "stacks": good["stacks"][:3]}, {**good, "stacks": [capacity[0] + 1, *good["stacks"][1:]]}]


@_bad("roll_dice")
def bad_roll_dice(kit: Kit) -> list[dict]:
    return [{"count": 0}, {"count": kit.identity["dice"] + 1}]


@_bad("separate_dead_wall", device("dead_wall_separator", "dead-wall separator"))
def bad_separate(kit: Kit) -> list[dict]:
    ok, stacks = {"breaker": 0, "position": 1, "length": 1}, kit.identity["stacks"]
    return [{**ok, "breaker": SEATS}, {**ok, "position": 0}, {**ok, "position": stacks[0] + 1},
            {**ok, "length": 0}, {**ok, "length": max(stacks) + 1}]


@_bad("flip_dora", device("dora_flipper", "dora flipper"))
def bad_flip(kit: Kit) -> list[dict]:
    return [{"seat": SEATS, "stack": 1}, {"seat": 0, "stack": 0}, {"seat": 0, "stack": kit.identity["stacks"][0] + 1}]


@_bad("set_wind_marker", device("wind_marker", "wind marker"))
def bad_marker(kit: Kit) -> list[dict]:
    return [{"wind": 4, "seat": 0}, {"wind": 0, "seat": SEATS}]


@_bad("show_scores", device("seat_displays", "seat displays"))
def bad_scores(kit: Kit) -> list[dict]:
    ok = {"scores": [0] * SEATS, "mode": 0, "dealer": 0}
    return [{**ok, "scores": [0] * (SEATS - 1)}, {**ok, "mode": len(DISPLAY_MODES)}, {**ok, "dealer": SEATS}]


@_bad("show_round", device("centre_display", "centre display"))
def bad_round(kit: Kit) -> list[dict]:
    ok = {"wind": 0, "hand": 1, "honba": 0, "riichi_sticks": 0}
    return [{**ok, "wind": 4}, {**ok, "hand": 0}, {**ok, "hand": 5}]


@_bad("set_dealer_lamp")
def bad_lamp(kit: Kit) -> list[dict]:
    return [{"seat": SEATS}]


@_bad("show_error", device("seat_displays", "seat displays"))
def bad_error(kit: Kit) -> list[dict]:
    return [{"code": 0, "seats": 1 << SEATS}]


@_bad("show_text", device("seat_displays", "seat displays"))
def bad_text(kit: Kit) -> list[dict]:
    return [{"seats": 1 << SEATS, "text": ""}]


@check(STATE, "unsupported", "every command for an absent device is rejected UNSUPPORTED")
async def unsupported(kit: Kit) -> str:
    absent = [(name, args) for field, name, args in (
        ("dead_wall_separator", "separate_dead_wall", {"breaker": 0, "position": 1, "length": 1}),
        ("dora_flipper", "flip_dora", {"seat": 0, "stack": 1}),
        ("wind_marker", "set_wind_marker", {"wind": 0, "seat": 0}),
    ) if not kit.has(field)]
    if not absent:
        raise NotApplicable("the table has every motion device")
    for name, args in absent:
        await kit.refused(Code.UNSUPPORTED, name, **args)
    return ", ".join(name for name, _ in absent)


CHECKS = (heartbeat, get_status, invariants, configure, show_scores, show_round, show_text, show_error, set_dealer_lamp,
          stop_resume, unsupported, bad_configure, bad_roll_dice, bad_separate, bad_flip, bad_marker, bad_scores,
          bad_round, bad_lamp, bad_error, bad_text)
