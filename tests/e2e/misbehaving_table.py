"""Serve a simulated table that misbehaves on the line, on a pty: `python misbehaving_table.py
PROFILE VARIANT` prints the pty path. The link layer stays the simulator's (frames are
acknowledged); only the table's logic is broken:

- hangs: SIGUSR1 hangs the logic: every command is acknowledged, none answered;
- refuses_identify: refuses every version offered in identify (E-version_mismatch);
- silent_identify: acknowledges identify (and everything) but never answers it;
- fails_sensor_test: every subsystem's test fails at the hopper sensor (a jam).
"""
from __future__ import annotations

import asyncio
import signal
import sys

from firmware_protocol.catalog import SENSORS, Message
from firmware_protocol.codes import Code
from sim import SimulatedTable
from sim.firmware import Firmware, rejected
from sim.maintenance import Maintenance
from firmware_protocol.profile import CONFIG_DIR
from sim.serve import serve_pty

SPEED = 5000.0


class Hangs(Firmware):
    hung = False

    def hang(self) -> None:
        self.hung, self.watchdog_enabled = True, False  # a hung logic runs no watchdog either
        self._disarm_watchdog()

    def on_message(self, msg: Message) -> None:
        if not self.hung:
            super().on_message(msg)


class RefusesIdentify(Firmware):
    def _identify(self, a: dict) -> Message:
        return rejected(Code.VERSION_MISMATCH, "this table speaks protocol 2.0")


class SilentIdentify(Hangs):
    hung = True  # from power-on: identify, like everything, is acknowledged and never answered


class FailingTests(Maintenance):
    def _tested(self, a: dict, seconds: float) -> None:
        self._test = None
        self._on_event(Message("subsystem_tested", {**a, "result": int(Code.JAM), "sensor": SENSORS.index("hopper")}))


VARIANTS = {"hangs": Hangs, "refuses_identify": RefusesIdentify, "silent_identify": SilentIdentify,
            "fails_sensor_test": Firmware}


async def main(profile: str, variant: str) -> None:
    loop = asyncio.get_running_loop()
    table = SimulatedTable(CONFIG_DIR / "tables" / f"{profile}.yaml", speed=SPEED)
    firmware = table.firmware = VARIANTS[variant](table.model, table.faults, table.trace, table.loop, SPEED)
    if variant == "fails_sensor_test":
        firmware.maintenance = FailingTests(table.model, firmware.odometer, loop, SPEED,
                                            lambda event: firmware._emit("event", event))
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    if isinstance(firmware, Hangs):
        loop.add_signal_handler(signal.SIGUSR1, firmware.hang)
    async with serve_pty(table) as path:
        print(path, flush=True)
        await stop.wait()
    table.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
