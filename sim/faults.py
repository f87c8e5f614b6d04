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

``Scenario`` and its entries are the file's shape (mjtable_config.schema).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from firmware_protocol.catalog import SENSORS
from firmware_protocol.transport import Impairment
from mjtable_config.schema import shape, spec, validate_file

_NTH = spec(min=1)  # occurrences count from 1
_SECONDS = spec(min=0)


@dataclass(frozen=True)
class LidOpening:
    at: float = field(metadata=_SECONDS)
    duration: float = field(metadata=spec(key="for", **_SECONDS))


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


@dataclass(frozen=True)
class Jam:
    shuffle: int = field(metadata=_NTH)
    sensor: str = field(metadata=spec(choices=SENSORS[1:]))


@dataclass(frozen=True)
class LiftStuck:
    raise_walls: int = field(metadata=spec(key="raise", **_NTH))
    lift: int = field(metadata=spec(min=0, max=3))  # the seat whose lift sticks


@dataclass(frozen=True)
class BadDice:
    roll: int = field(metadata=_NTH)
    values: tuple[int, ...] = field(metadata=spec(min=0, max=0xFF))  # reported as bytes


@dataclass(frozen=True)
class Reset:
    at: tuple[float, ...] = field(default=(), metadata=_SECONDS)
    after_command: tuple[int, ...] = field(default=(), metadata=_NTH)


@dataclass(frozen=True)
class Scenario:
    """A fault scenario file, every section optional (see the module's docstring)."""

    link: Impairment | None = None
    jam: tuple[Jam, ...] = ()
    missing_tile: tuple[int, ...] = field(default=(), metadata=_NTH)
    extra_tile: tuple[int, ...] = field(default=(), metadata=_NTH)
    lift_stuck: tuple[LiftStuck, ...] = ()
    build_timeout: tuple[int, ...] = field(default=(), metadata=_NTH)
    bad_dice: tuple[BadDice, ...] = ()
    lid_open: tuple[LidOpening, ...] = ()
    reset: Reset = Reset()

    def plan(self) -> FaultPlan:
        return FaultPlan(
            link=self.link,
            jam={j.shuffle: j.sensor for j in self.jam},
            missing_tile=set(self.missing_tile),
            extra_tile=set(self.extra_tile),
            lift_stuck={s.raise_walls: s.lift for s in self.lift_stuck},
            build_timeout=set(self.build_timeout),
            bad_dice={b.roll: list(b.values) for b in self.bad_dice},
            lid_open=list(self.lid_open),
            reset_at=list(self.reset.at),
            reset_after_command=set(self.reset.after_command),
        )


def load_fault_plan(path: str | Path) -> FaultPlan:
    """The plan of a scenario file; raises ConfigError listing every problem."""
    return validate_file(shape(Scenario, what="a fault scenario"), path).plan()
