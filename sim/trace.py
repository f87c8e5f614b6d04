"""The hardware trace: the ground truth of what the table did.

One record per command received (``dir`` "cmd"), per reply (``"reply"``: ok, rejected,
identity, status — so a reader can tell refused commands from executed ones) and per
event sent (``"event"``)::

    {"t": 12.5, "dir": "event", "name": "dice_rolled", "args": {"values": [3, 5]}}

``t`` is simulated seconds since power-on (wall time × speed in real-time mode); ``args``
are the message's decoded fields exactly as on the wire. Records are kept in memory
(`records`) and, if a file is given, appended to it one JSON object per line, flushed
at once so a killed simulator leaves a complete trace.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from firmware_protocol.catalog import Message


class Record(NamedTuple):  # a tuple: made for every message, where a frozen dataclass costs three times as much
    t: float
    dir: str
    name: str
    args: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """The record as in the file."""
        return {"t": self.t, "dir": self.dir, "name": self.name, "args": self.args}


class Trace:
    def __init__(self, clock: Callable[[], float], path: str | Path | None = None) -> None:
        self._clock = clock
        self.records: list[Record] = []
        self._file: TextIO | None = open(path, "w", encoding="utf-8") if path else None

    def record(self, direction: str, msg: Message) -> None:
        rec = Record(round(self._clock(), 6), direction, msg.name, dict(msg.args))
        self.records.append(rec)
        if self._file:
            self._file.write(json.dumps(rec.as_dict(), separators=(",", ":")) + "\n")
            self._file.flush()

    def named(self, name: str, direction: str | None = None) -> list[Record]:
        return [r for r in self.records if r.name == name and direction in (None, r.dir)]

    def close(self) -> None:
        if self._file:
            self._file.close()
            self._file = None
