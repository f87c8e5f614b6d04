"""Each finished game's result, sent to the tournament hall until the hall confirms it.

At ``game_over`` the table makes one result message (its players East first, with their
final score, table points and rank, how the game ended) under a key of its own for that
game, and publishes it retained, QoS 1, on ``{prefix}/{table_id}/results/{key}``. It is
published again on every reconnect and every ``RESEND`` seconds until the hall answers on
``.../results/{key}/ack``; then the retained message is cleared. A hall that was down
finds the retained message when it subscribes; a table that was away from the broker at
the game's end sends it when it is back. What is not confirmed yet is kept in a file next
to the state database (``<database>.results.json``, written whole, synced, then renamed
over the old one), so a controller restarted (or killed) before the hall confirmed a
result sends it after its start. The hall stores by key, so a result received twice
counts once (docs/HALL.md).
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import time
import uuid
from pathlib import Path
from typing import Any

import aiomqtt

from controller.api.mqtt.topics import Topics
from controller.api.server import ControlHandler

log = logging.getLogger("mjtable.mqtt")
RESEND = 10.0  # seconds between publications of a result the hall has not confirmed


def result_message(key: str, table_id: str, final: dict[str, Any], status: dict[str, Any], now: float,
                   penalties: list[dict] = ()) -> dict:
    """The result: the seats from the starting East on, each with its figures, and the
    game's penalties (its chombo hands, as the table settled them)."""
    seats = status.get("seats") or list(range(len(final["scores"])))
    east = seats.index(status.get("starting_dealer", seats[0]))
    names = {p["seat"]: p for p in status.get("seat_players", ())}
    winds = []
    for seat in seats[east:] + seats[:east]:
        player = {k: v for k, v in names.get(seat, {}).items() if k in ("name", "ema_id")}
        winds.append({"seat": seat, **player, "score": final["scores"][seat],
                      "table_points": final["final_scores"][seat], "rank": final["ranks"][seat]})
    place = {k: status[k] for k in ("round", "table") if k in status}
    return {"key": key, "table_id": table_id, "time": round(now, 3), "ruleset": status.get("ruleset"), **place,
            "ended": final.get("ended", "rules"), "winds": winds, "penalties": list(penalties)}


class Results:
    """The results not yet confirmed, for the publisher to send while connected."""

    def __init__(self, topics: Topics, handler: ControlHandler, path: Path | None = None,
                 resend: float = RESEND) -> None:
        self.topics = topics
        self.handler = handler
        self.resend = resend
        self.path = path
        self.pending: dict[str, bytes] = _load(path)  # key -> message, oldest first
        self._saving = asyncio.Lock()  # one write of the file at a time, in order
        self._unsent: set[str] = set()      # not yet taken by the broker since the last connect
        self._base = topics.status.rsplit("/", 1)[0] + "/results/"
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task] = set()
        self._penalties: list[dict] = []  # the game's chombo hands so far

    def on_event(self, event: dict) -> None:
        name = event["event"]
        if name == "game_started":
            self._penalties = []
        elif name == "hand_ended" and (event.get("record") or {}).get("result", {}).get("kind") == "chombo":
            record = event["record"]
            self._penalties.append({"hand": record.get("hand"), "seat": record["result"].get("offender"),
                                    "kind": "chombo", "payments": record.get("payments")})
        elif name == "game_over":
            task = asyncio.ensure_future(self._make(event, self._penalties))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _make(self, final: dict, penalties: list[dict]) -> None:
        status = await self.handler.handle("status", {})
        key = f"{self.topics.table_id}-{uuid.uuid4().hex[:12]}"
        message = result_message(key, self.topics.table_id, final, status, time.time(), penalties)
        self.pending[key] = json.dumps(message, separators=(",", ":")).encode()
        self._unsent.add(key)
        log.info("result of the game kept until the hall confirms it (key %s)", key)
        self._wake.set()
        await self._save()

    async def _save(self) -> None:
        if self.path is None:
            return
        async with self._saving:
            try:
                await asyncio.to_thread(_save, self.path, dict(self.pending))
            except OSError as exc:  # the result is still held here, and sent while this controller runs
                log.error("the results for the hall cannot be kept in %s: %s", self.path, exc)

    # ---- the broker's side, while connected ----
    async def serve(self, client: aiomqtt.Client) -> None:
        """Listen for the hall's confirmations, then send what is pending now, when a
        game ends and every ``resend`` seconds; ends with the connection (MqttError)."""
        await client.subscribe(self._base + "+/ack", qos=1)
        self._unsent.update(self.pending)
        while True:
            for key, message in list(self.pending.items()):
                await client.publish(self._base + key, message, qos=1, retain=True)
                self._unsent.discard(key)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), self.resend)
            except asyncio.TimeoutError:
                pass

    def is_ack(self, topic: str) -> bool:
        return topic.startswith(self._base) and topic.endswith("/ack")

    async def acked(self, client: aiomqtt.Client, topic: str) -> None:
        key = topic[len(self._base):-len("/ack")]
        if self.pending.pop(key, None) is not None:
            self._unsent.discard(key)
            log.info("the hall confirmed the result %s", key)
            await client.publish(self._base + key, b"", qos=1, retain=True)  # the broker forgets it
            await self._save()

    async def settled(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) until the broker holds every pending result: a
        stopping table leaves it retained there for the hall."""
        await asyncio.gather(*self._tasks, return_exceptions=True)
        deadline = time.monotonic() + timeout
        while self._unsent and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if self._unsent:
            log.warning("MQTT: %d results not sent at stop: they are lost to the hall", len(self._unsent))


def _load(path: Path | None) -> dict[str, bytes]:
    if path is None:
        return {}
    try:
        kept = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.error("the results kept for the hall in %s cannot be read (%s): they are not sent", path, exc)
        return {}
    if kept:
        log.info("%d results not confirmed by the hall yet: sent again", len(kept))
    return {key: message.encode() for key, message in kept.items()}


def _save(path: Path, pending: dict[str, bytes]) -> None:
    """Written whole, synced, then renamed over the old file: a crash leaves one or the other."""
    scratch = path.with_name(path.name + ".tmp")
    with open(scratch, "w") as out:
        json.dump({key: message.decode() for key, message in pending.items()}, out)
        out.flush()
        os.fsync(out.fileno())
    os.replace(scratch, path)
