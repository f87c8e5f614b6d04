"""The director's changes while `mjtable hall serve` runs, through the console script: the
EMA's penalties besides chombo (points, late, warning, disqualified) and a correction,
each with who, when and why, in the live standings and the exports; a Swiss round seated
by the standings, which the running hall then takes results for. The running hall owns
its database: the CLI asks it on its control socket."""
from __future__ import annotations

import csv
import io
import signal

from .conftest import hall
from .test_results import GAMES, Table, play_the_doc_s_games, standings_json


def given(folder, *args: str) -> str:
    done = hall(*args, "--who", "A. Referee", "--why", "as the rules say", cwd=folder)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_penalties_and_a_correction_on_the_running_hall_rank_the_field(hall_process, broker):
    hall_process.start()
    play_the_doc_s_games(broker)
    folder = hall_process.folder
    assert given(folder, "correct", "7", "-2000", "--round", "2") == \
        "correction 1: player 7 -2.0 by A. Referee: as the rules say\n"
    assert given(folder, "penalty", "1", "late", "--minutes", "2", "--round", "2") == \
        "penalty (late) 2: player 1 -2.0 by A. Referee: as the rules say\n"
    given(folder, "penalty", "3", "points", "--points", "8000")
    assert given(folder, "penalty", "6", "warning") == "penalty (warning) 4: player 6 by A. Referee: as the rules say\n"
    given(folder, "penalty", "5", "disqualified")
    for args, why in [(("2", "late", "--minutes", "12"), "a late penalty is for 1 to 10 minutes late (a player later "
                                                         "than that is replaced by a substitute)"),
                      (("2", "points"), "a points penalty needs the points deducted, more than 0 (e.g. 8000)"),
                      (("99", "warning"), "unknown player number 99: the tournament has no such player"),
                      (("2", "warning", "--round", "9"), "the seating has no round 9")]:
        refused = hall("penalty", *args, "--who", "A. Referee", "--why", "no", cwd=folder)
        assert (refused.returncode, refused.stderr) == (2, f"mjtable hall penalty: {why}; nothing changed\n")

    live = standings_json(hall_process.url)["standings"]  # the running hall's own, pushed to the page
    assert [(r["position"], r["first_name"], r["table_points"]) for r in live] == [
        (1, "Bo", "7.0"), (2, "Fay", "0.0"), (3, "Ann", "-1.8"), (4, "Di", "-2.2"), (5, "Gus", "-8.0"),
        (6, "Cy", "-9.0"), (7, "Hal", "-43.0"), (8, "Ed", "45.0")]
    assert [(r["penalties"], r["warnings"], r["disqualified"]) for r in live if r["first_name"] in ("Fay", "Cy", "Ed")] \
        == [(0, 1, "no"), (-8000, 0, "no"), (0, 0, "yes")]
    hall_process.stop()
    ema = hall("export", "ema", cwd=folder).stdout.splitlines()
    assert ema[-1] == "8,Ed,Evans,,45.0,75000,no,IRL" and ema[-6] == "3,Ann,Archer,04010001,-1.8,60200,yes,FRA"
    kept = list(csv.DictReader(io.StringIO(hall("export", "penalties", cwd=folder).stdout)))
    assert [(r["id"], r["kind"], r["number"], r["round"], r["table_points"], r["who"]) for r in kept] == [
        ("1", "correction", "7", "2", "-2000", "A. Referee"), ("2", "late", "1", "2", "-2000", "A. Referee"),
        ("3", "points", "3", "", "-8000", "A. Referee"), ("4", "warning", "6", "", "0", "A. Referee"),
        ("5", "disqualified", "5", "", "0", "A. Referee")]
    assert all(r["why"] == "as the rules say" and r["at"].endswith("+00:00") for r in kept)


def test_a_swiss_round_seated_on_the_running_hall_takes_its_results(hall_process, broker):
    hall_process.start()
    play_the_doc_s_games(broker)
    folder = hall_process.folder
    added = hall("seating", "swiss", "--round", "3", cwd=folder)
    assert added.returncode == 0, added.stderr
    round_3 = [line for line in added.stdout.splitlines() if line.startswith("round 3")]
    assert len(round_3) == 2 and "(5)" in round_3[0]  # Ed, first in the standings, at table 1
    one = Table(broker, "demo-1")
    with one.mqtt:
        one.send("k-r3", GAMES[0][3], 3)
        one.wait_ack("k-r3")
    assert "round 3 table 1 (demo-1): result k-r3 stored" in hall_process.logs()
    again = hall("seating", "swiss", "--round", "3", cwd=folder)
    assert (again.returncode, again.stderr) == (2, "mjtable hall seating: round 3 is seated already; nothing changed\n")


def test_a_killed_hall_s_socket_is_no_obstacle_to_the_director(hall_process, broker):
    hall_process.start()
    hall_process.stop(signal.SIGKILL)  # its socket file stays behind, nobody answering there
    assert (hall_process.folder / "hall.db.sock").exists()
    assert given(hall_process.folder, "penalty", "2", "warning").startswith("penalty (warning) 1: player 2")
    hall_process.start()  # a new hall serves the socket again
    assert given(hall_process.folder, "penalty", "2", "warning").startswith("penalty (warning) 2: player 2")
    assert "director's record" in hall_process.log.read_text()
    bo = next(r for r in standings_json(hall_process.url)["standings"] if r["number"] == 2)
    assert bo["warnings"] == 2
