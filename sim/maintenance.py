"""The sensor test mode (protocol 1.1): one subsystem at a time, each sensor read on demand.

In maintenance mode the game's motion commands are refused (MAINTENANCE), and the mode
is refused while an operation runs; the test commands are refused outside it
(NOT_IN_MAINTENANCE). A test moves the subsystem through its cycle and puts it back, so
the tile sets stay where they were. An MCU reset or a new session (`identify`) leaves
the mode, so a host that lost the link midway never finds its game refused; `stop`
aborts a test.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from firmware_protocol.catalog import SEAT_TESTS, SENSORS, SUBSYSTEM_OF, TEST_SUBSYSTEMS, Message
from firmware_protocol.codes import Code
from sim.interlocks import Refusal
from sim.model import TableModel
from sim.odometer import Odometer
from sim.walls import SEATS

_TIMING_OF = {"centre": "collect", "lifts": "raise_walls", "dice": "dice", "separator": "separate",
              "dora": "dora_flip", "marker": "marker"}


class Maintenance:
    def __init__(self, model: TableModel, odometer: Odometer, loop: asyncio.AbstractEventLoop, speed: float,
                 on_event: Callable[[Message], None]) -> None:
        self.model = model
        self.odometer = odometer
        self.active = False
        self._loop = loop
        self._speed = speed
        self._on_event = on_event
        self._test: asyncio.TimerHandle | None = None

    def refusal(self, name: str, args: dict[str, Any], stopped: bool) -> Refusal | None:
        """Why `name` may not run now as far as the mode goes (any command), else None."""
        if name in SUBSYSTEM_OF:
            return Refusal(Code.MAINTENANCE, "the table is in maintenance mode") if self.active else None
        if name == "enter_maintenance" and self.model.motion:
            return Refusal(Code.BUSY, f"{', '.join(self.model.motion.values())} is running")
        if name == "leave_maintenance" and self._test is not None:
            return Refusal(Code.BUSY, "a subsystem test is running")
        if name in ("test_subsystem", "read_sensors") and not self.active:
            return Refusal(Code.NOT_IN_MAINTENANCE, "enter_maintenance first")
        return self._test_refusal(args, stopped) if name == "test_subsystem" else None

    def _test_refusal(self, a: dict[str, Any], stopped: bool) -> Refusal | None:
        if a["subsystem"] >= len(TEST_SUBSYSTEMS):
            return Refusal(Code.BAD_ARGUMENT, f"subsystem {a['subsystem']} is not 0-{len(TEST_SUBSYSTEMS) - 1}")
        subsystem = TEST_SUBSYSTEMS[a["subsystem"]]
        if a["seat"] >= (SEATS if subsystem in SEAT_TESTS else 1):
            return Refusal(Code.BAD_ARGUMENT, f"seat {a['seat']} for the {subsystem} test")
        if not self.has(subsystem):
            return Refusal(Code.UNSUPPORTED, f"this table has no {subsystem} to test")
        if stopped:
            return Refusal(Code.STOPPED, "motion is stopped: resume first")
        if self.model.lid_open:
            return Refusal(Code.LID_OPEN, "the lid is open")
        if self._test is not None:
            return Refusal(Code.BUSY, "one subsystem at a time")
        return None

    def has(self, subsystem: str) -> bool:
        p = self.model.profile
        return {"separator": p.dead_wall_separator, "dora": p.dora_flipper, "marker": p.wind_marker != "none",
                "display": p.seat_displays, "buttons": p.seat_buttons}.get(subsystem, True)

    @property
    def testing(self) -> bool:
        """A subsystem test is moving its mechanism."""
        return self._test is not None

    # --- the commands, once allowed -----------------------------------------------
    def enter(self) -> None:
        self.active = True

    def leave(self) -> None:
        self.active = False

    def test(self, a: dict[str, Any]) -> None:
        subsystem = TEST_SUBSYSTEMS[a["subsystem"]]
        seconds = getattr(self.model.profile.timings, _TIMING_OF.get(subsystem, ""), 0.0)
        if subsystem == "marker" and self.model.profile.wind_marker == "lamp":
            seconds = 0.0  # a lamp only lights
        self._test = self._loop.call_later(seconds / self._speed, self._tested, dict(a), seconds)

    def _tested(self, a: dict[str, Any], seconds: float) -> None:
        self._test = None
        self.odometer.ran(seconds)
        self._on_event(Message("subsystem_tested", {**a, "result": 0, "sensor": 0}))

    def sensors(self) -> Message:
        m = self.model
        active = {"hopper": m.set_at("collected") is not None, "stacker": m.set_at("stacked") is not None,
                  **{f"lift_{s}": m.walls_up for s in range(SEATS)}, "separator": m.dead_wall is not None,
                  "centre_plate": m.centre_open}
        return Message("sensors", {"values": [int(active.get(s, False)) for s in SENSORS]})

    def abort(self) -> None:
        """`stop`: the test ends without reporting."""
        if self._test is not None:
            self._test.cancel()
            self._test = None

    def end(self) -> None:
        """An MCU reset or a new session (identify): the table is back in game mode."""
        self.abort()
        self.active = False
