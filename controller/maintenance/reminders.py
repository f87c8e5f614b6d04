"""Maintenance reminders: the table config's service intervals against the counters.

An interval names a task, a counter and how many of it make the task due (``maintenance:``
in the table config, e.g. ``clean_tiles: {every: 2000, counter: shuffles}``). The counters
are the table's own (protocol 1.1 ``get_counters``) and the controller's (hands and games
in its store). What counts is the count since the last service: the table resets its
shuffle cycles itself at `record_service`; for every other counter the readings at the
service are kept in a small JSON file beside the database, so a restart keeps them.

A reminder is listed from 90 % of its interval (``due: false``, coming up) and is due from
100 %; it clears when a service is recorded (`mjtable maintenance serviced`). The readings
are taken again after each hand and game, at start-up and after a service, never on the
way of the game: a table that cannot answer keeps the last readings.
"""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from controller.maintenance.intervals import COUNTERS, TABLE_COUNTERS, Interval
from controller.store.database import StoreError
from controller.table.facade import TableError

log = logging.getLogger("mjtable.maintenance")

SOON = 0.9  # the share of an interval from which its reminder is listed
REFRESH_ON = frozenset({"hand_ended", "game_over", "reconnected", "resumed"})


def readings(table: dict[str, Any] | None, totals: dict[str, int] | None) -> dict[str, float]:
    """The counters from a `get_counters` reply and the store's totals (either may be None)."""
    out: dict[str, float] = {}
    if table is not None:
        out.update(shuffles=table["cycles_since_service"], lift_cycles=table["lift_cycles"],
                   motor_hours=table["motor_seconds"] / 3600, jams=sum(table["jams"].values()),
                   table_faults=sum(table["faults"].values()))
    if totals is not None:
        out.update(hands=totals["hands"], games=totals["games"], faults=totals["faults"])
    return out


def due(intervals: dict[str, Interval], now: dict[str, float], at_service: dict[str, float]) -> list[dict[str, Any]]:
    """The reminders of the intervals at 90 % or more since the service, in config order.
    A counter that went below its reading at the service (another table, a new board)
    counts from 0."""
    out = []
    for task, interval in intervals.items():
        if interval.counter not in now:
            continue
        reading, base = now[interval.counter], at_service.get(interval.counter, 0)
        since = reading - base if reading >= base else reading
        if since >= SOON * interval.every:
            out.append({"task": task, "counter": interval.counter, "every": interval.every,
                        "since": round(since, 1) if interval.counter == "motor_hours" else int(since),
                        "due": since >= interval.every})
    return out


class Reminders:
    """Handed what it uses: the table facade, the store's writer (or None), a publish
    function and a spawner of background tasks; its caller subscribes `on_event`."""

    def __init__(self, table, db, publish, spawn, intervals: dict[str, Interval], service_file: Path | None) -> None:
        self.table, self.db, self.publish, self.spawn = table, db, publish, spawn
        self.intervals = intervals
        self.file = service_file
        self.at_service: dict[str, float] = _load(service_file)
        self.now: dict[str, float] = {}
        self._due: list[dict[str, Any]] = []

    def due(self) -> list[dict[str, Any]]:
        return self._due

    def on_event(self, event: dict) -> None:
        if not self.intervals:
            return
        if event["event"] in REFRESH_ON or (event["event"] == "state" and event["state"] == "idle"):
            self.spawn(self.refresh(), "maintenance reminders")

    async def refresh(self) -> None:
        self.now = {**self.now, **await self._read()}
        self._show()

    async def serviced(self) -> None:
        """A service was recorded (the table's shuffle count already reset): every reminder
        counts from now."""
        if not self.intervals:
            return
        self.now = {**self.now, **await self._read()}
        self.at_service = {k: v for k, v in self.now.items() if k != "shuffles"}
        if self.file is not None:
            _save(self.file, self.at_service)  # a few bytes, not synced: no wait worth a thread
        self._show()

    def _show(self) -> None:
        was, self._due = self._due, due(self.intervals, self.now, self.at_service)
        if self._due != was:
            due_before = {r["task"] for r in was if r["due"]}
            for reminder in self._due:
                if reminder["due"] and reminder["task"] not in due_before:
                    log.warning("maintenance due: %s (%s %s since the last service, every %d)", reminder["task"],
                                reminder["since"], reminder["counter"], reminder["every"])
            self.publish("maintenance_due", due=self._due)

    async def _read(self) -> dict[str, float]:
        """What can be read now; a table or store that cannot answer is read next time."""
        table, counters, totals = self.table, None, None
        if table.connected and table.capabilities is not None and table.capabilities.counters \
                and any(i.counter in TABLE_COUNTERS for i in self.intervals.values()):
            try:
                counters = await table.get_counters()
            except TableError as exc:
                log.debug("maintenance reminders: the table's counters: %s", exc)
        if self.db is not None:
            try:
                totals = await self.db.call("counts")
            except StoreError:
                pass  # logged by the store's thread
        return readings(counters, totals)


def _load(path: Path | None) -> dict[str, float]:
    try:
        data = json.loads(path.read_text()) if path is not None else {}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("the service record %s cannot be read (%s): every counter counts from 0", path, exc)
        return {}
    return {k: v for k, v in data.get("at_service", {}).items() if k in COUNTERS and isinstance(v, (int, float))}


def _save(path: Path, at_service: dict[str, float]) -> None:
    """Written whole and then renamed over the old one: a crash leaves one or the other."""
    scratch = path.with_name(path.name + ".tmp")
    scratch.write_text(json.dumps({"at_service": at_service}))
    os.replace(scratch, path)
