"""A tournament round through the console scripts, as docs/TOURNAMENT.md tells a director:
`mjtable run` on a table whose config says `table: {number: 7}`, `mjtable schedule import
--players players.csv schedule.csv`, `mjtable start --round 2`: the expected player's name
and wind on each seat display before the first dice (the simulator's trace), in status
and in the journal's seating record; a whole game played; then `mjtable export ema|players|
journal` checked field by field against figures worked out by hand. Bad files and starts
the schedule cannot seat are refused with a clear message, nothing changed."""
import csv
import io
import json
import re
import signal
from pathlib import Path

import pytest

from controller.cli import main as cli_main
from controller.api.client import RequestError

from ...e2e.e2e_harness import TableSession, mjtable, traced_four_port_table, wait_for

TABLE = 7
TOURNAMENT_MD = Path(__file__).resolve().parents[3] / "docs" / "TOURNAMENT.md"


def doc_block(first_line: str) -> str:
    """The fenced block of docs/TOURNAMENT.md that begins with ``first_line``: the test
    imports the files the page shows and expects the output it shows."""
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", TOURNAMENT_MD.read_text(), re.S | re.M)
    found = [b for b in blocks if b.startswith(first_line)]
    assert len(found) == 1, f"docs/TOURNAMENT.md has {len(found)} blocks beginning {first_line!r}"
    return found[0]


