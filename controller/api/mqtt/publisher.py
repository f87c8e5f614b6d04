"""The table's publisher on the parlour's broker, in the controller's loop.

The game never waits for the broker: the controller's listener only appends to a bounded
queue and marks the status stale; one task drains them while connected. When the queue
is full the oldest events go, and their count is published once the broker is back. On
every (re)connect the publisher says `online`, republishes the discovery configs and the
status; the broker's last will says `offline` for a controller that dies. Commands (when
enabled) go through the control API's own shape check and the same Service.handle as the
Unix socket, never a retained one and each id once (commands.py).
"""
from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
from collections import deque
from pathlib import Path
from typing import Any

import aiomqtt
from aiomqtt import ProtocolVersion

from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.api.mqtt.commands import Commands
from controller.api.server import ControlHandler, encode
from controller.backoff import Backoff
from controller.api.mqtt.results import Results
from controller.version import VERSION
from controller.api.mqtt.settings import MqttSettings, parse_broker
from controller.api.mqtt.topics import (NOT_EVENTS, OFFLINE, ONLINE, Topics, discovery_configs, event_message,
                                    status_message)

log = logging.getLogger("mjtable.mqtt")

BACKOFF_FIRST, BACKOFF_MAX = 0.5, 30.0  # seconds between connection attempts
STOP_TIMEOUT = 2.0  # seconds a clean stop waits to send what is queued, and to say `offline`


