"""A control API server on a real Unix socket, run on its own loop in a thread, with a
fake handler standing in for the controller; tests talk to it with blocking sockets."""
import asyncio
import json
import socket
from pathlib import Path

import pytest

from controller.api.server import ApiServer, Limits
from controller.errors import Refusal

from ...support.loop_thread import LoopThread

STATUS = {"state": "playing", "ruleset": "ema-2016", "fault": None, "scores": [25000, 24000, 26000, 25000],
          "hand": "E3", "hand_in_play": {"seq": 7, "label": "E3", "riichi": [1], "dice": [3, 5], "kans": 0}}


class FakeHandler:
    """Records every call; ``refuse`` makes the next call raise an Refusal."""

    def __init__(self):
        self.calls = []
        self.listeners = []
        self.refuse: Refusal | None = None
        self.delay = 0.0

    async def handle(self, op, args):
        self.calls.append((op, args))
        await asyncio.sleep(self.delay)
        if op == "crash":
            raise RuntimeError("bug")
        if self.refuse:
            raise self.refuse
        return dict(STATUS) if op == "status" else {"echo": args}

    def subscribe(self, listener):
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def publish(self, event, **fields):
        for listener in list(self.listeners):
            listener({"event": event, **fields})


class Served(LoopThread):
    def __init__(self, path: Path, handler: FakeHandler, limits: Limits = Limits()):
        super().__init__(timeout=5)
        self.path = path
        self.handler = handler
        self.server = ApiServer(path, handler, limits)

    def start(self):
        super().start()
        self.call(self.server.start)

    def stop(self):
        self.call(self.server.close)
        super().stop()

    def publish(self, event, **fields):
        self.call(lambda: self.handler.publish(event, **fields))

    def wait_until(self, condition):
        for _ in range(200):
            if self.call(condition):
                return True
            self.call(lambda: asyncio.sleep(0.01))
        return False

    def connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(5)
        sock.connect(str(self.path))
        return sock

    def exchange(self, *lines: bytes) -> list:
        """Send raw lines on one connection; the replies, one per line sent."""
        with self.connect() as sock, sock.makefile("rb") as reader:
            sock.sendall(b"".join(lines))
            return [json.loads(reader.readline()) for _ in lines]


@pytest.fixture
def served(short_tmp):
    s = Served(short_tmp / "run" / "mjtable.sock", FakeHandler())
    s.start()
    yield s
    s.stop()
