"""The issue's whole check through the console scripts: a tournament of 16 `mjtable demo`
tables (64 players) on a real mosquitto with the ACL of docs/INSTALL.md, 4 rounds of a
seating `mjtable hall seating generate` made, `mjtable hall serve` entered with its files.
In round 2 the hall is killed with SIGKILL after its first result and started again; in
round 3 two tables are cut from the broker before their game's last hands (their accounts
withdrawn: the broker drops them and refuses them, as a cut line would) and let back only
once their games are over. Every game is stored exactly once, the two cut tables' results
arrive once after they reconnect, and the standings equal a recomputation from the
tables' own journals. (A table's controller restarted across its game's end is
test_table_restart.py: a demo table's database does not outlive it.)"""
from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ..support.mosquitto import Mosquitto, PASSWORD
from ..support.processes import MJTABLE, wait_for
from .conftest import HallProcess, hall

TABLES, ROUNDS = 16, 4
ACCOUNTS = tuple(f"demo-{n}" for n in range(1, TABLES + 1))
CUT = ("demo-5", "demo-12")  # cut from the broker across their games' end in round 3
ROUND_TIMEOUT = 240  # a round's 16 games beside the rest of the suite on two cores


def tournament_files(folder: Path) -> None:
    countries = ("FRA", "DEU", "NLD", "DNK")
    (folder / "players.csv").write_text("number,first_name,last_name,ema_id,country,ema_member\n" + "".join(
        f"{n},P{n},Player,{4000000 + n:08d},{countries[n % 4]},yes\n" for n in range(1, 4 * TABLES + 1)))
    (folder / "header.csv").write_text("key,value\ntitle,Test Open\nplace,Here\ncountry,FRA\nstart_date,2027-01-01\n"
                                       "end_date,2027-01-01\ndays,1\nrules,EMA 2016\nmers_weight,0.5\n")
    (folder / "tables.csv").write_text("number,table_id\n" + "".join(f"{n},demo-{n}\n" for n in range(1, TABLES + 1)))


@pytest.fixture
def field_broker(short_tmp):
    running = Mosquitto(short_tmp / "broker", ACCOUNTS)
    yield running.start()
    running.kill()


def demo(folder: Path, broker, round_: int) -> subprocess.Popen:
    """Round ``round_``'s 16 tables, each a simulated table on a pty with its controller."""
    return subprocess.Popen([MJTABLE, "demo", "--tables", str(TABLES), "--mqtt", broker.url, "--mqtt-password-file",
                             "table-password", "--speed", "1000", "--no-web", "--seed", str(100 * round_),
                             "--journal", f"round{round_}.jsonl"], cwd=folder,
                            stdout=open(folder / f"demo{round_}.out", "w"), stderr=open(folder / f"demo{round_}.err", "w"))


def finish(tables: subprocess.Popen, folder: Path, round_: int) -> None:
    assert tables.wait(ROUND_TIMEOUT) == 0, (folder / f"demo{round_}.err").read_text()


def stored(hall_process: HallProcess) -> list[tuple[int, str, str]]:
    """(round, table id, key) of every result the hall's logs say it stored."""
    return [(int(r), t, k) for r, t, k in re.findall(r"round (\d+) table \d+ \((\S+)\): result (\S+) stored\n",
                                                     hall_process.logs())]


def lines_of(folder: Path, round_: int, table_id: str) -> list[str]:
    """The demo's line per hand of one table (``demo-5: [S1 honba 0] settling | ... | game over``)."""
    return [l for l in (folder / f"demo{round_}.out").read_text().splitlines() if l.startswith(f"{table_id}: [")]