class Publisher:
    def __init__(self, settings: MqttSettings, handler: ControlHandler, seats: list[int],
                 results_file: Path | None = None) -> None:
        self.settings = settings
        self.handler = handler
        self.seats = seats
        self.broker = parse_broker(settings.broker)
        self.topics = Topics.of(settings.prefix, settings.table_id, settings.discovery_prefix)
        self.results = Results(self.topics, handler, results_file)  # each game's result, until the hall confirms it
        self._events: deque[bytes] = deque(maxlen=settings.queue)
        self.dropped = 0  # events that fell out of the full queue, not yet told
        self._status_stale = True
        self._status_at = 0.0  # monotonic time of the last status sent
        self._fault_since: float | None = None
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()  # set while nothing waits to be sent
        self._timer: asyncio.TimerHandle | None = None
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task | None = None
        self._unsubscribe = None
        self.connections = 0  # successful connects so far
        self._commands = Commands(handler)

    # ---- lifecycle ----
    def start(self) -> None:
        self._unsubscribe = self.handler.subscribe(self._on_event)
        self._task = asyncio.ensure_future(self._run())
        log.info("MQTT: publishing to %s as %s/%s", self.broker, self.settings.prefix, self.settings.table_id)

    async def close(self, flush: float = STOP_TIMEOUT) -> None:
        """Send what is queued (waiting at most ``flush`` seconds, for a reconnect too), say
        `offline` and disconnect; the will is not sent."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.connections:  # a broker never reached is not waited for
            try:  # what the game did last (its final status, game_over) is worth a moment
                await asyncio.wait_for(self._drained.wait(), flush)
            except asyncio.TimeoutError:
                log.warning("MQTT: %d events not sent at stop", len(self._events))
            await self.results.settled(flush)
        if self._client is not None:
            try:
                if self.settings.clear_at_stop:
                    await self._clear_retained(self._client)
                else:
                    await self._client.publish(self.topics.availability, OFFLINE, qos=1, retain=True,
                                               timeout=STOP_TIMEOUT)
            except aiomqtt.MqttError as exc:
                log.info("MQTT: could not say offline (%s); the broker's will says it", exc)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._timer is not None:
            self._timer.cancel()

    async def _clear_retained(self, client: aiomqtt.Client) -> None:
        """A table gone for good leaves nothing behind: an empty retained message clears
        each of its retained topics (Home Assistant removes a device whose configs go)."""
        topics = [self.topics.status, self.topics.availability]
        if self.settings.discovery_prefix is not None:
            topics += list(discovery_configs(self.topics, self.seats, VERSION))
        for topic in topics:
            await client.publish(topic, b"", qos=1, retain=True, timeout=STOP_TIMEOUT)

    # ---- the controller's side: never blocks, never raises ----
    def _on_event(self, event: dict) -> None:
        name = event["event"]
        self.results.on_event(event)
        if name == "fault":
            self._fault_since = time.time()
        elif name == "recovered":
            self._fault_since = None
        if name not in NOT_EVENTS:
            self._queue_event(event)
        self._status_stale = True
        self._drained.clear()
        self._wake.set()

    def _queue_event(self, event: dict) -> None:
        try:
            line = json.dumps(event_message(event, self.settings.table_id, time.time()), separators=(",", ":"))
        except (TypeError, ValueError):
            log.exception("MQTT: event cannot be sent as JSON: %r", event)
            return
        if len(self._events) == self._events.maxlen:
            self.dropped += 1
        self._events.append(line.encode())

    # ---- the broker's side ----
    async def _run(self) -> None:
        backoff = Backoff(BACKOFF_FIRST, BACKOFF_MAX)
        while True:
            try:
                async with self._connect() as client:
                    self._client = client
                    self.connections += 1
                    log.info("MQTT: connected to %s", self.broker)
                    backoff.succeeded()
                    await self._serve(client)
            except aiomqtt.MqttError as exc:
                level = logging.WARNING if backoff.fresh else logging.DEBUG  # once per outage
                log.log(level, "MQTT: broker %s: %s; the table plays on, retrying (every %g s at most)",
                        self.broker, exc, BACKOFF_MAX)
            except Exception:  # a bug here must not stop the publishing for good, nor the game
                log.exception("MQTT: publisher failed; reconnecting")
            finally:
                self._client = None
            await backoff.wait()

    def _connect(self) -> aiomqtt.Client:
        s = self.settings
        password = s.password
        if s.password_file is not None:
            try:
                password = s.password_file.read_text().strip()
            except OSError as exc:
                raise aiomqtt.MqttError(f"cannot read mqtt.password_file {s.password_file}: {exc.strerror}") from None
        tls = None
        if self.broker.tls:
            tls = ssl.create_default_context(cafile=str(s.tls) if s.tls else None)
        return aiomqtt.Client(self.broker.host, self.broker.port, username=s.username, password=password,
                              identifier=f"mjtable-{s.table_id}", tls_context=tls, protocol=ProtocolVersion.V5,
                              will=aiomqtt.Will(self.topics.availability, OFFLINE, qos=1, retain=True))

    async def _serve(self, client: aiomqtt.Client) -> None:
        await client.publish(self.topics.availability, ONLINE, qos=1, retain=True)
        if self.settings.discovery_prefix is not None:
            for topic, config in discovery_configs(self.topics, self.seats, VERSION, self.settings.web_url).items():
                await client.publish(topic, json.dumps(config), qos=1, retain=True)
        await self._publish_status(client)
        if self.dropped:
            await self._publish_dropped(client)
        if self.settings.commands:  # the retain flag as published: a retained command is told apart
            await client.subscribe(self.topics.command, options=SubscribeOptions(qos=1, retainAsPublished=True))
        self._wake.set()  # a first pass: what was queued while away, and the drained mark
        # Either ends on a lost connection (MqttError); the other is then stopped.
        tasks = [asyncio.ensure_future(self._send(client)), asyncio.ensure_future(self._listen(client)),
                 asyncio.ensure_future(self.results.serve(client))]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in done:
            task.result()

    async def _send(self, client: aiomqtt.Client) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._events:
                await client.publish(self.topics.events, self._events[0], qos=1)
                self._events.popleft()  # only once the broker has it: a lost connection keeps it queued
            if self.dropped:
                await self._publish_dropped(client)
            if self._status_stale:
                await self._status_when_due(client)
            if not (self._events or self._status_stale):
                self._drained.set()

    async def _status_when_due(self, client: aiomqtt.Client) -> None:
        """Bursts coalesce: at most status_rate a second, always the latest."""
        due = self._status_at + 1.0 / self.settings.status_rate - time.monotonic()
        if due <= 0:
            await self._publish_status(client)
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(due, self._status_due)

    def _status_due(self) -> None:
        self._timer = None
        self._wake.set()

    async def _publish_status(self, client: aiomqtt.Client) -> None:
        self._status_stale = False
        status = await self.handler.handle("status", {})
        if status.get("fault_code") is not None and self._fault_since is None:
            self._fault_since = time.time()  # a fault from before this controller started
        message = status_message(status, self.settings.table_id, self._fault_since, time.time(),
                                 self.settings.web_url)
        self._status_at = time.monotonic()
        await client.publish(self.topics.status, json.dumps(message, separators=(",", ":")), qos=1, retain=True)

    async def _publish_dropped(self, client: aiomqtt.Client) -> None:
        count, self.dropped = self.dropped, 0
        log.warning("MQTT: %d events dropped while the broker was away (queue bound %d)", count,
                    self.settings.queue)
        message = event_message({"event": "dropped", "count": count, "queue": self.settings.queue},
                                self.settings.table_id, time.time())
        await client.publish(self.topics.events, json.dumps(message), qos=1)

    async def _listen(self, client: aiomqtt.Client) -> None:
        """Commands, one at a time, like one socket connection; also notices a lost connection."""
        async for message in client.messages:
            if self.results.is_ack(message.topic.value):
                await self.results.acked(client, message.topic.value)
                continue
            payload = message.payload if isinstance(message.payload, bytes) else str(message.payload).encode()
            if message.retain and payload:
                self._commands.retained(str(message.topic))
                try:  # an ACL without write on the table's own command topic refuses it: left, still not run
                    await client.publish(str(message.topic), b"", qos=1, retain=True)
                except aiomqtt.MqttCodeError as exc:
                    log.warning("MQTT: cannot clear the retained command (%s): see the ACL in docs/MQTT.md", exc)
                continue
            reply = await self._commands.reply(payload)
            if reply is not None:
                await client.publish(self.topics.reply, encode(reply).rstrip(b"\n"), qos=1)

