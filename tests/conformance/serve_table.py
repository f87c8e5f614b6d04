"""Serve a simulated table, perhaps a broken one, on a pty: `python serve_table.py PROFILE
[VARIANT]` prints the pty path; SIGUSR1 resets the table's MCU (for --reset-with)."""
from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from broken_tables import make_table  # noqa: E402
from sim.serve import serve_pty  # noqa: E402

SPEED = 50.0


async def main(profile: str, variant: str | None) -> None:
    loop = asyncio.get_running_loop()
    table = make_table(profile, variant, speed=SPEED)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, table.reset_mcu)
    async with serve_pty(table) as path:
        print(path, flush=True)
        await stop.wait()
    table.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
