"""A simulated tournament through the console scripts: 4 `mjtable demo` tables on a real
mosquitto, 2 rounds of a seating `mjtable hall seating generate` made, `mjtable hall
serve` entered with its files. The hall is killed with
SIGKILL and restarted in round 1; the broker is killed and restarted in round 2 while
tables are ending their games. Every game arrives exactly once, and the standings equal a
recomputation from the tables' own journals."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

from ..support.mosquitto import PASSWORD
from ..support.processes import MJTABLE, wait_for
from .conftest import HallProcess, hall

TABLES = 4


def tournament_files(folder: Path) -> None:
    countries = ("FRA", "DEU", "NLD", "DNK")
    (folder / "players.csv").write_text("number,first_name,last_name,ema_id,country,ema_member\n" + "".join(
        f"{n},P{n},Player,{4000000 + n:08d},{countries[n % 4]},yes\n" for n in range(1, 17)))
    (folder / "header.csv").write_text("key,value\ntitle,Test Open\nplace,Here\ncountry,FRA\nstart_date,2027-01-01\n"
                                       "end_date,2027-01-01\ndays,1\nrules,EMA 2016\nmers_weight,0.5\n")
    (folder / "tables.csv").write_text("number,table_id\n" + "".join(f"{n},demo-{n}\n" for n in range(1, TABLES + 1)))


def demo(folder: Path, broker, round_: int) -> subprocess.Popen:
    return subprocess.Popen([MJTABLE, "demo", "--tables", str(TABLES), "--mqtt", broker.url, "--mqtt-password-file",
                             "table-password", "--speed", "1000", "--no-web", "--seed", str(10 * round_),
                             "--journal", f"round{round_}.jsonl"], cwd=folder, stdout=subprocess.DEVNULL,
                            stderr=open(folder / f"demo{round_}.err", "w"))


def stored(hall_process: HallProcess) -> list[str]:
    return re.findall(r"result (\S+) stored", hall_process.logs())


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


def test_a_tournament_of_demo_tables_reaches_the_hall_exactly_once(files, broker):
    tournament_files(files)
    (files / "table-password").write_text(PASSWORD)
    generated = hall("seating", "generate", "--players", "players.csv", "--rounds", "2", "--out", "seating.txt",
                     cwd=files)
    assert generated.stdout == "no pair meets twice\n"
    entered = hall("import", "--players", "players.csv", "--header", "header.csv", "--tables", "tables.csv",
                   "seating.txt", cwd=files)
    assert entered.returncode == 0, entered.stderr
    the_hall = HallProcess(files, broker).start()
    try:
        tables = demo(files, broker, 1)
        wait_for(lambda: stored(the_hall), "a first result of round 1", 120)
        the_hall.stop(signal.SIGKILL)  # mid-round: the others finish while the hall is down
        time.sleep(1)
        the_hall.start()
        assert tables.wait(120) == 0, (files / "demo1.err").read_text()
        wait_for(lambda: len(stored(the_hall)) == TABLES, "every result of round 1", 60)

        tables = demo(files, broker, 2)
        wait_for(lambda: len(stored(the_hall)) > TABLES, "a first result of round 2", 120)
        broker.kill()  # the tables still playing end their games without a broker
        time.sleep(2)
        broker.start()
        assert tables.wait(120) == 0, (files / "demo2.err").read_text()
        wait_for(lambda: len(stored(the_hall)) == 2 * TABLES, "every result of round 2", 60)
    finally:
        the_hall.stop(signal.SIGKILL)
    keys = stored(the_hall)
    assert len(set(keys)) == len(keys) == 2 * TABLES
    rounds = hall("export", "rounds", cwd=files).stdout.splitlines()[1:]
    places = sorted({tuple(row.split(",")[:2]) for row in rounds})
    assert len(rounds) == 2 * TABLES * 4 and len(places) == 2 * TABLES
    standings = [row.split(",") for row in hall("export", "standings", cwd=files).stdout.splitlines()[1:]]
    assert {int(r[1]): int(r[7]) for r in standings} == from_journals(files)
    assert all(r[6] == "2" for r in standings)  # every player has his two games
