"""The publisher's bounded queue: a broker away at start, more events meanwhile than the queue
holds; once the broker is back, how many went is told, then the newest come, in order. And
a burst of changes makes one status message, the latest."""
from controller.mqtt.publisher import Publisher
from controller.mqtt.settings import MqttSettings

from ..support.loop_thread import LoopThread
from ..support.mosquitto import PASSWORD
from .listener import Listener

QUEUE = 10


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


def test_the_newest_events_are_kept_while_the_broker_is_away_and_the_drop_is_told(broker):
    broker.kill()
    service, loop = Service(), LoopThread(timeout=10)
    loop.start()
    settings = MqttSettings(broker=broker.url, table_id="table-1", username="table-1", password=PASSWORD, queue=QUEUE)
    publisher = Publisher(settings, service, [0, 1, 2, 3])
    try:
        loop.call(publisher.start)
        for seq in range(1, 16):
            loop.call(service.emit, {"event": "hand_started", "state": "playing", "seq": seq})
        broker.start_with(users=())  # the floor view subscribes before the table may connect
        with Listener(broker.port, "floor", "mjtable/table-1/events", "mjtable/table-1/status") as floor:
            broker.reload(users=("table-1",))
            floor.wait_event("table-1", "hand_started", lambda e: e["seq"] == 15)
            names = [e["event"] for e in floor.events("table-1")]
            dropped = floor.events("table-1", "dropped")
            kept = [e["seq"] for e in floor.events("table-1", "hand_started")]

            floor.wait_status("table-1", lambda s: True, "the status on connecting")
            loop.call(service.burst, 20)
            floor.wait_status("table-1", lambda s: s["hands_played"] == 20, "the latest status")
            loop.call(publisher.close)  # sends what is left (nothing: the burst made one status)
            statuses = [m.json()["hands_played"] for m in floor.on("mjtable/table-1/status")]
    finally:
        loop.call(publisher.close)
        loop.stop()
    assert names[0] == "dropped" and dropped[0]["count"] == 15 - QUEUE and dropped[0]["queue"] == QUEUE
    assert kept == list(range(16 - QUEUE, 16))
    assert statuses == [0, 20]  # the one on connecting, then one for the whole burst