# Table 7 seats Ann, Bo, Cy, Di in round 1 and Fay, Cy, Hal, Ann in round 2; round 3 only tables 1-2.
PLAYERS_CSV = doc_block("number,name,ema_id,club_id\n")
SCHEDULE_CSV = doc_block("round,table,east,south,west,north\n")
ROUND_2 = [("Fay", "East"), ("Cy", "South"), ("Hal", "West"), ("Ann", "North")]  # seats 0-3
# The game (the results as `mjtable result` sends them): E1 (dealer seat 0) Cy (seat 1) ron on
# Hal (seat 2), 3 han 40 fu: 5,200; E2 (dealer seat 1) Ann (seat 3) ron on Fay (seat 0), 2 han
# 30 fu: 2,000; then six draws, nobody tenpai (no payment; the dealer moves on each time):
# E3 E4 S1 S2 S3 S4, and the game is over.
HANDS = [{"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}]},
         {"kind": "ron", "discarder": 0, "winners": [{"seat": 3, "han": 2, "fu": 30}]},
         *[{"kind": "draw", "tenpai": []}] * 6]
SCORES = [28000, 35200, 24800, 32000]
# EMA: minus the 30,000 returned, plus uma 15,000 / 5,000 / -5,000 / -15,000 by place (no oka).
TABLE_POINTS = [-2000 - 5000, 5200 + 15000, -5200 - 15000, 2000 + 5000]
RANKS = [3, 1, 4, 2]


class NumberedTable(TableSession):
    """`mjtable run --config` with a table config that gives this table its number."""

    def start_controller(self) -> None:
        if "table:" not in self.config.read_text():
            self.config.write_text(self.config.read_text() + f"table: {{number: {TABLE}}}\n")
        super().start_controller()


def _seat_texts(trace: list[dict]) -> dict[int, str]:
    """The last text each seat display was given (a one-seat mask)."""
    return {r["args"]["seats"].bit_length() - 1: r["args"]["text"] for r in trace
            if r.get("dir") == "cmd" and r.get("name") == "show_text" and r["args"]["seats"]}


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def tournament():
    """The schedule imported (after refused files), refused starts, then round 2 played to its end."""
    with traced_four_port_table("mjrd", NumberedTable) as (session, trace, folder):
        (folder / "players.csv").write_text(PLAYERS_CSV)
        (folder / "schedule.csv").write_text(SCHEDULE_CSV)
        (folder / "no7.csv").write_text("round,table,east,south,west,north\n1,1,1,2,3,4\n1,2,5,6,7,8\n")
        seen = {"elsewhere": _import(session, folder / "no7.csv"),
                "imported": _import(session, folder / "schedule.csv")}
        seen["bad_import"] = _bad_import(session, folder)
        seen["refused"] = {name: _refused_start(session, args) for name, args in REFUSED_STARTS.items()}
        seen["refused_cli"] = session.cli("start", "--round", "3")
        seen["idle_after_refusals"] = session.polled_status()
        mark = len(trace.read_text().splitlines())
        seen["started"] = json.loads(session.ok("start", "--round", "2", "--json", where="--config"))
        seen["before_the_signal"] = wait_for(
            lambda: (status := session.polled_status())["state"] == "awaiting_start" and status,
            "the dice waiting for the start signal")
        session.ok("signal", "start")  # a round is on the EMA clock: the first dice wait for it
        seq = session.wait_hand_after(0)["hand_in_play"]["seq"]
        seen["opening"] = [json.loads(line) for line in trace.read_text().splitlines()[mark:]]
        seen["status_text"] = session.ok("status")
        session.stop_controller(signal.SIGKILL)
        session.start_controller()  # the round and table come back from the state database
        seen["resumed"] = session.polled_status()
        db = ("--db", str(folder / "state.db"))
        for n, result in enumerate(HANDS, 1):  # entered over the API: `mjtable result` is not tested here
            seq = session.wait_hand_after(seq - 1)["hand_in_play"]["seq"]
            if n == len(HANDS):  # the hall's warning in the last hand: the game is complete after it
                seen["warned"] = json.loads(session.ok("signal", "warning", "--json"))
            session.client.request("result", hand=seq, result=result)
            seq += 1
        session.wait_game_over()
        seen["over"] = session.polled_status()
        seen["journal"] = [json.loads(line) for line in mjtable("journal", *db).stdout.splitlines()]
        seen["exports"] = {kind: mjtable("export", kind, "--round", "2", *db).stdout
                           for kind in ("players", "journal")}
        out = folder / "results.csv"
        seen["ema_stdout"] = session.ok("export", "ema", "--round", "2", "--out", str(out), where="--config")
        seen["exports"]["ema"] = out.read_text()
        seen["no_round_1"] = mjtable("export", "ema", "--round", "1", *db)
        yield session, seen


REFUSED_STARTS = {  # the start op's arguments; the CLI's refusal is checked once (round 3)
    "with players": {"round": 2, "players": [{"name": n} for n in ("Ann", "Bo", "Cy", "Di")]},
    "with a dealer": {"round": 2, "dealer": "draw"},
    "unknown round": {"round": 9},
    "another table's round": {"round": 3},
    "three seats": {"round": 2, "ruleset": "sanma"},
}


def _refused_start(session: NumberedTable, args: dict) -> str:
    with pytest.raises(RequestError) as refused:
        session.client.request("start", **args)
    return f"{refused.value.code}: {refused.value.message}"


def _import(session: NumberedTable, schedule) -> object:
    """`mjtable schedule import --players players.csv SCHEDULE --config ...`."""
    return session.cli("schedule", "import", "--players", str(schedule.with_name("players.csv")), str(schedule),
                       where="--config")


def _bad_import(session: NumberedTable, folder) -> dict:
    """docs/TOURNAMENT.md's refused files, imported over the good schedule; then what is stored."""
    bad = folder / "bad"
    bad.mkdir()
    (bad / "players.csv").write_text(PLAYERS_CSV + doc_block("9,ann,"))
    (bad / "schedule.csv").write_text(SCHEDULE_CSV + doc_block("4,7,"))
    refused = mjtable("schedule", "import", "--players", "players.csv", "schedule.csv", "--socket", str(session.socket),
                      cwd=bad)
    api = None
    try:
        session.client.request("schedule_import", players=[{"number": 1, "name": "Ann"}], tables=[[1, 7, 1, 1, 1]])
    except RequestError as exc:
        api = exc
    shown = mjtable("schedule", "show", "--db", str(folder / "state.db")).stdout
    return {"refused": refused, "api": api, "shown": shown}


def test_the_import_says_what_it_took_and_where_this_table_plays(tournament):
    _, seen = tournament
    imported = seen["imported"]
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == doc_block("$ mjtable schedule import --players").splitlines()[1]
    assert imported.stdout.strip() == "imported 8 players, rounds 1-3; table 7 plays in rounds 1-2"
    assert imported.stderr == ""


def test_schedule_show_lists_a_rounds_tables(tournament):
    _, seen = tournament
    shown = seen["bad_import"]["shown"].splitlines()
    assert [line for line in shown if line.startswith("round 2 ")] == doc_block("round 2 table 6:").splitlines()
    assert shown[3] == ("round 2 table 7: East Fay (6, EMA 04030006) · South Cy (3, EMA 04020003) "
                                             "· West Hal (8) · North Ann (1, EMA 04010001)")


def test_schedule_show_takes_one_round(tournament, capsys):
    session, _ = tournament
    db = str(session.procs.folder / "state.db")
    assert cli_main(["schedule", "show", "--round", "2", "--db", db]) == 0
    assert capsys.readouterr().out == doc_block("round 2 table 6:")
    assert cli_main(["schedule", "show", "--round", "4", "--db", db]) == 1
    assert capsys.readouterr().err == "mjtable schedule show: the schedule has no round 4 (it has rounds 1-3)\n"


def test_a_bad_schedule_is_refused_with_every_problem_and_nothing_changes(tournament):
    _, seen = tournament
    bad = seen["bad_import"]
    refused = bad["refused"]
    assert refused.returncode == 2
    assert refused.stderr == doc_block("mjtable schedule import: the schedule is refused")
    assert refused.stderr.splitlines()[3:] == [
        "  schedule.csv:8: unknown player number 99: players.csv has no such player",
        "  schedule.csv:9: player 5 (Ed) sits twice at table 6 in round 4",
        "  schedule.csv:10: player 2 (Bo) sits at table 1 and at table 7 (schedule.csv:8) in round 4",
        "  schedule.csv:11: round 1 table 7 is given twice (first at schedule.csv:3)",
    ]
    assert bad["api"].code == "bad_request" and "tables[0]: player 1 (Ann) sits twice at table 7 in round 1" in \
        bad["api"].message
    # the schedule imported before is kept whole
    assert len(bad["shown"].splitlines()) == 6 and "round 4" not in bad["shown"]


def test_a_schedule_without_this_table_is_taken_with_a_warning(tournament):
    _, seen = tournament
    elsewhere = seen["elsewhere"]
    assert elsewhere.returncode == 0
    assert elsewhere.stdout.strip() == "imported 8 players, round 1"
    assert elsewhere.stderr == doc_block("mjtable schedule import: warning:")
    assert elsewhere.stderr.strip() == ("mjtable schedule import: warning: the schedule never seats table 7 (it seats "
                                        "tables 1-2): check table.number in the table config")


def test_starts_the_schedule_cannot_seat_are_refused_and_nothing_starts(tournament):
    _, seen = tournament
    assert seen["refused"] == {
        "with players": "bad_request: a round takes its seats and its East from the schedule: start it without players",
        "with a dealer": "bad_request: a round takes its seats and its East from the schedule: start it without dealer",
        "unknown round": "not_allowed: the schedule has no round 9 (it has rounds 1-3)",
        "another table's round": "not_allowed: the schedule seats tables 1-2 in round 3, not table 7",
        "three seats": "not_allowed: the schedule seats 4 players at table 7 in round 2; rule set sanma seats 3",
    }
    cli = seen["refused_cli"]
    assert cli.returncode == 1
    assert cli.stderr.strip() == "mjtable start: the schedule seats tables 1-2 in round 3, not table 7"
    status = seen["idle_after_refusals"]
    assert status["state"] == "idle" and "scores" not in status and status["ruleset"] == "ema-2016"


def test_before_the_first_dice_each_seat_shows_its_expected_player_and_wind(tournament):
    _, seen = tournament
    opening = seen["opening"]
    first_dice = next(i for i, r in enumerate(opening) if r.get("dir") == "cmd" and r.get("name") == "roll_dice")
    assert _seat_texts(opening[:first_dice]) == {seat: f"{name} {wind}" for seat, (name, wind) in enumerate(ROUND_2)}
    centre = [r["args"]["text"] for r in opening[:first_dice]
              if r.get("dir") == "cmd" and r.get("name") == "show_text" and not r["args"]["seats"]]
    assert centre[0] == "round 2 table 7"


def test_a_rounds_first_dice_wait_for_the_start_signal_with_the_seats_shown(tournament):
    _, seen = tournament
    waiting = seen["before_the_signal"]
    assert "start signal" in waiting["waiting_for"]
    assert waiting["time_limit"]["session_minutes"] == 90 and waiting["time_limit"]["started_at"] is None
    assert [p["name"] for p in waiting["seat_players"]] == [name for name, _ in ROUND_2]


def test_status_shows_the_expected_seats_with_the_round_and_table(tournament):
    _, seen = tournament
    started = seen["started"]
    assert (started["round"], started["table"], started["seating"]) == (2, 7, "schedule")
    assert started["starting_dealer"] == 0
    assert [(p["seat"], p["name"]) for p in started["seat_players"]] == [
        (seat, name) for seat, (name, _) in enumerate(ROUND_2)]
    assert started["seat_players"][3] == {"seat": 3, "name": "Ann", "ema_id": "04010001"}
    assert doc_block("  seat 0  East") in seen["status_text"]
    assert "  seats of round 2 at table 7, from the schedule" in seen["status_text"].splitlines()
    resumed = seen["resumed"]
    assert (resumed["round"], resumed["table"], resumed["seat_players"]) == (2, 7, started["seat_players"])


def test_the_journal_records_the_schedules_seating(tournament):
    _, seen = tournament
    journal = seen["journal"]
    assert journal[0] == json.loads(doc_block('{"seating": "schedule"'))
    assert journal[0] == {"seating": "schedule", "round": 2, "table": 7, "players": [
        {"name": "Fay", "ema_id": "04030006"}, {"name": "Cy", "ema_id": "04020003"}, {"name": "Hal"},
        {"name": "Ann", "ema_id": "04010001"}]}
    assert journal[1]["time_signal"] == "start" and journal[1]["by"] == "director"  # `mjtable signal start`
    assert [r.get("hand") for r in journal[2:-1]] == ["E1", "E2", "E3", "E4", "S1", "S2", "S3", None, "S4"]
    assert journal[-3]["time_signal"] == "warning" and journal[-3]["dice_thrown"] is True
    assert journal[-1] == {"final": True, "scores": SCORES, "final_scores": TABLE_POINTS, "ranks": RANKS,
                           "players": ["Fay", "Cy", "Hal", "Ann"]}


def test_a_warning_in_the_rounds_last_hand_ends_the_game_by_its_rules_not_by_time(tournament):
    _, seen = tournament
    clock = seen["warned"]["time_limit"]
    assert clock["signalled"] and clock["signalled_by"] == "director" and clock["hands_left"] == 2  # S4 and one more
    over = seen["over"]
    assert over["finished"] and "ended" not in over and not over["time_limit"]["ended"]


def test_export_ema_gives_the_rounds_results_by_position(tournament):
    _, seen = tournament
    assert _csv(seen["exports"]["ema"]) == [
        {"round": "2", "table": "7", "position": "1", "name": "Cy", "ema_id": "04020003", "table_points": "20200",
         "score": "35200"},
        {"round": "2", "table": "7", "position": "2", "name": "Ann", "ema_id": "04010001", "table_points": "7000",
         "score": "32000"},
        {"round": "2", "table": "7", "position": "3", "name": "Fay", "ema_id": "04030006", "table_points": "-7000",
         "score": "28000"},
        {"round": "2", "table": "7", "position": "4", "name": "Hal", "ema_id": "", "table_points": "-20200",
         "score": "24800"},
    ]
    assert seen["exports"]["ema"] == doc_block("round,table,position,")
    assert seen["ema_stdout"] == ""  # all of it went to --out
    assert seen["no_round_1"].returncode == 1
    assert seen["no_round_1"].stderr.strip() == "mjtable export ema: no game of round 1 in " + str(
        tournament[0].procs.folder / "state.db")


def test_export_players_gives_a_row_per_player_and_game(tournament):
    _, seen = tournament
    assert seen["exports"]["players"] == doc_block("name,ema_id,club_id,game,")
    rows = _csv(seen["exports"]["players"])
    game = rows[0]["game"]
    common = {"game": game, "status": "finished", "round": "2", "table": "7", "session": "", "club_id": ""}
    assert rows == [
        {**common, "name": "Ann", "ema_id": "04010001", "seat": "3", "wind": "North", "score": "32000",
         "table_points": "7000", "rank": "2"},
        {**common, "name": "Cy", "ema_id": "04020003", "seat": "1", "wind": "South", "score": "35200",
         "table_points": "20200", "rank": "1"},
        {**common, "name": "Fay", "ema_id": "04030006", "seat": "0", "wind": "East", "score": "28000",
         "table_points": "-7000", "rank": "3"},
        {**common, "name": "Hal", "ema_id": "", "seat": "2", "wind": "West", "score": "24800",
         "table_points": "-20200", "rank": "4"},
    ]


def test_export_journal_is_the_journal_with_each_records_game(tournament):
    _, seen = tournament
    exported = [json.loads(line) for line in seen["exports"]["journal"].splitlines()]
    game = int(_csv(seen["exports"]["players"])[0]["game"])
    assert exported == [{"game": game, **record} for record in seen["journal"]]


def test_a_schedule_too_big_for_one_request_is_refused_before_sending(tmp_path):
    players = "number,name\n" + "".join(f"{n},Player {n}\n" for n in range(1, 4001))
    rounds = "round,table,east,south,west,north\n" + "".join(
        f"{r},{t},{4 * t - 3},{4 * t - 2},{4 * t - 1},{4 * t}\n" for r in range(1, 3) for t in range(1, 1001))
    (tmp_path / "players.csv").write_text(players)
    (tmp_path / "schedule.csv").write_text(rounds)
    done = mjtable("schedule", "import", "--players", str(tmp_path / "players.csv"), str(tmp_path / "schedule.csv"),
                   "--socket", str(tmp_path / "no.sock"))
    assert done.returncode == 2
    assert done.stderr.startswith("mjtable schedule import: the schedule takes 1") and \
        "more than the control API takes in one request (64 KB); nothing changed" in done.stderr
