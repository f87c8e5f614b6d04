"""What `mjtable run` tells the controller from the table config, and the deadlines of the
table's long operations (docs/ARCHITECTURE.md "Deadlines")."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# Seconds each long operation takes on a table, before the margin; a shuffle's is the build
# limit. A table's identity does not say: the table config's profile does (`durations_from`),
# else the host assumes these.
NOMINAL_DURATIONS = {"collect_tiles": 6.0, "raise_walls": 6.0, "roll_dice": 2.0, "separate_dead_wall": 2.0,
                     "flip_dora": 1.0, "set_wind_marker": 1.0, "shuffle": 80.0}
_TIMING_OF = {"collect_tiles": "collect", "raise_walls": "raise_walls", "roll_dice": "dice",
              "separate_dead_wall": "separate", "flip_dora": "dora_flip", "set_wind_marker": "marker",
              "shuffle": "build_limit"}


def durations_from(timings) -> dict[str, float]:
    """The operations' durations from a table profile's `timings` (config/tables/*.yaml)."""
    return {operation: float(getattr(timings, name)) for operation, name in _TIMING_OF.items()}


@dataclass
class Settings:
    display_mode: str = "difference"
    language: str = "en"  # the displays' (controller/language.py LANGUAGES)
    backoff_max: float = 10.0
    operation_margin: float = 2.0  # an operation's deadline: its nominal duration times this
    durations: dict[str, float] = field(default_factory=lambda: dict(NOMINAL_DURATIONS))
    # A time-limited session's clock (controller/game/clock.py): wall-clock seconds, so
    # that its start survives a restart; tests give it the virtual loop's time.
    clock: Callable[[], float] = time.time
    maintenance: dict = field(default_factory=dict)  # task -> controller.intervals.Interval
    service_file: Path | None = None  # the counters' readings at the last service (controller/maintenance/reminders.py)

    def operation_limits(self) -> dict[str, float]:
        return {name: seconds * self.operation_margin for name, seconds in self.durations.items()}
