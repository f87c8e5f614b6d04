"""The table's motors: each accepted motion command runs as one loop timer.

An operation's outcome — its completion event (named in the catalog), or a `Fault` — is
worked out when its timer fires, and only then does the model change; aborting cancels the timer, so the
table stays as it was before the operation. Durations come from the profile, divided by
`speed`; on the virtual-time loop they cost nothing. Injected mechanical faults (see
`sim.faults`) replace an operation's outcome and, where it stalls, its duration.
"""
from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from firmware_protocol.catalog import COMPLETIONS, SENSORS, SUBSYSTEM_OF, SUBSYSTEMS, Message
from firmware_protocol.codes import Code
from sim.faults import FaultPlan
from sim.model import DeadWall, TableModel
from sim.walls import Position


@dataclass(frozen=True)
class Fault:
    code: Code
    subsystem: str
    sensor: str = "none"
    expected: int = 0
    counted: int = 0

    def message(self) -> Message:
        return Message("fault", {"code": int(self.code), "subsystem": SUBSYSTEMS.index(self.subsystem),
                                 "sensor": SENSORS.index(self.sensor), "expected": self.expected,
                                 "counted": self.counted})


Args = dict[str, Any]
Outcome = Callable[[], "Args | Fault"]  # the completion's fields, or the fault that stopped it
Plan = tuple[float, Outcome]  # (seconds at speed 1, outcome when they have passed)


class Mechanics:
    def __init__(self, model: TableModel, faults: FaultPlan, loop: asyncio.AbstractEventLoop, speed: float,
                 on_outcome: Callable[[Message | Fault], None]) -> None:
        self.model = model
        self.faults = faults
        self.speed = speed
        self._loop = loop
        self._on_outcome = on_outcome
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self.started: Counter[str] = Counter()  # accepted operations by command, for fault plans

    def start(self, name: str, args: dict[str, Any]) -> None:
        self.started[name] += 1
        seconds, outcome = getattr(self, "_" + name)(self.started[name], args)
        subsystem = SUBSYSTEM_OF[name]
        self.model.motion[subsystem] = name
        self._timers[subsystem] = self._loop.call_later(seconds / self.speed, self._finish, name, outcome)

    def abort_all(self) -> None:
        """Stop every motor at once; aborted operations report nothing."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self.model.motion.clear()

    def _finish(self, name: str, outcome: Outcome) -> None:
        subsystem = SUBSYSTEM_OF[name]
        del self._timers[subsystem], self.model.motion[subsystem]
        result = outcome()
        self._on_outcome(result if isinstance(result, Fault) else Message(COMPLETIONS[name], result))

    # --- one plan per motion command: (duration, outcome) ---------------------------
    def _collect_tiles(self, n: int, args: dict) -> Plan:
        stray = (n in self.faults.extra_tile) - (n in self.faults.missing_tile)
        return self._timings.collect, lambda: {"count": self.model.collect(stray)}

    def _shuffle(self, n: int, args: dict) -> Plan:
        if n in self.faults.build_timeout:  # the stacker stalls until the build limit trips
            return self._timings.build_limit, lambda: Fault(Code.BUILD_TIMEOUT, "shuffler")
        if n in self.faults.jam:
            return self._timings.shuffle / 2, lambda: Fault(Code.JAM, "shuffler", self.faults.jam[n])
        return self._timings.shuffle, self._stack

    def _stack(self) -> Args | Fault:
        tiles = self.model.set_at("collected")
        expected, counted = self.model.profile.tiles, len(tiles.tiles)
        if counted != expected:
            return Fault(Code.TILE_COUNT, "shuffler", "shuffler_exit", expected, counted)
        self.model.stack(tiles)
        return {"count": counted}

    def _raise_walls(self, n: int, args: dict) -> Plan:
        if n in self.faults.lift_stuck:
            return self._timings.raise_walls, lambda: Fault(Code.LIFT_STUCK, "lifts",
                                                            f"lift_{self.faults.lift_stuck[n]}")
        def done() -> Args:
            self.model.raise_walls()
            return {}
        return self._timings.raise_walls, done

    def _roll_dice(self, n: int, args: dict) -> Plan:
        def done() -> Args:
            values = list(self.model.roll_dice(args["count"]))
            return {"values": self.faults.bad_dice.get(n, values)}  # a lying table
        return self._timings.dice, done

    def _separate_dead_wall(self, n: int, args: dict) -> Plan:
        def done() -> Args:
            self.model.dead_wall = DeadWall(args["breaker"], args["position"], args["length"])
            return {}
        return self._timings.separate, done

    def _flip_dora(self, n: int, args: dict) -> Plan:
        def done() -> Args:
            self.model.flip_dora(Position(args["seat"], args["stack"]))
            return dict(args)
        return self._timings.dora_flip, done

    def _set_wind_marker(self, n: int, args: dict) -> Plan:
        def done() -> Args:
            self.model.wind_marker.wind, self.model.wind_marker.seat = args["wind"], args["seat"]
            return dict(args)
        motorised = self.model.profile.wind_marker == "motorised"
        return (self._timings.marker if motorised else 0.0), done

    @property
    def _timings(self):
        return self.model.profile.timings
