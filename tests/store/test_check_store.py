"""Start-up reads only what a restart needs; `mjtable check-store` reads every page.

Damage in a finished game's pages is not looked for at start-up (start-up time must not
grow with the history), is reported clearly when that game is read, and is found by the
full check, which the installed console script runs.
"""
import io
import sqlite3
import subprocess
from pathlib import Path

import pytest
from firmware_protocol.profile import DEFAULT_PROFILE

from controller.commands.check_store import ProgressLines
from controller.store.database import Store, StoreError

from ..support.processes import MJTABLE

STATE = {"scores": [25000] * 4}
OLD_MARKER = "finished-long-ago"


def history(path: Path) -> tuple[int, int]:
    """A store with a finished game of many hands and a game in play; returns both ids."""
    with Store(path) as store:
        old = store.new_game("ema-2016", {}, STATE)
        for seq in range(300):
            store.commit_hand(old, seq, {"hand": seq, "note": OLD_MARKER * 20}, STATE)
        store.finish_game(old, {"final_scores": [0, 0, 0, 0]})
        active = store.new_game("wrc", {}, STATE)
        store.commit_hand(active, 0, {"hand": "E1"}, STATE, step="between_hands", hand={"seq": 1})
    return old, active


def damage_page_holding(path: Path, marker: str) -> None:
    with sqlite3.connect(path) as db:
        page = db.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(path.read_bytes())
    start = data.index(marker.encode()) // page * page
    assert start > 0, "the marker is on the header page"
    data[start:start + page] = b"\xa5" * page
    path.write_bytes(bytes(data))


def check_store(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([MJTABLE, "check-store", *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def damaged_history(tmp_path) -> tuple[Path, int, int]:
    path = tmp_path / "state.db"
    old, active = history(path)
    damage_page_holding(path, OLD_MARKER)
    return path, old, active


def test_damage_in_history_opens_and_is_reported_when_read(damaged_history):
    path, old, active = damaged_history
    with Store(path) as store:  # the game in play reads back: the table can resume
        assert store.active_game().id == active
        assert store.hands(active) == [{"hand": "E1"}]
        with pytest.raises(StoreError, match=f"{path} is unreadable .*damaged.*restore a backup"):
            store.hands(old)
        assert store.integrity_problems()


def test_journal_of_a_damaged_game_says_so(damaged_history):
    path, old, active = damaged_history
    proc = subprocess.run([MJTABLE, "journal", "--db", str(path), "--game", str(old)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"{path} is unreadable" in proc.stderr and "damaged" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_sound_store_has_no_problems_and_the_check_shows_progress(tmp_path, monkeypatch):
    path = tmp_path / "state.db"
    history(path)
    monkeypatch.setattr("controller.store.database.PROGRESS_STEPS", 100)  # a real history takes millions of steps
    calls = []
    with Store(path) as store:
        assert store.integrity_problems(lambda: calls.append(1)) == []
    assert len(calls) > 1


def test_progress_lines_every_few_seconds():
    now = [100.0]
    out = io.StringIO()
    with ProgressLines("checking state.db (1.0 MB)", out, every=5.0, clock=lambda: now[0]) as tick:
        for t in (101.0, 104.9, 105.0, 107.0, 110.5):
            now[0] = t
            tick()
    assert out.getvalue().splitlines() == ["checking state.db (1.0 MB)", "  still checking, 5 s",
                                           "  still checking, 10 s"]


def test_console_script_sound_store(tmp_path):
    path = tmp_path / "state.db"
    history(path)
    proc = check_store("--db", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{path} is sound: every page checked\n"
    assert proc.stderr.startswith(f"checking {path} (")


def test_console_script_with_the_table_config(tmp_path):
    history(tmp_path / "state.db")
    config = tmp_path / "table.yaml"
    config.write_text(f"""kind: table
serial: {{port: /dev/ttyACM0, baud: 115200}}
profile: {DEFAULT_PROFILE}
ruleset: ema-2016
state: {{database: state.db}}
api: {{socket: api.sock}}
timeouts: {{reconnect_backoff_max: 1}}
game: {{starting_dealer: 0}}
""")
    proc = check_store("--config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert "is sound" in proc.stdout


def test_console_script_damaged_history(damaged_history):
    path, _, _ = damaged_history
    proc = check_store("--db", str(path))
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    assert lines[0] == f"{path} is damaged; SQLite's integrity check found:"
    assert len(lines) >= 3 and lines[1].startswith("  ") and "restore a backup" in lines[-1]


def test_console_script_store_damaged_where_start_up_reads(tmp_path):
    path = tmp_path / "state.db"
    with Store(path) as store:
        store.new_game("ema-2016", {}, {"note": "in play " * 400})
    damage_page_holding(path, "in play")
    proc = check_store("--db", str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"mjtable check-store: the state database {path} is unreadable")


def test_console_script_missing_store(tmp_path):
    proc = check_store("--db", str(tmp_path / "none.db"))
    assert proc.returncode == 2
    assert "no state database at" in proc.stderr
    assert not (tmp_path / "none.db").exists()


def test_a_garbled_record_in_the_game_in_play_is_reported_at_open(tmp_path):
    path = tmp_path / "state.db"
    _, active = history(path)
    with sqlite3.connect(path) as db:  # damage inside a row that SQLite's own checks cannot see
        db.execute("UPDATE hands SET record = '{\"hand\": \"E1\", \"scor' WHERE game_id = ?", (active,))
    with pytest.raises(StoreError, match=f"{path} is unreadable .*not JSON.*damaged"):
        Store(path)
