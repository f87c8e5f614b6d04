import csv
import io
import json
import subprocess
import sys


import pytest

from controller.cli import main
from controller.club.journal import HAND_KEYS, journal_records, write_csv, write_jsonl
from controller.store.database import Store

from ..support.processes import MJTABLE

START = {"scores": [25000] * 4}


def hand(label, dice, scores, payments, result, honba=0):
    return {
        "ruleset": "ema-2016", "hand": label, "honba": honba, "riichi_sticks": 0, "dealer": 0, "dice": dice,
        "breaker": 3, "broken_wall": 3, "dead_wall": [[3, 12], [3, 11], [3, 10], [3, 9], [3, 8], [3, 7], [3, 6]],
        "dora_indicators": [[3, 10]], "result": result, "payments": payments, "scores": scores,
        "riichi_sticks_after": 0,
    }


E1 = hand("E1", [6, 6], [30800, 19200, 25000, 25000], [5800, -5800, 0, 0],
          {"kind": "ron", "discarder": 1, "winners": [{"seat": 0, "han": 3, "fu": 30}], "riichi": []})
E1_1 = hand("E1", [2, 3], [29800, 19200, 25000, 26000], [-1000, 0, 0, 1000],
            {"kind": "draw", "tenpai": [3], "riichi": []}, honba=1)
FINAL = {"final": True, "scores": [29800, 19200, 25000, 26000], "final_scores": [19.8, -25.8, -5.0, 11.0],
         "ranks": [1, 4, 3, 2]}


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "state.db"
    with Store(path) as store:
        gid = store.new_game("ema-2016", {}, START)
        store.commit_hand(gid, 0, E1, START)
        store.commit_hand(gid, 1, E1_1, START)
        store.finish_game(gid, FINAL)
        later = store.new_game("wrc", {}, START)
        store.commit_hand(later, 0, {**E1, "ruleset": "wrc"}, START)
    return path


def test_records_have_exactly_the_journal_keys_then_final(db):
    with Store(db) as store:
        records = journal_records(store, game_id=1)
    assert [list(r) for r in records[:2]] == [list(HAND_KEYS)] * 2
    assert records == [E1, E1_1, FINAL]


def test_latest_game_by_default_without_final_while_unfinished(db):
    with Store(db) as store:
        assert [r["ruleset"] for r in journal_records(store)] == ["wrc"]


def test_abandoned_game_has_no_final_object(db):
    with Store(db) as store:
        store.abandon_game(2)
        assert journal_records(store) == [{**E1, "ruleset": "wrc"}]


def test_jsonl_is_one_object_per_line(db):
    out = io.StringIO()
    with Store(db) as store:
        write_jsonl(journal_records(store, 1), out)
    assert [json.loads(l) for l in out.getvalue().splitlines()] == [E1, E1_1, FINAL]


def test_csv_reads_back_with_the_csv_module(db):
    out = io.StringIO()
    with Store(db) as store:
        write_csv(journal_records(store, 1), out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["hand"] for r in rows] == ["E1", "E1", "final"]
    first = rows[0]
    assert (first["dice"], first["dora_indicators"], first["honba"]) == ("6 6", "3:10", "0")
    assert (first["breaker"], first["broken_wall"]) == ("3", "3")
    assert first["dead_wall"].split()[:2] == ["3:12", "3:11"]
    assert [int(first[f"payments_{s}"]) for s in range(4)] == E1["payments"]
    assert [int(first[f"scores_{s}"]) for s in range(4)] == E1["scores"]
    assert json.loads(first["result"]) == E1["result"]
    assert [float(rows[2][f"final_scores_{s}"]) for s in range(4)] == FINAL["final_scores"]
    assert [int(rows[2][f"ranks_{s}"]) for s in range(4)] == FINAL["ranks"]
    assert first["final_scores_0"] == ""


def test_command_writes_csv_to_a_file(db, tmp_path, capsys):
    out = tmp_path / "journal.csv"
    assert main(["journal", "--db", str(db), "--game", "1", "--format", "csv", "--output", str(out)]) == 0
    with out.open(newline="") as f:
        assert [r["hand"] for r in csv.DictReader(f)] == ["E1", "E1", "final"]


def test_command_finds_the_database_through_the_table_config(tmp_path, capsys):
    (tmp_path / "profile.yaml").touch()
    (tmp_path / "table.yaml").write_text(
        'serial: {port: "socket://localhost:7000", baud: 115200}\nprofile: profile.yaml\nruleset: ema-2016\n'
        "state: {database: var/state.db}\napi: {socket: var/mj.sock}\n")
    (tmp_path / "var").mkdir()
    with Store(tmp_path / "var" / "state.db") as store:
        store.commit_hand(store.new_game("ema-2016", {}, START), 0, E1, START)
    assert main(["journal", "--config", str(tmp_path / "table.yaml")]) == 0
    assert json.loads(capsys.readouterr().out) == E1


@pytest.mark.parametrize("setup, message", [
    (lambda p: None, "no state database at"),
    (lambda p: Store(p).close(), "no game recorded"),
    (lambda p: p.write_text("not a database" * 100), "damaged"),
])
def test_command_errors_are_one_clear_line(tmp_path, capsys, setup, message):
    path = tmp_path / "state.db"
    setup(path)
    assert main(["journal", "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mjtable journal: ") and message in err and err.count("\n") == 1


def test_journal_reads_while_the_controller_holds_the_database(tmp_path):
    path = tmp_path / "state.db"
    with Store(path) as running:  # open, WAL not checkpointed: as during a game
        gid = running.new_game("ema-2016", {}, START)
        running.commit_hand(gid, 0, E1, START)
        proc = subprocess.run([sys.executable, "-m", "controller.cli", "journal", "--db", str(path)],
                              capture_output=True, text=True, timeout=20)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == E1
        assert running.commit_hand(gid, 1, E1_1, START)  # and the controller carries on writing


@pytest.mark.parametrize("ruleset,seed,stacks", [("zung-jung", 2, 17), ("mcr", 1, 18)])
def test_breaker_is_the_seat_the_first_throw_names_broken_wall_holds_the_break(tmp_path, ruleset, seed, stacks):
    # East throws (n1) to name the breaker, (dealer + n1 - 1) mod 4; the breaker throws again and
    # the count n1 + n2 runs from the right of his wall, past its last stack into the upper
    # seat's wall (seat breaker - 1)
    out = tmp_path / "journal.jsonl"
    proc = subprocess.run([MJTABLE, "demo", "--fast", "--ruleset", ruleset, "--seed", str(seed), "--journal", str(out)],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    hands = [json.loads(line) for line in out.read_text().splitlines() if '"final"' not in line]
    for record in hands:
        assert list(record) == list(HAND_KEYS)
        breaker = (record["dealer"] + sum(record["dice"][:2]) - 1) % 4
        assert record["breaker"] == breaker
        assert record["broken_wall"] == (breaker if sum(record["dice"]) <= stacks else (breaker - 1) % 4)
    assert any(r["broken_wall"] != r["breaker"] for r in hands)  # this seed's game has such a count