def cut_across_the_end(folder: Path, broker: Mosquitto, hall_process: HallProcess, round_: int) -> None:
    """Each table of CUT cut once a hand of its South round has ended (three hands at least
    are left in EMA's game, which has no end by a bust), let back once its game is over."""
    cut: set[str] = set()
    over: set[str] = set()

    def dropped(table_id: str) -> int:
        return broker.log().count(f"Client mjtable-{table_id} disconnected.")

    def step() -> bool:
        for table_id in set(CUT) - over:
            lines = lines_of(folder, round_, table_id)
            if table_id not in cut and any(l.startswith(f"{table_id}: [S") for l in lines):
                assert not lines[-1].endswith("game over"), f"{table_id} ended before it was cut"
                before = dropped(table_id)
                cut.add(table_id)
                broker.reload(tuple(a for a in ACCOUNTS if a not in cut - over))
                wait_for(lambda: dropped(table_id) > before, f"the broker to drop {table_id}", 10)
                assert not lines_of(folder, round_, table_id)[-1].endswith("game over"), \
                    f"{table_id}'s game ended before the broker dropped it"
            elif table_id in cut and lines and lines[-1].endswith("game over"):
                assert not [s for s in stored(hall_process) if s[:2] == (round_, table_id)], \
                    f"the hall has {table_id}'s result while the table is cut"
                over.add(table_id)
                broker.reload(tuple(a for a in ACCOUNTS if a not in cut - over))
        return over == set(CUT)

    wait_for(step, "both cut tables' games to end while cut", ROUND_TIMEOUT, 0.02)


def from_journals(folder: Path) -> dict[int, int]:
    """Each player's table points, recomputed from every table's journal and the seating."""
    rounds = [[list(map(int, line.split("-"))) for line in block.splitlines()]
              for block in (folder / "seating.txt").read_text().strip().split("\n\n")]
    points: dict[int, int] = {}
    for round_, tables in enumerate(rounds, 1):
        for table, numbers in enumerate(tables, 1):
            records = [json.loads(l) for l in (folder / f"round{round_}.demo-{table}.jsonl").read_text().splitlines()]
            final, east = records[-1], records[0]["dealer"]
            seats = list(range(len(numbers)))
            for number, seat in zip(numbers, seats[east:] + seats[:east]):
                points[number] = points.get(number, 0) + final["final_scores"][seat]
    return points


@pytest.mark.long
@pytest.mark.timeout(600)  # alone it takes about 45 s; beside the whole suite on two cores, three to four times that
def test_sixteen_tables_four_rounds_every_game_once_across_a_killed_hall_and_two_cut_tables(short_tmp,
                                                                                               field_broker):
    folder, broker = short_tmp, field_broker
    tournament_files(folder)
    (folder / "table-password").write_text(PASSWORD)
    generated = hall("seating", "generate", "--players", "players.csv", "--rounds", str(ROUNDS), "--out",
                     "seating.txt", cwd=folder)
    assert generated.returncode == 0, generated.stderr
    entered = hall("import", "--players", "players.csv", "--header", "header.csv", "--tables", "tables.csv",
                   "seating.txt", cwd=folder)
    assert entered.returncode == 0, entered.stderr
    the_hall = HallProcess(folder, broker).start()
    try:
        for round_ in range(1, ROUNDS + 1):
            tables = demo(folder, broker, round_)
            if round_ == 2:  # mid-round: the others end their games while the hall is down
                wait_for(lambda: len(stored(the_hall)) > TABLES, "a first result of round 2", ROUND_TIMEOUT)
                the_hall.stop(signal.SIGKILL)
                time.sleep(1)
                the_hall.start()
            if round_ == 3:
                cut_across_the_end(folder, broker, the_hall, round_)
            finish(tables, folder, round_)
            wait_for(lambda: len(stored(the_hall)) == round_ * TABLES, f"every result of round {round_}", 60)
    finally:
        the_hall.stop(signal.SIGKILL)
    results = stored(the_hall)
    assert len({key for _, _, key in results}) == len(results) == ROUNDS * TABLES
    assert sorted((r, t) for r, t, _ in results) == sorted((r, t) for r in range(1, ROUNDS + 1) for t in ACCOUNTS)
    rounds = hall("export", "rounds", cwd=folder).stdout.splitlines()[1:]
    assert len(rounds) == ROUNDS * TABLES * 4
    standings = [row.split(",") for row in hall("export", "standings", cwd=folder).stdout.splitlines()[1:]]
    assert {int(r[1]): int(r[7]) for r in standings} == from_journals(folder)
    assert all(r[6] == str(ROUNDS) for r in standings)  # every player has his four games
