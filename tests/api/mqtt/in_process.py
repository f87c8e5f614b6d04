"""The publisher on a loop of the test's own, fed by a stand-in for the controller's Service."""
from __future__ import annotations

from contextlib import contextmanager

from controller.api.mqtt.publisher import Publisher
from controller.api.mqtt.settings import MqttSettings

from ...support.loop_thread import LoopThread


class Service:
    """What the publisher takes of the controller's Service: the `status` op and the events."""

    def __init__(self) -> None:
        self.listeners = []
        self.hands_played = 0

    def subscribe(self, listener):
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    async def handle(self, op: str, args: dict) -> dict:
        assert op == "status"
        return {"state": "playing", "fault": None, "fault_code": None, "hands_played": self.hands_played}

    def emit(self, event: dict) -> None:
        for listener in list(self.listeners):
            listener(event)

    def burst(self, changes: int) -> None:
        """Many state changes at once, as the controller's loop makes them."""
        for _ in range(changes):
            self.hands_played += 1
            self.emit({"event": "state", "state": "playing"})


@contextmanager
def publishing(settings: MqttSettings):
    """(loop, service, publisher): started; closed and stopped afterwards."""
    service, loop = Service(), LoopThread(timeout=10)
    loop.start()
    publisher = Publisher(settings, service, [0, 1, 2, 3])
    loop.call(publisher.start)
    try:
        yield loop, service, publisher
    finally:
        loop.call(publisher.close)
        loop.stop()
