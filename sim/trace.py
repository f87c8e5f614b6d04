"""The hardware trace: the ground truth of what the table did (DESIGN.md §8).

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
from typing import Any, TextIO

from firmware_protocol.catalog import Message


class Trace:
    def __init__(self, clock: Callable[[], float], path: str | Path | None = None) -> None:
        self._clock = clock
        self.records: list[dict[str, Any]] = []  # as in the file
        self._file: TextIO | None = open(path, "w", encoding="utf-8") if path else None

    def record(self, direction: str, msg: Message) -> None:
        rec = {"t": round(self._clock(), 6), "dir": direction, "name": msg.name, "args": dict(msg.args)}
        self.records.append(rec)
        if self._file:
            self._file.write(json.dumps(rec, separators=(",", ":")) + "\n")
            self._file.flush()

    def named(self, name: str, direction: str | None = None) -> list[dict[str, Any]]:
        return [r for r in self.records if r["name"] == name and direction in (None, r["dir"])]

    def close(self) -> None:
        if self._file:
            self._file.close()
            self._file = None
