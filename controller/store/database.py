"""Crash-safe game state in SQLite.

Every change is one transaction on a WAL database with ``synchronous=FULL``: when a
method returns, the change survives a power cut; when the process dies inside one, the
change is absent as a whole. Restarting the controller reads :meth:`Store.active_game`
and resumes exactly where it was.

The store knows no game logic. It keeps, per game, the rules snapshot, the current
``GameState`` (as a dict), the machine state the hand in progress carries on from after a
restart (``step``, controller/game/machine.py `RESUME_POINTS`) with that hand, its players
(seat -> player, and whether the seats were drawn), and one record per committed hand,
with its time of commit, keyed by the hand's sequence number, which is what makes a
result submitted twice count once.

Schema versions: 1 had games and hands; 2 adds the players and a game's seating; 3 adds
club sessions (games grouped over an evening), a tournament's roster and schedule (who
sits where at which table in which round; a game keeps its round and table) and the faults log;
4 adds the operator's pause (a restart keeps the table paused, in a game or between games).
An older database is upgraded in place when it is opened, in one transaction.
"""
from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from controller.errors import MjtableError
from controller.store.lock import FILE_MODE, StoreLock, StoreLocked

SCHEMA_VERSION = 4
PROGRESS_STEPS = 10_000  # SQLite virtual-machine steps between progress calls of the full check
MAX_PROBLEMS = 100

