"""The table's state rules: whether a command may run now, and if not, which numbered code.

Checked in this order, the first failing check wins (PROTOCOL.md "State rules"):
UNSUPPORTED (device absent), BAD_ARGUMENT (a field out of range for this table),
then for motion commands STOPPED, LID_OPEN, BUSY (the subsystem is moving), and the
command's own interlocks. A refused command changes nothing.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from firmware_protocol.catalog import DISPLAY_MODES, NO_SEAT, SUBSYSTEM_OF
from firmware_protocol.codes import Code
from sim.model import TableModel
from firmware_protocol.profile import Profile
from sim.walls import SEATS


@dataclass(frozen=True)
class Refusal:
    code: Code
    detail: str


Args = dict[str, Any]


def refusal(model: TableModel, stopped: bool, name: str, args: Args) -> Refusal | None:
    absent = _absent_device(model.profile, name, args)
    if absent:
        return Refusal(Code.UNSUPPORTED, f"this table has no {absent} for {name}")
    bad = _ARGUMENTS.get(name, lambda m, a: None)(model, args)
    if bad:
        return Refusal(Code.BAD_ARGUMENT, bad)
    if name == "resume" and model.lid_open:
        return Refusal(Code.LID_OPEN, "close the lid first")
    subsystem = SUBSYSTEM_OF.get(name)  # one operation per subsystem at a time
    if subsystem is None:
        return None
    if stopped:
        return Refusal(Code.STOPPED, "motion is stopped: resume first")
    if model.lid_open:
        return Refusal(Code.LID_OPEN, "the lid is open")
    if subsystem in model.motion:
        return Refusal(Code.BUSY, f"{subsystem} is busy with {model.motion[subsystem]}")
    rule = _STATE_RULES.get(name)
    return rule(model) if rule else None


_DEVICE = {
    "separate_dead_wall": "dead-wall separator", "flip_dora": "dora flipper", "set_wind_marker": "wind marker",
    "show_scores": "seat displays", "show_round": "centre display",
}


def _device(name: str, args: Args) -> str | None:
    """The optional device a command drives, if any."""
    if name in ("show_text", "show_error") and args["seats"]:
        return "seat displays"  # a seat mask names seat displays only
    if name == "show_text":
        return "centre display"  # mask 0: the centre alone
    if name == "show_error":
        return "display"  # mask 0: every display the table has
    return _DEVICE.get(name)


def _absent_device(p: Profile, name: str, args: Args) -> str | None:
    device = _device(name, args)
    present = {
        None: True, "dead-wall separator": p.dead_wall_separator, "dora flipper": p.dora_flipper,
        "wind marker": p.wind_marker != "none", "seat displays": p.seat_displays,
        "centre display": p.centre_display, "display": p.seat_displays or p.centre_display,
    }[device]
    return None if present else device


# --- arguments ----------------------------------------------------------------------
def _seat(value: int, what: str = "seat") -> str | None:
    return None if 0 <= value < SEATS else f"{what} {value} is not a seat (0-3)"


def _stack(model: TableModel, seat: int, stack: int, what: str) -> str | None:
    n = _wall_stacks(model)[seat]
    return None if 1 <= stack <= n else f"{what} {stack} is not a stack of seat {seat}'s wall (1-{n})"


def _wall_stacks(model: TableModel) -> tuple[int, ...]:
    """Stacks per side of the walls standing, else of the next stacking."""
    return model.walls.stacks if model.walls_up else model.geometry.stacks


def _configure(model: TableModel, a: Args) -> str | None:
    p = model.profile
    if a["players"] not in (3, 4):
        return f"players must be 3 or 4, not {a['players']}"
    if a["tiles"] != p.tiles:
        return f"this table holds sets of {p.tiles} tiles, not {a['tiles']}"
    stacks = a["stacks"]
    if len(stacks) != SEATS or 2 * sum(stacks) != p.tiles:
        return f"stacks {stacks} must be four walls holding {p.tiles} tiles"
    if any(not 1 <= n <= most for n, most in zip(stacks, p.stacks)):
        return f"stacks {stacks}: the lifts hold at most {list(p.stacks)}"
    return None


def _separate(model: TableModel, a: Args) -> str | None:
    longest = max(_wall_stacks(model))
    return (_seat(a["breaker"], "breaker") or _stack(model, a["breaker"], a["position"], "position")
            or (None if 1 <= a["length"] <= longest else f"length {a['length']} is not 1-{longest}"))


def _in(value: int, low: int, high: int, what: str) -> str | None:
    return None if low <= value <= high else f"{what} {value} is not {low}-{high}"


_ARGUMENTS: dict[str, Callable[[TableModel, Args], str | None]] = {
    "configure": _configure,
    "roll_dice": lambda m, a: _in(a["count"], 1, m.profile.dice, "count"),
    "separate_dead_wall": _separate,
    "flip_dora": lambda m, a: _seat(a["seat"]) or _stack(m, a["seat"], a["stack"], "stack"),
    "set_wind_marker": lambda m, a: _in(a["wind"], 0, 3, "wind") or _seat(a["seat"]),
    "show_scores": lambda m, a: (None if len(a["scores"]) == SEATS else "scores: one per seat (4)")
    or _in(a["mode"], 0, len(DISPLAY_MODES) - 1, "mode") or _seat(a["dealer"], "dealer"),
    "show_round": lambda m, a: _in(a["wind"], 0, 3, "wind") or _in(a["hand"], 1, 4, "hand"),
    "set_dealer_lamp": lambda m, a: None if a["seat"] == NO_SEAT else _seat(a["seat"]),
    "show_error": lambda m, a: _in(a["seats"], 0, 15, "seats mask"),
    "show_text": lambda m, a: _in(a["seats"], 0, 15, "seats mask"),
}


# --- each motion command's own interlocks --------------------------------------------
def _collect(m: TableModel) -> Refusal | None:
    if "lifts" in m.motion:
        return Refusal(Code.WALLS_RISING, "walls are rising")
    if "shuffler" in m.motion or m.set_at("collected"):
        return Refusal(Code.BUSY, "the hopper still holds a set to shuffle")
    if not m.walls_up:
        return Refusal(Code.BAD_STATE, "no tiles on the table")
    return None


def _raise(m: TableModel) -> Refusal | None:
    if m.set_at("stacked") is None:
        return Refusal(Code.NO_STACKED_SET, "no shuffled and stacked set in the lifts")
    if m.centre_open:
        return Refusal(Code.CENTRE_OPEN, "the centre is open")
    if m.walls_up:
        return Refusal(Code.BAD_STATE, "a set is still on the table: collect it first")
    return None


def _shuffle(m: TableModel) -> Refusal | None:
    if m.set_at("collected") is None:
        return Refusal(Code.NOTHING_TO_SHUFFLE, "no collected set in the hopper")
    if m.set_at("stacked"):
        return Refusal(Code.BUSY, "the lifts still hold a stacked set: raise it first")
    return None


def _walls_up(m: TableModel) -> Refusal | None:
    return None if m.walls_up else Refusal(Code.BAD_STATE, "the walls are not up")


def _separate_state(m: TableModel) -> Refusal | None:
    if m.dead_wall is not None:  # implies the walls are up: collecting clears it
        return Refusal(Code.BAD_STATE, "the dead wall is already separated")
    return _walls_up(m)


_STATE_RULES: dict[str, Callable[[TableModel], Refusal | None]] = {
    "collect_tiles": _collect,
    "raise_walls": _raise,
    "shuffle": _shuffle,
    "separate_dead_wall": _separate_state,
    "flip_dora": _walls_up,
}
