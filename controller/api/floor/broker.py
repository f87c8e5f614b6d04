"""The floor's subscription: every table's topics on the broker, fed to the board.

A lost broker (down at start, restarted, unreachable) is tried again for ever, with a
backoff of up to a few seconds; each new subscription gets every table's retained status
and availability again, so the board catches up by itself.
"""
from __future__ import annotations

import logging
import os
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass

import aiomqtt

from controller.backoff import Backoff
from controller.api.floor.board import Board

log = logging.getLogger("mjtable.floor")
RETRY_FIRST, RETRY_MAX = 0.2, 5.0  # seconds between tries of a lost broker


@dataclass(frozen=True)
class Connection:
    host: str
    port: int
    tls: bool = False
    ca_file: str | None = None
    username: str | None = None
    password: str | None = None

    def client(self) -> aiomqtt.Client:
        tls = ssl.create_default_context(cafile=self.ca_file) if self.tls else None
        return aiomqtt.Client(self.host, self.port, username=self.username, password=self.password,
                              identifier=f"mjtable-floor-{os.getpid()}-{id(self):x}", tls_context=tls,
                              clean_session=True, keepalive=10)


async def follow(connection: Connection, board: Board, on_change: Callable[[str], None],
                 on_broker: Callable[[bool, str | None], None]) -> None:
    """Subscribe and feed the board until cancelled; `on_change(table_id)` after each change,
    `on_broker(up, why)` when the broker comes or goes."""
    async def on_message(client, topic: str, payload: bytes) -> None:
        changed = board.receive(topic, payload, time.time())
        if changed is not None:
            on_change(changed)
    await keep_subscribed(connection, board.subscriptions(), on_message, on_broker, "the floor view")


async def keep_subscribed(connection: Connection, topics: list[str], on_message, on_broker, who: str) -> None:
    """Subscribe to ``topics`` and hand each message to ``await on_message(client, topic,
    payload)`` until cancelled, connecting again with backoff; `on_broker(up, why)` when
    the broker comes or goes (the floor view, the hall)."""
    backoff = Backoff(RETRY_FIRST, RETRY_MAX)
    while True:
        try:
            async with connection.client() as client:
                for topic in topics:
                    await client.subscribe(topic, qos=1)
                log.info("%s subscribed to %s on %s:%d", who, ", ".join(topics), connection.host, connection.port)
                on_broker(True, None)
                backoff.succeeded()
                async for message in client.messages:
                    await on_message(client, message.topic.value, payload_bytes(message.payload))
        except aiomqtt.MqttError as exc:
            log.warning("broker %s:%d: %s; trying again in %.1f s", connection.host, connection.port, exc,
                        backoff.delay)
            on_broker(False, str(exc))
        await backoff.wait()


def payload_bytes(payload) -> bytes:
    if isinstance(payload, (bytes, bytearray)):
        return bytes(payload)
    return b"" if payload is None else str(payload).encode()
