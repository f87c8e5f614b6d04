"""The publisher's bounded queue: a broker away at start, more events meanwhile than the queue
holds; once the broker is back, how many went is told, then the newest come, in order. And
a burst of changes makes one status message, the latest."""
from controller.api.mqtt.settings import MqttSettings

from ...support.mosquitto import PASSWORD
from .in_process import publishing
from .listener import Listener

QUEUE = 10


def test_the_newest_events_are_kept_while_the_broker_is_away_and_the_drop_is_told(broker):
    broker.kill()
    settings = MqttSettings(broker=broker.url, table_id="table-1", username="table-1", password=PASSWORD, queue=QUEUE)
    with publishing(settings) as (loop, service, publisher):
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
    assert names[0] == "dropped" and dropped[0]["count"] == 15 - QUEUE and dropped[0]["queue"] == QUEUE
    assert kept == list(range(16 - QUEUE, 16))
    assert statuses == [0, 20]  # the one on connecting, then one for the whole burst


def test_over_tls_trusting_the_parlours_ca(broker):
    broker.kill()
    ca = broker.add_tls_listener()
    broker.start()
    settings = MqttSettings(broker=broker.tls_url, table_id="table-1", username="table-1", password=PASSWORD, tls=ca)
    with Listener(broker.port, "floor", "mjtable/table-1/status") as floor:  # the floor on the plain listener
        with publishing(settings):
            assert floor.wait_status("table-1", lambda s: True, "the status, sent over TLS")["table_id"] == "table-1"
