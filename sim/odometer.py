"""The table's odometer (protocol 1.1 `get_counters`): cycles, motor time, faults and jams
per sensor, and the cycles since the last service.

A real table keeps these in non-volatile memory; the simulator keeps them for the life of
its process, so they survive an MCU reset but not a restart (the trace has every event
they were counted from).
"""
from __future__ import annotations

from collections import Counter

from firmware_protocol.catalog import SENSORS, Message
from firmware_protocol.codes import Code

_SATURATED = 0xFF  # per-sensor counts travel as u8: 255 means 255 or more

# The mechanical time each completion stands for, by the profile's timing name.
_TIMING_OF = {"tiles_collected": "collect", "shuffle_done": "shuffle", "walls_raised": "raise_walls",
              "dice_rolled": "dice", "dead_wall_separated": "separate", "dora_flipped": "dora_flip",
              "wind_marker_set": "marker"}


class Odometer:
    def __init__(self, timings) -> None:
        self._timings = timings
        self.shuffle_cycles = 0
        self.lift_cycles = 0
        self.motor_seconds = 0.0
        self.cycles_since_service = 0
        self.faults: Counter[str] = Counter()  # by sensor name
        self.jams: Counter[str] = Counter()

    def completed(self, event: Message) -> None:
        if event.name == "shuffle_done":
            self.shuffle_cycles += 1
            self.cycles_since_service += 1
        elif event.name == "walls_raised":
            self.lift_cycles += 1
        self.ran(getattr(self._timings, _TIMING_OF.get(event.name, ""), 0.0))

    def ran(self, seconds: float) -> None:
        self.motor_seconds += seconds

    def faulted(self, code: int, sensor: str) -> None:
        self.faults[sensor] += 1
        if code == Code.JAM:
            self.jams[sensor] += 1

    def serviced(self) -> None:
        self.cycles_since_service = 0

    def message(self) -> Message:
        return Message("counters", {
            "shuffle_cycles": self.shuffle_cycles, "lift_cycles": self.lift_cycles,
            "motor_seconds": int(self.motor_seconds), "cycles_since_service": self.cycles_since_service,
            "faults": [min(self.faults[s], _SATURATED) for s in SENSORS],
            "jams": [min(self.jams[s], _SATURATED) for s in SENSORS],
        })