_SCHEMA = """
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    ruleset     TEXT NOT NULL,
    rules       TEXT NOT NULL,
    state       TEXT NOT NULL,
    step        TEXT NOT NULL DEFAULT '',
    hand        TEXT NOT NULL DEFAULT '{}',
    status      TEXT NOT NULL CHECK (status IN ('active', 'finished', 'abandoned')),
    final       TEXT,
    started_at  TEXT NOT NULL,
    ended_at    TEXT
);
-- At most one game is being played on a table.
CREATE UNIQUE INDEX one_active_game ON games(status) WHERE status = 'active';
CREATE TABLE hands (
    game_id      INTEGER NOT NULL REFERENCES games(id),
    seq          INTEGER NOT NULL,
    record       TEXT NOT NULL,
    committed_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""

# Version 1 -> 2: who sat where. A game of version 1 was anonymous (no players, as given).
_TO_2 = """
ALTER TABLE games ADD COLUMN seating TEXT NOT NULL DEFAULT 'as-given';
CREATE TABLE players (
    game_id  INTEGER NOT NULL REFERENCES games(id),
    seat     INTEGER NOT NULL,
    name     TEXT NOT NULL,
    ema_id   TEXT,
    club_id  TEXT,
    PRIMARY KEY (game_id, seat)
);
"""
# Version 2 -> 3: sessions, the tournament's roster and schedule, the faults log.
_TO_3 = """
CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL DEFAULT '',
    show_totals  INTEGER NOT NULL DEFAULT 0,
    started_at   TEXT NOT NULL,
    ended_at     TEXT
);
-- At most one session is open on a table.
CREATE UNIQUE INDEX one_open_session ON sessions((ended_at IS NULL)) WHERE ended_at IS NULL;
ALTER TABLE games ADD COLUMN session_id INTEGER REFERENCES sessions(id);
ALTER TABLE games ADD COLUMN round INTEGER;
ALTER TABLE games ADD COLUMN table_no INTEGER;
CREATE TABLE roster (
    number   INTEGER PRIMARY KEY,
    name     TEXT NOT NULL,
    ema_id   TEXT,
    club_id  TEXT
);
CREATE TABLE schedule (
    round     INTEGER NOT NULL,
    table_no  INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    number    INTEGER NOT NULL REFERENCES roster(number),
    PRIMARY KEY (round, table_no, seat)
);
CREATE TABLE faults (
    id         INTEGER PRIMARY KEY,
    at         TEXT NOT NULL,
    code       INTEGER NOT NULL,
    subsystem  TEXT NOT NULL DEFAULT '',
    detail     TEXT NOT NULL DEFAULT '',
    game_id    INTEGER REFERENCES games(id)
);
"""
# Version 3 -> 4: the operator's pause, one row while the table is paused (the state it held).
_TO_4 = """
CREATE TABLE pause (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    paused_in  TEXT NOT NULL,
    at         TEXT NOT NULL
);
"""
_UPGRADES = {1: _TO_2, 2: _TO_3, 3: _TO_4}  # version -> the script that makes it the next


class StoreError(MjtableError):
    """The database cannot be used; the message names the file and what to do."""


@dataclass(frozen=True)
class Game:
    id: int
    ruleset: str
    rules: dict
    state: dict
    step: str
    hand: dict
    status: str
    started_at: str
    ended_at: str | None
    final: dict | None
    seating: str = "as-given"
    session_id: int | None = None
    round: int | None = None
    table: int | None = None  # the table number, for a game of a tournament round


@dataclass(frozen=True)
class Session:
    """Consecutive games at the table (a club night); open until ``ended_at``."""
    id: int
    name: str
    show_totals: bool
    started_at: str
    ended_at: str | None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class Store:
    """The table's state database at ``path``; created when missing (``create=True``).

    ``exclusive=True`` (the controller) holds the database's lock until :meth:`close`:
    a second controller on the same file is refused. Readers open it without.
    The connection may be handed to another thread (the controller's store thread);
    it must be used by one thread at a time.
    """

    def __init__(self, path: str | Path, *, create: bool = True, exclusive: bool = False) -> None:
        self.path = Path(path)
        self._check_path(create)
        self._lock = self._take_lock() if exclusive else None
        try:
            self._create_private()
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (sqlite3.Error, OSError) as exc:
            self._release()
            raise StoreError(f"cannot open the state database {self.path}: {exc}") from None
        try:
            self._db.execute("PRAGMA busy_timeout = 5000")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._require_wal()
            self._migrate()
            self._check_active_game()
            if self._lock is not None:
                self._check_acknowledged(self._lock.previous)
        except sqlite3.DatabaseError as exc:
            self.close()
            raise self._unusable(exc) from None
        except StoreError:
            self.close()
            raise

    # -- opening -------------------------------------------------------------------

    def _check_path(self, create: bool) -> None:
        if self.path.is_dir():
            raise StoreError(f"the state database path {self.path} is a folder; give a file name")
        if not self.path.parent.is_dir():
            raise StoreError(
                f"the folder of the state database {self.path} does not exist; "
                f"create {self.path.parent} or change the database path in the table config"
            )
        if not create and not self.path.exists():
            raise StoreError(f"no state database at {self.path}: check the path (the controller creates it on its first run)")

    def _take_lock(self) -> StoreLock:
        try:
            return StoreLock(self.path)
        except StoreLocked as exc:
            raise StoreError(str(exc)) from None
        except OSError as exc:
            raise StoreError(f"cannot lock the state database {self.path}: {exc.strerror or exc}") from None

    def _create_private(self) -> None:
        """A new database is readable by its owner and group only (scores are nobody
        else's business); SQLite gives its -wal and -shm files the database's mode."""
        try:
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE))
        except FileExistsError:
            pass

    def _check_acknowledged(self, previous: dict) -> None:
        """Hands the previous controller stored and acknowledged must all be here."""
        if not {"game", "hands"} <= set(previous):
            return
        game, promised = previous["game"], previous["hands"]
        found = self._db.execute("SELECT count(*) FROM hands WHERE game_id = ?", (game,)).fetchone()[0]
        known = self._db.execute("SELECT count(*) FROM games WHERE id = ?", (game,)).fetchone()[0]
        if known and found >= promised:
            return
        what = f"has {found} hand(s)" if known else "is missing"
        raise StoreError(
            f"the state database {self.path} has lost stored hands: game {game} {what}, but {promised} were "
            f"stored and acknowledged (its write-ahead log is damaged, or the file was replaced by an older "
            f"copy). Keep it for inspection and restore a backup; if an older copy was put back on purpose, "
            f"delete {self._lock.path}"
        )

    def _unusable(self, exc: sqlite3.DatabaseError) -> StoreError:
        if isinstance(exc, sqlite3.OperationalError):  # busy, disk full, read-only: not damage
            return StoreError(f"cannot use the state database {self.path}: {exc}")
        return StoreError(
            f"the state database {self.path} is unreadable ({exc}); it is damaged or not an mjtable "
            f"database. Keep it for inspection, restore a backup or move it aside to start a new one"
        )

    def _cannot_write(self, exc: sqlite3.DatabaseError) -> StoreError:
        """A change that failed and was rolled back (nothing of it is stored)."""
        if not isinstance(exc, sqlite3.OperationalError):
            return self._unusable(exc)
        reason = "disk full" if (getattr(exc, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_FULL else str(exc)
        return StoreError(f"cannot write the state database {self.path}: {reason}")

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the state database {self.path} has schema version {version}, newer than this mjtable "
                f"understands ({SCHEMA_VERSION}); upgrade mjtable or use another database file"
            )
        if version == SCHEMA_VERSION:
            return
        if version == 0:
            tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise StoreError(
                    f"{self.path} is an SQLite database but not an mjtable state database; "
                    f"refusing to change it. Point the table config at another file"
                )
            script, version = _SCHEMA, 1
        else:
            script = ""
        script += "".join(_UPGRADES[v] for v in range(version, SCHEMA_VERSION))
        # One transaction: a failed upgrade leaves the database as it was.
        try:
            self._db.executescript(f"BEGIN IMMEDIATE; {script} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        except sqlite3.Error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _require_wal(self) -> None:
        # Reads the header first: a file that is not a database fails here.
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            raise StoreError(
                f"the state database {self.path} cannot use write-ahead logging (journal mode {mode}); "
                f"put it on a local filesystem"
            )

    def _check_active_game(self) -> None:
        """Read back what a restart resumes: damage there is a clear message at start-up,
        not a failed commit mid-game. The finished games are not read: start-up time must
        not grow with the history (SQLite reports damage there when it is read, and
        :meth:`integrity_problems` checks every page)."""
        game = self.active_game()
        if game is not None:
            self.hands(game.id)

    def integrity_problems(self, on_progress: Callable[[], object] | None = None) -> list[str]:
        """The whole file checked (``PRAGMA integrity_check``): ``[]`` when it is sound.

        Reads every page, so it takes time in proportion to the history; ``on_progress``
        is called every few thousand steps of the check.
        """
        def step() -> int:
            on_progress()
            return 0  # go on (non-zero would stop the check)

        if on_progress is not None:
            self._db.set_progress_handler(step, PROGRESS_STEPS)
        try:
            problems = [row[0] for row in self._db.execute(f"PRAGMA integrity_check({MAX_PROBLEMS})")]
        except sqlite3.DatabaseError as exc:  # damage that stops the check itself
            problems = [str(exc)]
        finally:
            self._db.set_progress_handler(None, 0)
        return [] if problems == ["ok"] else [" ".join(p.split()) for p in problems]

    # -- plumbing ------------------------------------------------------------------

    def _transaction(self) -> "_Transaction":
        return _Transaction(self)

    def _query(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._unusable(exc) from None

    def close(self) -> None:
        self._db.close()
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _acknowledged(self, game_id: int) -> None:
        if self._lock is not None:
            hands = self._db.execute("SELECT count(*) FROM hands WHERE game_id = ?", (game_id,)).fetchone()[0]
            self._lock.acknowledged(game_id, hands)

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- games ---------------------------------------------------------------------

    _GAME_COLUMNS = ("id, ruleset, rules, state, step, hand, status, started_at, ended_at, final, seating, "
                     "session_id, round, table_no")

    def _game(self, row: tuple) -> Game:
        gid, ruleset, rules, state, step, hand, status, started, ended, final, seating, session_id, round_, table = row
        return Game(
            id=gid, ruleset=ruleset, rules=self._load(rules), state=self._load(state), step=step,
            hand=self._load(hand), status=status, started_at=started, ended_at=ended,
            final=self._load(final) if final is not None else None, seating=seating,
            session_id=session_id, round=round_, table=table,
        )

    def _load(self, text: str) -> Any:
        try:
            return json.loads(text)
        except ValueError as exc:  # a damaged row SQLite itself did not notice
            raise self._unusable(sqlite3.DatabaseError(f"a stored record is not JSON: {exc}")) from None

    def active_game(self) -> Game | None:
        """The game to resume after a restart, or None."""
        rows = self._query(f"SELECT {self._GAME_COLUMNS} FROM games WHERE status = 'active'")
        return self._game(rows[0]) if rows else None

    def game(self, game_id: int) -> Game:
        rows = self._query(f"SELECT {self._GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise StoreError(f"no game {game_id} in {self.path}")
        return self._game(rows[0])

    def latest_game(self) -> Game | None:
        rows = self._query(f"SELECT {self._GAME_COLUMNS} FROM games ORDER BY id DESC LIMIT 1")
        return self._game(rows[0]) if rows else None

    def games(self, *, session_id: int | None = None, round: int | None = None) -> list[Game]:
        """Every game, oldest first; only a session's or a round's when given."""
        where = [(column, value) for column, value in (("session_id", session_id), ("round", round))
                 if value is not None]
        sql = f"SELECT {self._GAME_COLUMNS} FROM games"
        if where:
            sql += " WHERE " + " AND ".join(f"{column} = ?" for column, _ in where)
        return [self._game(r) for r in self._query(sql + " ORDER BY id", tuple(v for _, v in where))]

    def new_game(self, ruleset: str, rules: dict, state: dict, *, step: str = "", hand: dict | None = None,
                 players: dict[int, dict] | None = None, seating: str = "as-given", round: int | None = None,
                 table: int | None = None) -> int:
        """Start a game, with its players (seat -> ``{"name", "ema_id", "club_id"}``, none:
        anonymous) and its tournament round and table, if any; it belongs to the open
        session, if any. Refused while another game is active (abandon or finish it first)."""
        with self._transaction() as db:
            active = db.execute("SELECT id FROM games WHERE status = 'active'").fetchone()
            if active:
                raise StoreError(f"game {active[0]} is still active; finish or abandon it before starting another")
            session = db.execute("SELECT id FROM sessions WHERE ended_at IS NULL").fetchone()
            cur = db.execute(
                "INSERT INTO games (ruleset, rules, state, step, hand, status, started_at, seating, session_id, round, "
                "table_no) VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?)",
                (ruleset, _dump(rules), _dump(state), step, _dump(hand or {}), _now(), seating,
                 session[0] if session else None, round, table),
            )
            game_id = int(cur.lastrowid)
            db.executemany(
                "INSERT INTO players (game_id, seat, name, ema_id, club_id) VALUES (?, ?, ?, ?, ?)",
                [(game_id, seat, p["name"], p.get("ema_id"), p.get("club_id")) for seat, p in (players or {}).items()],
            )
        self._acknowledged(game_id)
        return game_id

    def save_step(self, game_id: int, step: str, hand: dict) -> None:
        """Record the machine state the hand carries on from, with the hand (one transaction)."""
        with self._transaction() as db:
            self._require_active(db, game_id)
            db.execute("UPDATE games SET step = ?, hand = ? WHERE id = ?", (step, _dump(hand), game_id))

    def commit_hand(
        self, game_id: int, seq: int, record: dict, state: dict, *, step: str | None = None, hand: dict | None = None
    ) -> bool:
        """Store hand ``seq``'s record and the state after it, atomically.

        Returns False, writing nothing, when hand ``seq`` was already committed: a
        result submitted twice is applied once. ``step``/``hand``, when given, move the
        machine on in the same transaction.
        """
        with self._transaction() as db:
            self._require_active(db, game_id)
            cur = db.execute(
                "INSERT OR IGNORE INTO hands (game_id, seq, record, committed_at) VALUES (?, ?, ?, ?)",
                (game_id, seq, _dump(record), _now()),
            )
            if cur.rowcount == 0:
                return False
            db.execute("UPDATE games SET state = ? WHERE id = ?", (_dump(state), game_id))
            if step is not None:
                db.execute("UPDATE games SET step = ?, hand = ? WHERE id = ?", (step, _dump(hand or {}), game_id))
        self._acknowledged(game_id)
        return True

    def finish_game(self, game_id: int, final: dict) -> None:
        """Close the game with its final standings."""
        self._end(game_id, "finished", final)

    def abandon_game(self, game_id: int) -> None:
        """Close the game without standings; its hands stay in the journal."""
        self._end(game_id, "abandoned", None)

    def _end(self, game_id: int, status: str, final: dict | None) -> None:
        with self._transaction() as db:
            self._require_active(db, game_id)
            db.execute(
                "UPDATE games SET status = ?, final = ?, ended_at = ? WHERE id = ?",
                (status, None if final is None else _dump(final), _now(), game_id),
            )

    def _require_active(self, db: sqlite3.Connection, game_id: int) -> None:
        row = db.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in {self.path}")
        if row[0] != "active":
            raise StoreError(f"game {game_id} is {row[0]}; it cannot change any more")

    # -- hands ---------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """Hands stored, games finished and faults logged, ever (the maintenance reminders' counters)."""
        ((hands,),) = self._query("SELECT COUNT(*) FROM hands")
        ((games,),) = self._query("SELECT COUNT(*) FROM games WHERE status = 'finished'")
        ((faults,),) = self._query("SELECT COUNT(*) FROM faults")
        return {"hands": hands, "games": games, "faults": faults}

    def hands(self, game_id: int) -> list[dict]:
        """The committed hand records of a game, in hand order."""
        rows = self._query("SELECT record FROM hands WHERE game_id = ? ORDER BY seq", (game_id,))
        return [self._load(r[0]) for r in rows]

    # -- players -------------------------------------------------------------------

    def players(self, game_id: int) -> dict[int, dict]:
        """Seat -> player (``name``, and ``ema_id`` / ``club_id`` when known); {} for an
        anonymous game."""
        rows = self._query("SELECT seat, name, ema_id, club_id FROM players WHERE game_id = ? ORDER BY seat",
                           (game_id,))
        return {seat: _player(name, ema, club) for seat, name, ema, club in rows}

    # -- sessions ------------------------------------------------------------------

    _SESSION_COLUMNS = "id, name, show_totals, started_at, ended_at"

    @staticmethod
    def _session(row: tuple) -> Session:
        sid, name, show_totals, started, ended = row
        return Session(id=sid, name=name, show_totals=bool(show_totals), started_at=started, ended_at=ended)

    def start_session(self, name: str = "", *, show_totals: bool = False) -> Session:
        """Open a session: the games started from now on belong to it. Refused while
        another is open."""
        with self._transaction() as db:
            open_ = db.execute("SELECT id FROM sessions WHERE ended_at IS NULL").fetchone()
            if open_:
                raise StoreError(f"session {open_[0]} is still open; end it before starting another")
            cur = db.execute("INSERT INTO sessions (name, show_totals, started_at) VALUES (?, ?, ?)",
                             (name, int(show_totals), _now()))
            session_id = int(cur.lastrowid)
        return self.session(session_id)

    def end_session(self) -> Session:
        """Close the open session (a game in play stays in it); refused when none is open."""
        with self._transaction() as db:
            open_ = db.execute("SELECT id FROM sessions WHERE ended_at IS NULL").fetchone()
            if open_ is None:
                raise StoreError("no session is open")
            db.execute("UPDATE sessions SET ended_at = ? WHERE id = ?", (_now(), open_[0]))
        return self.session(open_[0])

    def open_session(self) -> Session | None:
        rows = self._query(f"SELECT {self._SESSION_COLUMNS} FROM sessions WHERE ended_at IS NULL")
        return self._session(rows[0]) if rows else None

    def session(self, session_id: int) -> Session:
        rows = self._query(f"SELECT {self._SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise StoreError(f"no session {session_id} in {self.path}")
        return self._session(rows[0])

    def sessions(self) -> list[Session]:
        """Every session, oldest first."""
        return [self._session(r) for r in self._query(f"SELECT {self._SESSION_COLUMNS} FROM sessions ORDER BY id")]

    # -- a tournament's roster and schedule ----------------------------------------

    def import_schedule(self, roster: dict[int, dict], seats: list[tuple[int, int, int, int]]) -> None:
        """Replace the roster (player number -> ``{"name", "ema_id", "club_id"}``) and the
        schedule (``(round, table, seat, player number)`` rows) as a whole, in one
        transaction: a refused import leaves the previous one."""
        with self._transaction() as db:
            db.execute("DELETE FROM schedule")
            db.execute("DELETE FROM roster")
            db.executemany("INSERT INTO roster (number, name, ema_id, club_id) VALUES (?, ?, ?, ?)",
                           [(n, p["name"], p.get("ema_id"), p.get("club_id")) for n, p in roster.items()])
            db.executemany("INSERT INTO schedule (round, table_no, seat, number) VALUES (?, ?, ?, ?)", seats)

    def roster(self) -> dict[int, dict]:
        """Player number -> player, as imported."""
        rows = self._query("SELECT number, name, ema_id, club_id FROM roster ORDER BY number")
        return {number: _player(name, ema, club) for number, name, ema, club in rows}

    def schedule(self, round: int, table: int) -> dict[int, dict]:
        """Seat -> player (with its ``number``) at ``table`` in ``round``; {} when the
        schedule has no such round or table."""
        rows = self._query(
            "SELECT s.seat, r.number, r.name, r.ema_id, r.club_id FROM schedule s JOIN roster r USING (number) "
            "WHERE s.round = ? AND s.table_no = ? ORDER BY s.seat", (round, table))
        return {seat: {"number": number, **_player(name, ema, club)} for seat, number, name, ema, club in rows}

    def schedule_rounds(self) -> dict[int, list[int]]:
        """Round -> the tables it seats."""
        rounds: dict[int, list[int]] = {}
        for round_, table in self._query("SELECT DISTINCT round, table_no FROM schedule ORDER BY round, table_no"):
            rounds.setdefault(round_, []).append(table)
        return rounds

    # -- the operator's pause --------------------------------------------------------

    def save_pause(self, paused_in: str | None) -> None:
        """The table paused in machine state ``paused_in``, or (None) resumed."""
        with self._transaction() as db:
            db.execute("DELETE FROM pause")
            if paused_in is not None:
                db.execute("INSERT INTO pause (id, paused_in, at) VALUES (1, ?, ?)", (paused_in, _now()))

    def paused_in(self) -> str | None:
        """The machine state a pause not yet resumed held, if there is one."""
        rows = self._query("SELECT paused_in FROM pause")
        return rows[0][0] if rows else None

    # -- the faults log ------------------------------------------------------------

    def record_fault(self, code: int, subsystem: str = "", detail: str = "", game_id: int | None = None) -> None:
        with self._transaction() as db:
            db.execute("INSERT INTO faults (at, code, subsystem, detail, game_id) VALUES (?, ?, ?, ?, ?)",
                       (_now(), code, subsystem, detail, game_id))

    def fault_counts(self, since: str | None = None) -> dict[tuple[int, str], int]:
        """(code, subsystem) -> how many faults were logged (since the ISO time ``since``)."""
        rows = self._query("SELECT code, subsystem, count(*) FROM faults WHERE at >= ? GROUP BY code, subsystem",
                           (since or "",))
        return {(code, subsystem): n for code, subsystem, n in rows}


def _player(name: str, ema_id: str | None, club_id: str | None) -> dict:
    """A player as the store hands it out: the identifiers only when known."""
    return {k: v for k, v in (("name", name), ("ema_id", ema_id), ("club_id", club_id)) if v is not None}


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception.

    IMMEDIATE takes the write lock up front, so a check-then-write (duplicate hand,
    active game) cannot race another writer.
    """

    def __init__(self, store: Store) -> None:
        self._store = store

    def __enter__(self) -> sqlite3.Connection:
        try:
            self._store._db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise self._store._cannot_write(exc) from None
        return self._store._db

    def __exit__(self, exc_type, exc, tb) -> None:
        db = self._store._db
        if exc_type is None:
            try:
                db.execute("COMMIT")
                return
            except sqlite3.DatabaseError as commit_exc:
                exc = commit_exc
        if db.in_transaction:
            db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.DatabaseError):
            raise self._store._cannot_write(exc) from None
