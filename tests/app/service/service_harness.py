"""The controller service assembled as `mjtable run` assembles it (simulated table,
Controller, Store, Service, ApiServer), in process on a real asyncio loop in a thread.
Tests talk to it like any client: blocking sockets and `controller.client.Client`.

Not in conftest.py: conftest modules hold fixtures, which pytest finds by itself; tests
import helpers from modules."""
from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

from controller import rules as R
from controller.api.server import ApiServer
from controller.api.client import Client
from controller.game.controller import Controller
from controller.api.handlers import Service
from controller.store.database import Store
from sim.serve import connect_in_process
from sim.table import SimulatedTable

from ...support import processes
from ...support.loop_thread import LoopThread

SPEED = 1000  # mechanical seconds per wall-clock second: a hand's setup takes some 50 ms
TIMEOUT = 10.0


def wait_for(condition, what: str, timeout: float = TIMEOUT, interval: float = 0.01):
    return processes.wait_for(condition, what, timeout, interval)


def exchange(path: Path, *lines: bytes) -> list[dict]:
    """Send raw lines on one connection to the control socket ``path`` in one write; the
    replies, one per line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT)
        sock.connect(str(path))
        sock.sendall(b"".join(lines))
        with sock.makefile("rb") as reader:
            return [json.loads(reader.readline()) for _ in lines]


class RunningService(LoopThread):
    def __init__(self, folder: Path, faults=None, ruleset: str = "ema-2016") -> None:
        super().__init__(timeout=TIMEOUT)
        self.ruleset = ruleset  # a preset's name or a rule set file
        self.socket = folder / "api.sock"
        self.database = folder / "state.db"
        self.client = Client(self.socket, timeout=TIMEOUT)
        self.faults = faults

    def start(self) -> None:
        super().start()
        self.call(self._build)

    async def _build(self) -> None:
        loop = asyncio.get_running_loop()
        self.table = SimulatedTable(seed=3, speed=SPEED, faults=self.faults)
        self.store = Store(self.database)

        async def connect():
            return connect_in_process(loop, self.table)

        self.controller = Controller(connect, R.load_ruleset(self.ruleset), store=self.store, ruleset_name=self.ruleset,
                                     seed=3)
        self.service = Service(self.controller, starting_dealer=0)
        self.server = ApiServer(self.socket, self.service)
        await self.server.start()
        await self.service.start()

    def stop(self) -> None:
        if self.stopped:  # stopped already (a test restarting the service)
            return

        async def teardown():
            await self.server.close()
            # The game, the background shuffle, recoveries: end them all, as a process exit would.
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.controller.close()  # hangs up and waits for the store's queued writes
            self.table.close()
            self.store.close()
        try:
            self.call(teardown)
        finally:
            super().stop()

    # -- as a client sees it ----------------------------------------------------------

    def request(self, op: str, **args) -> dict:
        return self.client.request(op, **args)

    def status(self) -> dict:
        status = self.request("status")
        status.pop("link")  # link statistics (heartbeats, rtt) move on by themselves
        return status

    def exchange(self, *lines: bytes) -> list[dict]:
        return exchange(self.socket, *lines)

    def stored(self) -> list[dict]:
        """Every game in the store with its hands, read through a connection of our own."""
        self.call(self.controller.db.flush)  # the machine's step is written a moment after it is taken
        with Store(self.database, create=False) as store:
            return [{"game": game, "hands": store.hands(game.id)} for game in store.games()]

    def shown(self) -> dict:
        """What the table's displays show now: seat scores, centre sticks, error codes."""
        def read():
            model = self.table.model
            return {"scores": [list(d.scores) for d in model.seat_displays],
                    "sticks": model.centre_display.round.riichi_sticks,
                    "errors": [d.error for d in (model.centre_display, *model.seat_displays)]}
        return self.call(read)

    def wait_playing(self, seq: int) -> dict:
        """Wait until hand ``seq`` is in play (a result can be submitted); its status."""
        def ready():
            status = self.status()
            in_play = status.get("hand_in_play") or {}
            return status if status["state"] == "playing" and in_play.get("seq") == seq else None
        return wait_for(ready, f"hand {seq} in play")
