"""Older schemas are upgraded in place when opened, in one transaction, with every game,
hand and time of commit kept: data/state-v1.sqlite (a finished EMA game of 14 hands and an
abandoned one, written by the Store of version 1) and data/state-v2.sqlite (the same games
with named players, the first seated by drawing lots, written by the Store of version 2)."""
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from controller.store.database import SCHEMA_VERSION, Store, StoreError

from ..support.processes import MJTABLE

V1 = Path(__file__).parent / "data" / "state-v1.sqlite"
V2 = Path(__file__).parent / "data" / "state-v2.sqlite"
PLAYERS = {0: {"name": "Ann", "ema_id": "04010001"}, 1: {"name": "Bo"}, 2: {"name": "Cy", "club_id": "17"},
           3: {"name": "Di"}}


def _rows(path: Path) -> dict[str, list[tuple]]:
    """Every row of the version 1 tables, as SQLite holds them."""
    db = sqlite3.connect(path)
    try:
        return {"games": db.execute("SELECT id, ruleset, rules, state, step, hand, status, final, started_at, ended_at "
                                    "FROM games ORDER BY id").fetchall(),
                "hands": db.execute("SELECT game_id, seq, record, committed_at FROM hands ORDER BY game_id, seq").fetchall()}
    finally:
        db.close()


def _version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


def _copy(source: Path, folder: Path, version: int) -> Path:
    copy = folder / "state.db"
    shutil.copyfile(source, copy)
    assert _version(copy) == version
    return copy


@pytest.fixture
def v1(tmp_path):
    return _copy(V1, tmp_path, 1)


def test_a_version_1_database_is_upgraded_with_nothing_lost(v1):
    before = _rows(v1)
    with Store(v1, create=False) as store:
        games = store.games()
        assert [(g.status, g.seating) for g in games] == [("finished", "as-given"), ("abandoned", "as-given")]
        assert [store.players(g.id) for g in games] == [{}, {}]
        assert len(store.hands(1)) == 14 and len(store.hands(2)) == 1
    assert _version(v1) == SCHEMA_VERSION == 4
    assert _rows(v1) == before  # every row, every time of commit


@pytest.fixture
def v2(tmp_path):
    return _copy(V2, tmp_path, 2)


def test_a_version_2_database_is_upgraded_with_its_players_kept(v2):
    before = _rows(v2)
    with Store(v2, create=False) as store:
        games = store.games()
        assert [(g.status, g.seating, g.session_id, g.round) for g in games] == [
            ("finished", "draw", None, None), ("abandoned", "as-given", None, None)]
        assert [store.players(g.id) for g in games] == [PLAYERS, PLAYERS]
        assert len(store.hands(1)) == 14 and len(store.hands(2)) == 1
        assert store.sessions() == [] and store.roster() == {} and store.fault_counts() == {}
        assert store.paused_in() is None  # version 4: no pause is held
    assert _version(v2) == 4
    assert _rows(v2) == before


def test_an_upgraded_version_2_database_takes_a_session(v2):
    with Store(v2) as store:
        session = store.start_session("club night")
        gid = store.new_game("ema-2016", {}, {"scores": [30000] * 4}, players=PLAYERS)
        assert store.game(gid).session_id == session.id
        assert [g.id for g in store.games(session_id=session.id)] == [gid]


def test_an_upgraded_database_takes_a_game_with_players(v1):
    with Store(v1) as store:
        gid = store.new_game("ema-2016", {}, {"scores": [30000] * 4}, seating="draw",
                             players={0: {"name": "Ann", "ema_id": "04010001"}, 1: {"name": "Bo"},
                                      2: {"name": "Cy", "club_id": "17"}, 3: {"name": "Di"}})
        assert store.game(gid).seating == "draw"
        assert store.players(gid)[0] == {"name": "Ann", "ema_id": "04010001"}
        assert store.players(gid)[2] == {"name": "Cy", "club_id": "17"}


def test_a_failed_upgrade_leaves_version_1_as_it_was(v1):
    db = sqlite3.connect(v1)
    db.execute("CREATE TABLE players (x)")  # the upgrade's second step fails on it
    db.commit()
    db.close()
    before = _rows(v1)
    with pytest.raises(StoreError, match="players already exists"):
        Store(v1, create=False)
    assert _version(v1) == 1
    assert _rows(v1) == before
    db = sqlite3.connect(v1)
    columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
    db.close()
    assert "seating" not in columns  # the first step was rolled back with it


def test_mjtable_journal_reads_a_version_1_database_as_before(v1):
    hands = [json.loads(record) for _, _, record, _ in _rows(v1)["hands"][:14]]
    done = subprocess.run([MJTABLE, "journal", "--db", str(v1), "--game", "1"], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records[:-1] == hands and records[-1]["final"] is True
