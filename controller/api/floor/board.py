"""The floor's board: the latest of every table, from the messages of its topics.

A table publishes under ``{prefix}/{table_id}/``: ``status`` (retained JSON), ``events``
(JSON) and ``availability`` (retained ``online`` / ``offline``, the last will). The board
keeps what a tile shows, so a page opened later gets every table at once. It is pure:
the caller passes the wall-clock time, which dates a fault the table did not date itself.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from controller.api.floor.schema import hand_summary, status_problem

KINDS = ("status", "events", "availability")
# What a tile shows of a table's status (docs/MQTT.md names them all).
TILE_FIELDS = ("state", "ruleset", "hand", "hands_played", "scores", "seats", "seat_players", "dealer", "honba",
               "riichi_sticks", "waiting_for", "finished", "maintenance_due", "web_url")


@dataclass
class Tile:
    table_id: str
    status: dict[str, Any] = field(default_factory=dict)
    online: bool | None = None  # None: no availability message yet
    fault_since: float | None = None  # Unix time the fault in play began
    last_hand: dict[str, Any] | None = None  # the latest hand_ended event's summary
    problem: str | None = None  # why the status is not drawn (it breaks the schema)

    @property
    def fault_code(self) -> int | None:
        return (self.status.get("fault") or {}).get("code")

    def as_dict(self) -> dict[str, Any]:
        """The tile as the page takes it: the fault as its code, message and since."""
        fault = self.status.get("fault") or {}
        return {"table_id": self.table_id, "online": self.online, "last_hand": self.last_hand, "problem": self.problem,
                **{k: self.status.get(k) for k in TILE_FIELDS},
                "fault": fault.get("message"), "fault_code": fault.get("code"), "fault_since": self.fault_since}


class Board:
    def __init__(self, prefix: str = "mjtable") -> None:
        self.prefix = prefix
        self.tiles: dict[str, Tile] = {}

    def subscriptions(self) -> list[str]:
        return [f"{self.prefix}/+/{kind}" for kind in KINDS]

    def receive(self, topic: str, payload: bytes, now: float) -> str | None:
        """Take one message in; the id of the table it changed (None: not a table's message,
        or nothing to show). An empty retained status (a table taken off the broker) removes
        its tile: the id is returned and the board has it no more."""
        where = self._parse(topic)
        if where is None:
            return None
        table_id, kind = where
        if kind == "status" and not payload:
            return table_id if self.tiles.pop(table_id, None) else None
        try:
            value = payload.decode() if kind == "availability" else json.loads(payload)
        except (UnicodeDecodeError, ValueError):
            return None  # a message no table of ours sent
        if kind != "availability" and not isinstance(value, dict):
            return None
        tile = self.tiles.get(table_id) or Tile(table_id)
        if kind == "availability":
            tile.online = value == "online"
        elif kind == "status":
            self._status(tile, value, now)
        elif not self._event(tile, value):
            return None
        self.tiles[table_id] = tile
        return table_id

    def _parse(self, topic: str) -> tuple[str, str] | None:
        head = self.prefix + "/"
        if not topic.startswith(head):
            return None
        parts = topic[len(head):].split("/")
        return (parts[0], parts[1]) if len(parts) == 2 and parts[1] in KINDS and parts[0] else None

    @staticmethod
    def _status(tile: Tile, status: dict[str, Any], now: float) -> None:
        """The fault is dated by the table (its `since`), else from when the board first saw it."""
        tile.problem = status_problem(status)
        if tile.problem is not None:
            status = {"state": "bad status"}
        fault = status.get("fault") or {}
        code = fault.get("code")
        if code is None:
            tile.fault_since = None
        elif fault.get("since") is not None:
            tile.fault_since = fault["since"]
        elif tile.fault_code != code or tile.fault_since is None:
            tile.fault_since = now
        tile.status = status

    @staticmethod
    def _event(tile: Tile, event: dict[str, Any]) -> bool:
        """A hand's end is kept for its tile; the other events are in the next status."""
        summary = hand_summary(event.get("record")) if event.get("event") == "hand_ended" else None
        if summary is None:
            return False
        tile.last_hand = summary
        return True

    def tile(self, table_id: str) -> dict[str, Any] | None:
        tile = self.tiles.get(table_id)
        return tile.as_dict() if tile else None

    def tiles_as_dicts(self) -> list[dict[str, Any]]:
        return [self.tiles[t].as_dict() for t in sorted(self.tiles)]
