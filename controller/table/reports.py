"""Whether what the table reports can be true, given what was asked and what it announced.

A completion or a status is decoded from well-formed frames, yet its values may still be
impossible: dice showing 7, three dice for a throw of two, more tiles counted than the
table holds, a tile-set location that does not exist. Such a value must never reach the
walls or the journal. Each check returns the problem in words (naming the field and the
value) or None; the table facade turns a problem into a BAD_REPORT fault, which the
operator sees and retries like any other.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from firmware_protocol.catalog import NO_SEAT, OPERATIONS, SET_LOCATIONS

from controller.table.capabilities import Capabilities

DIE_FACES = range(1, 7)
WINDS = range(4)          # east, south, west, north on the wire
SEATS = range(4)          # wire seats; a three-player game leaves one empty
MOST_DORA = 5             # the first indicator and one per kan, four kans at most


def completion_problem(operation: str, asked: Mapping[str, Any], reported: Mapping[str, Any],
                       capabilities: Capabilities) -> str | None:
    """Why the completion of `operation` (commanded with `asked`) cannot be true, or None."""
    if operation == "roll_dice":
        return _dice_problem(list(reported["values"]), asked["count"])
    if operation in ("collect_tiles", "shuffle"):
        return _count_problem(reported["count"], capabilities)
    if operation in ("flip_dora", "set_wind_marker"):
        return _echo_problem(asked, reported)
    return None


def _dice_problem(values: list[int], count: int) -> str | None:
    if len(values) != count:
        return f"dice {values}: {len(values)} dice for a throw of {count}"
    if any(v not in DIE_FACES for v in values):
        return f"dice {values}: a die shows 1 to 6"
    return None


def _count_problem(count: int, capabilities: Capabilities) -> str | None:
    # A tile more or less than a set is a real mishap (TILE_COUNT, seen to by the operator);
    # more than every tile the table holds cannot be counted.
    most = capabilities.tiles * capabilities.tile_sets
    if count > most:
        return f"count {count}: the table holds {most} tiles in all"
    return None


def _echo_problem(asked: Mapping[str, Any], reported: Mapping[str, Any]) -> str | None:
    unlike = [f"{k} {reported[k]} (commanded {v})" for k, v in asked.items() if reported.get(k) != v]
    return f"{', '.join(unlike)}: a completion repeats its command" if unlike else None


def status_problem(status: Mapping[str, Any], capabilities: Capabilities) -> str | None:
    """Why a `status` reply (wire values) cannot be true, or None."""
    sets = list(status["sets"])
    if len(sets) != capabilities.tile_sets:
        return f"sets {sets}: {len(sets)} locations for the {capabilities.tile_sets} tile sets it announced"
    if any(s >= len(SET_LOCATIONS) for s in sets):
        return f"sets {sets}: a location is 0 to {len(SET_LOCATIONS) - 1}"
    ranges = {"operation": range(len(OPERATIONS)), "dora_flipped": range(MOST_DORA + 1), "wind": WINDS,
              "wind_seat": SEATS, "dealer_lamp": (*SEATS, NO_SEAT)}
    for field, allowed in ranges.items():
        if status[field] not in allowed:
            return f"{field} {status[field]}: allowed {_allowed(allowed)}"
    return None


def _allowed(allowed) -> str:
    if isinstance(allowed, range):
        return f"{allowed.start} to {allowed.stop - 1}"
    return ", ".join(map(str, allowed))
