"""The hall's own state database: the tournament, every result and every correction.

As the table's store (controller/store/database.py): SQLite in WAL mode with
``synchronous=FULL``, one transaction per change (a change survives a power cut once the
call returns, and is absent as a whole if the process dies inside it), and one process
per database through the table store's lock (controller/store/lock.py); inside it, one
use of its connection at a time, whichever of the hall's threads. A result is kept
under its per-game key: the same result received twice is stored once (``add_result``
says whether it was new), which is what lets a table republish until the hall confirms.
A result is never edited: the director's penalties and corrections are rows of their own
with who, when and why.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from controller.club.schedule import TableSeating
from controller.errors import MjtableError
from controller.hall.entry import HallPlayer, Tournament
from controller.store.lock import FILE_MODE, StoreLock, StoreLocked

SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE header (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE players (
    number INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, ema_id TEXT,
    country TEXT NOT NULL, ema_member INTEGER NOT NULL, substitute INTEGER NOT NULL
);
CREATE TABLE tables (number INTEGER PRIMARY KEY, table_id TEXT NOT NULL UNIQUE);
CREATE TABLE seating (
    round INTEGER NOT NULL, "table" INTEGER NOT NULL, wind INTEGER NOT NULL, player INTEGER NOT NULL,
    PRIMARY KEY (round, "table", wind), UNIQUE (round, player)
);
CREATE TABLE results (
    key TEXT PRIMARY KEY, table_id TEXT NOT NULL, round INTEGER NOT NULL, "table" INTEGER NOT NULL,
    result TEXT NOT NULL, received_at REAL NOT NULL
);
CREATE TABLE corrections (
    id INTEGER PRIMARY KEY, player INTEGER NOT NULL REFERENCES players(number), round INTEGER,
    points INTEGER NOT NULL, who TEXT NOT NULL, why TEXT NOT NULL, at REAL NOT NULL,
    kind TEXT NOT NULL DEFAULT 'correction'
);
"""
# Each schema version's step from the one before it, for a database made by an older hall.
_MIGRATIONS = {2: "ALTER TABLE corrections ADD COLUMN kind TEXT NOT NULL DEFAULT 'correction';"}


class HallStoreError(MjtableError):
    """The hall's database cannot be used; the message says why."""


@dataclass(frozen=True)
class Result:
    key: str
    table_id: str
    round: int
    table: int
    result: dict  # the table's message: seats (East first) with scores, table points, ranks
    received_at: float


@dataclass(frozen=True)
class Correction:
    id: int
    player: int
    round: int | None
    points: int  # table points, in the tables' unit (EMA: 1,000 a point)
    who: str
    why: str
    at: float
    kind: str = "correction"  # or a penalty's (controller/hall/penalties.py)


