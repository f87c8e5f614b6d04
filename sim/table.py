"""`SimulatedTable`: the whole simulated table behind one object.

    table = SimulatedTable(load_profile(DEFAULT_PROFILE), seed=7, faults=FaultPlan(jam={2: "stacker"}))
    table.attach(transport)          # serve the host over a byte transport (link inside)
    table.model.tile_at(0, 1, "top") # the physical state, for assertions
    table.press_button(2, "start")
    table.trace.records              # what the table did
"""
from __future__ import annotations

import asyncio
from pathlib import Path

from firmware_protocol.transport import ByteTransport
from sim.faults import FaultPlan
from sim.firmware import Firmware
from sim.model import TableModel
from firmware_protocol.profile import DEFAULT_PROFILE, Profile, load_profile
from sim.trace import Trace


class SimulatedTable:
    def __init__(self, profile: Profile | str | Path = DEFAULT_PROFILE, *, seed: int = 0,
                 faults: FaultPlan | None = None, speed: float = 1.0, trace_path: str | Path | None = None,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Power the table on. `loop` defaults to the running loop; `speed` divides every
        mechanical duration and scheduled fault time (simulated time = wall time × speed)."""
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.loop = loop or asyncio.get_running_loop()
        self.profile = profile if isinstance(profile, Profile) else load_profile(profile)
        self.faults = faults if faults is not None else FaultPlan()
        self.model = TableModel(self.profile, seed)
        powered_on = self.loop.time()
        self.trace = Trace(lambda: (self.loop.time() - powered_on) * speed, trace_path)
        self.firmware = Firmware(self.model, self.faults, self.trace, self.loop, speed, seed)

    def attach(self, line: ByteTransport) -> None:
        """Serve the host over a byte transport; a new connection replaces the old one."""
        self.firmware.attach(line)

    @property
    def boot_id(self) -> int:
        return self.firmware.boot_id

    def press_button(self, seat: int, name: str) -> None:
        """A player presses a seat button: the table sends a `button` event."""
        self.firmware.press_button(seat, name)

    def open_lid(self) -> None:
        """Open the lid: a LID_OPENED fault if anything moves; motion refused until closed."""
        self.firmware.open_lid()

    def close_lid(self) -> None:
        self.firmware.close_lid()

    def reset_mcu(self) -> None:
        """Reset the microcontroller now (see Firmware.reset)."""
        self.firmware.reset()

    def close(self) -> None:
        """Hang up the host line and close the trace file."""
        self.firmware.detach()
        self.trace.close()
