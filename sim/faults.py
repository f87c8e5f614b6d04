"""Fault injection: what goes wrong, when. Scriptable from tests, a YAML scenario, the CLI.

Occurrences are counted from power-on, 1-based, over accepted operations: with a jam
on shuffle 2, the retry after `resume` is shuffle 3 and runs clean. Times are simulated
seconds since power-on.

Scenario file (every section optional)::

    link: {corrupt: 0.01, drop: 0.01}    # firmware_protocol.transport.Impairment fields
    jam: [{shuffle: 2, sensor: stacker}]  # sensor: a name from catalog.SENSORS
    missing_tile: [1]                    # these collects lose a tile: count 135
    extra_tile: [3]                      # these collects take in a stray tile: count 137
    lift_stuck: [{raise: 2, lift: 1}]     # lift = the seat whose lift sticks
    build_timeout: [4]                   # these shuffles overrun the build limit
    bad_dice: [{roll: 1, values: [7, 7]}] # a lying table: these rolls report these values
    lid_open: [{at: 100.0, for: 10.0}]
    reset: {at: [300.0], after_command: [50]}
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_protocol.catalog import SENSORS
from firmware_protocol.transport import Impairment
from sim import strict_yaml
from sim.strict_yaml import Choice, ConfigError, Optional


@dataclass(frozen=True)
class LidOpening:
    at: float
    duration: float


@dataclass
class FaultPlan:
    link: Impairment | None = None  # line noise on the table's side, both directions
    jam: dict[int, str] = field(default_factory=dict)  # shuffle number -> sensor
    missing_tile: set[int] = field(default_factory=set)  # collect numbers
    extra_tile: set[int] = field(default_factory=set)  # collect numbers
    lift_stuck: dict[int, int] = field(default_factory=dict)  # raise number -> lift (seat)
    build_timeout: set[int] = field(default_factory=set)  # shuffle numbers
    bad_dice: dict[int, list[int]] = field(default_factory=dict)  # roll number -> the values reported
    lid_open: list[LidOpening] = field(default_factory=list)
    reset_at: list[float] = field(default_factory=list)
    reset_after_command: set[int] = field(default_factory=set)  # command numbers

    def __post_init__(self) -> None:
        unknown = set(self.jam.values()) - set(SENSORS[1:])
        if unknown:
            raise ValueError(f"jam: unknown sensors {sorted(unknown)} (known: {', '.join(SENSORS[1:])})")
        if any(not 0 <= lift < 4 for lift in self.lift_stuck.values()):
            raise ValueError("lift_stuck: a lift is a seat, 0-3")


def _nth() -> Optional:
    return Optional([int], [])


_SCHEMA = {
    "jam": Optional([{"shuffle": int, "sensor": Choice(*SENSORS[1:])}], []),
    "missing_tile": _nth(),
    "extra_tile": _nth(),
    "lift_stuck": Optional([{"raise": int, "lift": int}], []),
    "build_timeout": _nth(),
    "bad_dice": Optional([{"roll": int, "values": [int]}], []),
    "lid_open": Optional([{"at": float, "for": float}], []),
    "reset": Optional({"at": Optional([float], []), "after_command": Optional([int], [])}, {}),
}


def load_fault_plan(path: str | Path) -> FaultPlan:
    data = strict_yaml.load(path, {**_SCHEMA, "link": Optional(_impairment_schema())})
    reset = data["reset"] or {}
    try:
        return FaultPlan(
            link=_impairment(data["link"]),
            jam={j["shuffle"]: j["sensor"] for j in data["jam"]},
            missing_tile=set(data["missing_tile"]),
            extra_tile=set(data["extra_tile"]),
            lift_stuck={s["raise"]: s["lift"] for s in data["lift_stuck"]},
            build_timeout=set(data["build_timeout"]),
            bad_dice={b["roll"]: list(b["values"]) for b in data["bad_dice"]},
            lid_open=[LidOpening(o["at"], o["for"]) for o in data["lid_open"]],
            reset_at=list(reset.get("at", [])),
            reset_after_command=set(reset.get("after_command", [])),
        )
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _impairment_schema() -> dict[str, Any]:
    return {f.name: Optional(_field_type(f)) for f in dataclasses.fields(Impairment)}


def _field_type(f: dataclasses.Field) -> type:
    default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
    return float if isinstance(default, float) else type(default)


def _impairment(fields: dict[str, Any] | None) -> Impairment | None:
    if not fields:
        return None
    return Impairment(**{k: v for k, v in fields.items() if v is not None})