class HallStore:
    def __init__(self, path: str | Path, lock: bool = True) -> None:
        self.path = Path(path)
        self._lock, self._db = None, None
        self._guard = threading.Lock()  # one use of the connection at a time, whichever thread
        try:
            if lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._lock = StoreLock(self.path)
            new = not self.path.exists()
            if new and not lock:
                raise HallStoreError(f"{self.path}: no hall database here (`mjtable hall import` makes one)")
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            if new:
                self.path.chmod(FILE_MODE)
            self._db.execute("PRAGMA busy_timeout = 5000")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            if lock:
                self._db.execute("PRAGMA journal_mode = WAL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise HallStoreError(f"{self.path}: made by a newer mjtable (schema {version}; this one knows "
                                     f"{SCHEMA_VERSION})")
            if lock:
                self._migrate(version)
            elif version < SCHEMA_VERSION:
                raise HallStoreError(f"{self.path}: made by an older mjtable: `mjtable hall serve` on it once "
                                     f"brings it up to date")
        except (StoreLocked, sqlite3.Error, HallStoreError) as exc:
            self.close()  # neither the lock nor the file kept by a hall that cannot start
            if isinstance(exc, HallStoreError):
                raise
            text = str(exc).replace("controller", "hall") if isinstance(exc, StoreLocked) else f"{self.path}: {exc}"
            raise HallStoreError(text) from None

    def _migrate(self, version: int) -> None:
        """A new database made, an older one brought to this schema, each in one transaction."""
        if version == 0:
            self._db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
            return
        for step in range(version + 1, SCHEMA_VERSION + 1):
            self._db.executescript(f"BEGIN IMMEDIATE; {_MIGRATIONS[step]} PRAGMA user_version = {step}; COMMIT;")

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
        if self._lock is not None:
            self._lock.close()

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        """A query's rows, never read inside another thread's transaction on this connection."""
        with self._guard:
            return self._db.execute(sql, params).fetchall()

    def _write(self, *statements: tuple[str, tuple | list]) -> int:
        """One transaction: all of the statements, or none; the rows they changed. One at a
        time: the hall writes from its threads (the broker's results, the director's
        changes, the page's correction) on its one connection."""
        with self._guard:
            return self._transaction(statements)

    def _transaction(self, statements) -> int:
        before = self._db.total_changes
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for sql, params in statements:
                if params and isinstance(params, list):
                    self._db.executemany(sql, params)
                else:
                    self._db.execute(sql, params or ())
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise HallStoreError(f"{self.path}: {exc}") from None
        return self._db.total_changes - before

    # -- the tournament ------------------------------------------------------------------
    def enter(self, t: Tournament) -> None:
        """The tournament replaced as a whole; refused once a result is in (it would lose
        whom the results belong to)."""
        if self.results():
            raise HallStoreError("the hall has results already: the tournament cannot be entered again")
        self._write(
            *((f'DELETE FROM "{name}"', ()) for name in ("seating", "corrections", "players", "tables", "header")),
            ("INSERT INTO header VALUES (?, ?)", list(t.header.items())),
            ("INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, ?)",
             [(p.number, p.first_name, p.last_name, p.ema_id, p.country, p.ema_member, p.substitute)
              for p in t.players.values()]),
            ("INSERT INTO tables VALUES (?, ?)", list(t.tables.items())),
            ('INSERT INTO seating VALUES (?, ?, ?, ?)',
             [(s.round, s.table, wind, n) for s in t.seating for wind, n in enumerate(s.numbers)]))

    def add_round(self, round_: int, tables: list[TableSeating]) -> None:
        """A round seated after the tournament was entered (Swiss: by the standings)."""
        if any(s.round == round_ for s in self.seating()):
            raise HallStoreError(f"round {round_} is seated already")
        self._write(('INSERT INTO seating VALUES (?, ?, ?, ?)',
                     [(round_, s.table, wind, n) for s in tables for wind, n in enumerate(s.numbers)]))

    def header(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM header"))

    def players(self) -> dict[int, HallPlayer]:
        rows = self._rows("SELECT * FROM players ORDER BY number")
        return {r[0]: HallPlayer(r[0], r[1], r[2], r[3], r[4], bool(r[5]), bool(r[6])) for r in rows}

    def tables(self) -> dict[int, str]:
        return dict(self._rows("SELECT number, table_id FROM tables ORDER BY number"))

    def seating(self, round_: int | None = None) -> list[TableSeating]:
        rows = self._rows('SELECT round, "table", player FROM seating WHERE ? IS NULL OR round = ? '
                          'ORDER BY round, "table", wind', (round_, round_))
        grouped: dict[tuple[int, int], list[int]] = {}
        for r, t, n in rows:
            grouped.setdefault((r, t), []).append(n)
        return [TableSeating(r, t, tuple(ns)) for (r, t), ns in grouped.items()]

    # -- results and corrections ---------------------------------------------------------
    def add_result(self, key: str, table_id: str, round_: int, table: int, result: dict) -> bool:
        """Store a result once: False when its key is in already (nothing changes)."""
        return self._write(('INSERT INTO results VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
                            (key, table_id, round_, table, json.dumps(result), time.time()))) > 0

    def result_key(self, round_: int, table: int) -> str | None:
        """The key of the result stored for ``table`` in ``round_``, if any."""
        rows = self._rows('SELECT key FROM results WHERE round = ? AND "table" = ?', (round_, table))
        return rows[0][0] if rows else None

    def results(self) -> list[Result]:
        rows = self._rows('SELECT key, table_id, round, "table", result, received_at FROM results '
                          'ORDER BY round, "table", received_at')
        return [Result(k, tid, r, t, json.loads(res), at) for k, tid, r, t, res, at in rows]

    def result_round(self, key: str) -> int | None:
        """The round of the result stored under ``key``; None: no such result."""
        rows = self._rows("SELECT round FROM results WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def correct(self, player: int, points: int, who: str, why: str, round_: int | None = None,
                kind: str = "correction") -> Correction:
        """A correction or a penalty (``kind``), a row of its own: a result is never edited."""
        if player not in self.players():
            raise HallStoreError(f"unknown player number {player}: the tournament has no such player")
        at = time.time()
        self._write(("INSERT INTO corrections (player, round, points, who, why, at, kind) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (player, round_, points, who, why, at, kind)))
        return self.corrections()[-1]

    def corrections(self) -> list[Correction]:
        return [Correction(*row) for row in self._rows(
            "SELECT id, player, round, points, who, why, at, kind FROM corrections ORDER BY id")]
