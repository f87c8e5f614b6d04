"""A bench for the table alone: commands straight into the firmware, virtual time."""
from __future__ import annotations

import asyncio

import pytest

from firmware_protocol.catalog import EVENTS, PROTOCOL_VERSION, Message
from firmware_protocol.codes import Code
from firmware_protocol.virtual_time import VirtualTimeLoop
from sim import FaultPlan, SimulatedTable
from firmware_protocol.profile import CONFIG_DIR, Profile

TABLES = CONFIG_DIR / "tables"


class Bench:
    def __init__(self, profile: str | Profile = "four-port", faults: FaultPlan | None = None, seed: int = 0,
                 watchdog: bool = False, trace_path=None) -> None:
        self.loop = VirtualTimeLoop()
        profile = profile if isinstance(profile, Profile) else TABLES / f"{profile}.yaml"
        self.table = SimulatedTable(profile, seed=seed, faults=faults, loop=self.loop, trace_path=trace_path)
        self.table.firmware.watchdog_enabled = watchdog
        self.model = self.table.model
        self.sent: list[Message] = []
        self._event_waiter: asyncio.Future | None = None
        self.table.firmware.bind(self._on_sent)

    def _on_sent(self, msg: Message) -> None:
        self.sent.append(msg)
        if msg.name in EVENTS and self._event_waiter and not self._event_waiter.done():
            self._event_waiter.set_result(msg)

    def send(self, name: str, **args) -> Message:
        """Send a command; return its one reply."""
        before = len(self.sent)
        self.table.firmware.on_message(Message(name, args))
        replies = [m for m in self.sent[before:] if m.name not in EVENTS]
        assert len(replies) == 1, replies
        return replies[0]

    def ok(self, name: str, **args) -> None:
        reply = self.send(name, **args)
        assert reply.name in ("ok", "identity", "status"), reply

    def refused(self, name: str, **args) -> Code:
        reply = self.send(name, **args)
        assert reply.name == "rejected", reply
        return Code(reply["code"])

    def identify(self) -> Message:
        return self.send("identify", protocol_version=PROTOCOL_VERSION)

    def wait(self, seconds: float) -> None:
        self.loop.run_until_complete(asyncio.sleep(seconds))

    def events(self, name: str | None = None) -> list[Message]:
        return [m for m in self.sent if m.name in EVENTS and name in (None, m.name)]

    def status(self) -> dict:
        return self.send("get_status").args

    def next_event(self, within: float = 200) -> Message:
        self._event_waiter = self.loop.create_future()
        return self.loop.run_until_complete(asyncio.wait_for(self._event_waiter, within))

    def run(self, name: str, **args) -> Message:
        """Run a motion command; return the next event (its completion or a fault)."""
        self.ok(name, **args)
        return self.next_event()

    def close(self) -> None:
        self.table.close()
        self.loop.close()


@pytest.fixture
def bench():
    benches: list[Bench] = []

    def make(*args, identify: bool = True, **kwargs) -> Bench:
        b = Bench(*args, **kwargs)
        benches.append(b)
        if identify:
            b.identify()
        return b

    yield make
    for b in benches:
        b.close()
