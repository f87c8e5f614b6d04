"""A subscriber as the floor view or Home Assistant is one: paho-mqtt on the test's broker.

Every message received is kept, in order, with its topic, payload and retain flag; the
waits poll that list with a deadline.
"""
from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass

import paho.mqtt.client as mqtt

from ...support.mosquitto import PASSWORD
from ...support.processes import wait_for

TIMEOUT = 20.0
_ids = itertools.count()


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    retain: bool

    def json(self):
        return json.loads(self.payload)


class Listener:
    """Connected as ``user`` to ``port``, subscribed to ``topics``; reconnects (and subscribes
    again) by itself after a broker restart. Use as a context manager."""

    def __init__(self, port: int, user: str, *topics: str) -> None:
        self.port, self.topics = port, topics
        self.messages: list[Message] = []
        self._lock = threading.Lock()
        self.subscriptions = 0  # taken by the broker: one per connection
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-{user}-{next(_ids)}")
        self.client.username_pw_set(user, PASSWORD)
        self.client.reconnect_delay_set(0.05, 0.2)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe

    def __enter__(self) -> "Listener":
        self.client.connect("127.0.0.1", self.port)
        self.client.loop_start()
        if self.topics:
            self.wait_subscribed(1)
        return self

    def __exit__(self, *exc_info) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client, userdata, flags, reason, properties) -> None:
        if self.topics:
            client.subscribe([(topic, 1) for topic in self.topics])

    def _on_subscribe(self, client, userdata, mid, reasons, properties) -> None:
        self.subscriptions += 1

    def wait_subscribed(self, times: int) -> None:
        """Until the broker has taken the subscription ``times`` times (2: after one restart)."""
        wait_for(lambda: self.subscriptions >= times, "the broker to take the subscription", TIMEOUT)

    def _on_message(self, client, userdata, message) -> None:
        with self._lock:
            self.messages.append(Message(message.topic, message.payload, bool(message.retain)))

    # -- reading -------------------------------------------------------------------

    def on(self, topic: str) -> list[Message]:
        with self._lock:
            return [m for m in self.messages if m.topic == topic]

    def events(self, table: str, name: str | None = None) -> list[dict]:
        found = [m.json() for m in self.on(f"mjtable/{table}/events")]
        return [e for e in found if name is None or e["event"] == name]

    def wait(self, topic: str, condition=lambda m: True, what: str = "") -> Message:
        """The first message on ``topic`` for which ``condition`` holds (waiting for it)."""
        def found():
            return next((m for m in self.on(topic) if condition(m)), None)
        return wait_for(found, what or f"a message on {topic}", TIMEOUT, 0.02)

    def wait_status(self, table: str, condition, what: str) -> dict:
        return self.wait(f"mjtable/{table}/status", lambda m: condition(m.json()), what).json()

    def wait_event(self, table: str, name: str, condition=lambda e: True) -> dict:
        topic = f"mjtable/{table}/events"
        return self.wait(topic, lambda m: m.json()["event"] == name and condition(m.json()), f"event {name}").json()

    def publish(self, topic: str, payload: dict | str, retain: bool = False) -> None:
        """Published with QoS 1, returning once the broker has it (or dropped it, if the ACL says so)."""
        text = payload if isinstance(payload, str) else json.dumps(payload)
        self.client.publish(topic, text, qos=1, retain=retain).wait_for_publish(TIMEOUT)
