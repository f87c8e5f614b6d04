"""`mjtable run` and its database as a user meets them: a second controller on the same
database is refused, naming the first; a game whose stored state does not follow from
its hands is refused, never served."""
import json
import os
import sqlite3
import stat
import subprocess

import pytest

from controller.app.simulation import run_game
from controller.store.database import Store

from .process_harness import MJTABLE, RunProcess, start_sim, stderr_of, write_config
from .service_harness import wait_for

SEED = 4


@pytest.fixture
def umask_022():
    old = os.umask(0o022)  # a shell's, outside systemd: the children inherit it
    yield
    os.umask(old)


def test_a_second_controller_on_the_same_database_is_refused_naming_the_first(procs, short_tmp, umask_022):
    config = write_config(short_tmp, start_sim(procs, SEED))
    first = RunProcess(procs, config)
    first.start()
    first.client.request("start")
    wait_for(lambda: first.client.request("status")["state"] == "playing", "hand 1 in play")
    # Another config on the same database, with a socket of its own: only the lock stops it.
    other = short_tmp / "other.yaml"
    other.write_text(config.read_text().replace("api.sock", "other.sock"))
    second = procs.start("run", "--config", str(other), name="second")
    assert second.wait(10) == 2
    err = stderr_of(second)
    assert f"in use by another controller (pid {first.proc.pid}" in err and "Traceback" not in err
    assert not (short_tmp / "other.sock").exists()

    first.client.request("result", hand=1, result={"kind": "draw", "tenpai": [0]})  # the first goes on
    journal = subprocess.run([MJTABLE, "journal", "--db", str(short_tmp / "state.db")], capture_output=True,
                             text=True, timeout=10)  # readers need no lock
    assert journal.returncode == 0 and len(journal.stdout.splitlines()) == 1
    files = ["state.db", "state.db-wal", "state.db-shm", "state.db.lock"]
    assert {f: stat.S_IMODE((short_tmp / f).stat().st_mode) for f in files} == {f: 0o640 for f in files}

    first.kill()  # a kill frees the lock: the next controller carries on
    first.start()
    assert first.client.request("status")["hands_played"] == 1


def _interrupted_game(folder):
    """A whole seeded game in the store, made active again (as if killed before its end)."""
    database = folder / "state.db"
    with Store(database) as store:
        run_game("ema-2016", seed=SEED, store=store)
    with sqlite3.connect(database) as db:
        db.execute("UPDATE games SET status = 'active', final = NULL, ended_at = NULL")
    return database


def _edit(database, table: str, column: str, where: str, change) -> None:
    with sqlite3.connect(database) as db:
        (text,) = db.execute(f"SELECT {column} FROM {table} WHERE {where}").fetchone()
        value = json.loads(text)
        change(value)
        db.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (json.dumps(value),))


def _refused(procs, folder) -> str:
    run = procs.start("run", "--config", str(write_config(folder, "/dev/null-table")), name="run")
    assert run.wait(10) == 2
    assert not (folder / "api.sock").exists()  # never served
    err = stderr_of(run)
    assert "Traceback" not in err and "damaged" in err and "game 1" in err
    return err


def test_a_changed_digit_in_the_stored_game_state_is_refused(procs, short_tmp):
    database = _interrupted_game(short_tmp)
    _edit(database, "games", "state", "id = 1", lambda state: state["scores"].__setitem__(0, state["scores"][0] + 100))
    err = _refused(procs, short_tmp)
    assert "game state that disagrees with its" in err and "scores [" in err


def test_a_changed_payment_in_a_stored_hand_is_refused(procs, short_tmp):
    database = _interrupted_game(short_tmp)
    _edit(database, "hands", "record", "game_id = 1 AND seq = 3",
          lambda record: record["payments"].__setitem__(1, record["payments"][1] + 1000))
    err = _refused(procs, short_tmp)
    assert "hand 3: payments" in err
