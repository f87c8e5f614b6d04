"""One controller per state database: an OS lock held for the life of the process.

SQLite locks per transaction, so two controllers on one file would both run and each
believe its own game. The controller holds ``flock`` on ``<database>.lock`` instead; the
lock goes with the process (a kill frees it), and readers (`mjtable journal`,
`mjtable check-store`) never take it.

The lock file also says who holds it (pid) and how many hands of which game were stored
and acknowledged: a database found with fewer at the next start lost committed hands
(e.g. a damaged write-ahead log, whose torn tail SQLite drops without a word).
"""
from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

FILE_MODE = 0o640
RECORD_SIZE = 128  # every record is written whole at offset 0: a reader never sees half of one


class StoreLocked(Exception):
    """Another process holds the lock; the message names it."""


class StoreLock:
    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + ".lock")
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self._read().get("pid", "unknown")
            os.close(self._fd)
            raise StoreLocked(f"the state database {database} is in use by another controller (pid {holder}, "
                              f"lock {self.path}); stop that one first (one controller per database)") from None
        # What the previous holder (gone: the lock was free) acknowledged.
        self.previous = self._read()
        self._write({"pid": os.getpid(), **{k: self.previous[k] for k in ("game", "hands") if k in self.previous}})

    def _read(self) -> dict:
        try:
            data = json.loads(os.pread(self._fd, RECORD_SIZE, 0).decode() or "{}")
        except ValueError:  # a file from elsewhere, or damaged: it promises nothing
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, record: dict) -> None:
        os.pwrite(self._fd, json.dumps(record).encode().ljust(RECORD_SIZE), 0)

    def acknowledged(self, game_id: int, hands: int) -> None:
        """Hands stored for good (after their commit): no fsync, a power cut may leave an
        older count, which never reads as a loss."""
        self._write({"pid": os.getpid(), "game": game_id, "hands": hands})

    def close(self) -> None:
        os.close(self._fd)  # releases the lock
