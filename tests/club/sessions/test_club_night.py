"""A club night through the console script, as docs/SESSIONS.md tells a club: `mjtable run
--seed N` on `mjtable sim`, `mjtable session start --show-totals`, three East-only games of
named players whose seats the table draws (and one game abandoned on the way), then
`mjtable session show --json` against totals worked out by hand from the journals'
finals (`mjtable journal`); the refusals, each exit 2 with nothing changed. The first
game's results are typed with `mjtable result`; the later games' go to the control socket
in process (the same `result` op, without an interpreter's start-up per hand: the CLI's
results are tested in tests/cli and tests/e2e)."""
import csv
import io
import json
import signal

import pytest

from ...e2e.e2e_harness import PROFILES, REPO, SPEED, Processes, TableSession, mjtable, ron, start_sim, wait_for
from ...e2e.e2e_harness import stderr_of, wait_until_serving
from ...support.folders import short_folder

PLAYERS = ("Ann:EMA=04010001", "Bo", "Cy:CLUB=17", "Di")
SEED = "11"
# One pattern by seat for every game, E1 to E4 (the dealer is seat 0, 1, 2, 3; a winner is
# never the dealer, so the deal passes each hand and the game ends after E4):
#   E1 seat 1 rons seat 0, 3 han 40 fu: 40 x 2^5 = 1280 x 4 = 5120 -> 5200   [24800, 35200, 30000, 30000]
#   E2 seat 2 rons seat 1, 1 han 30 fu: 30 x 2^3 = 240 x 4 = 960 -> 1000     [24800, 34200, 31000, 30000]
#   E3 seat 0 rons seat 2, 2 han 30 fu: 30 x 2^4 = 480 x 4 = 1920 -> 2000    [26800, 34200, 29000, 30000]
#   E4 seat 0 rons seat 2, 2 han 30 fu: 2000                                 [28800, 34200, 27000, 30000]
HAND_FIGURES = [((1, 3, 40), 0), ((2, 1, 30), 1), ((0, 2, 30), 2), ((0, 2, 30), 2)]  # (winner, han, fu), discarder
# places: seat 1, seat 3, seat 0, seat 2; final score = score - 30000 return + uma 15000/5000/-5000/-15000
FINAL = {"final": True, "scores": [28800, 34200, 27000, 30000],
         "final_scores": [28800 - 30000 - 5000, 34200 - 30000 + 15000, 27000 - 30000 - 15000, 30000 - 30000 + 5000],
         "ranks": [3, 1, 4, 2]}


class SeededSession(TableSession):
    """`mjtable run --config ... --seed N`: the draws are the seed's."""

    def start_controller(self) -> None:
        self.run = self.procs.start("run", "--config", str(self.config), "--seed", SEED, name="run")
        wait_until_serving(self.run, self.client)


def east_only(folder):
    """The EMA preset with the East round alone: four hands a game."""
    text = (REPO / "config" / "rulesets" / "ema-2016.yaml").read_text()
    assert "\n  rounds: 2 " in text and "\nname: ema-2016\n" in text
    path = folder / "club-east.yaml"
    path.write_text(text.replace("\n  rounds: 2 ", "\n  rounds: 1 ").replace("\nname: ema-2016\n", "\nname: club-east\n"))
    return path


def wait_state(session, state: str) -> None:
    wait_for(lambda: session.polled_status()["state"] == state, f"state {state}")


def play(session, typed: bool) -> None:
    session.ok("start", "--players", *PLAYERS, "--seating", "draw")
    seq = 0
    for (winner, han, fu), discarder in HAND_FIGURES:
        seq = session.wait_hand_after(seq)["hand_in_play"]["seq"]
        if typed:
            session.ok("result", *ron(discarder, (winner, han, fu)))
        else:
            session.client.request("result", hand=seq, result={
                "kind": "ron", "discarder": discarder, "winners": [{"seat": winner, "han": han, "fu": fu}]})
    wait_state(session, "game_over")


def journal(folder, game: int) -> list[dict]:
    done = mjtable("journal", "--db", str(folder / "state.db"), "--game", str(game))
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def show(session, *args) -> dict:
    return json.loads(session.ok("session", "show", *args, "--json"))


@pytest.fixture
def night():
    with short_folder("mjclub") as folder:
        procs = Processes(folder)
        trace = folder / "trace.jsonl"
        try:
            _, port = start_sim(procs, "--pty", "--profile", str(PROFILES / "four-port.yaml"), "--speed", str(SPEED),
                                "--trace", str(trace))
            session = SeededSession(procs, port, "four-port", str(east_only(folder)))
            started = json.loads(session.ok("session", "start", "--name", "Friday club", "--show-totals", "--json"))
            play(session, typed=True)
            session.ok("start", "--players", *PLAYERS, "--seating", "draw")  # a game given up after one hand
            session.wait_hand_after(0)
            session.ok("abandon")
            play(session, typed=False)
            play(session, typed=False)
            report = show(session)
            journals = {g["id"]: journal(folder, g["id"]) for g in report["games"] if g["status"] == "finished"}
            yield session, started, report, journals, trace
        finally:
            procs.stop_all()


def test_a_club_night_through_the_console_script(night):
    # one test, so that the night is played once (a module's tests may run on several workers)
    the_totals_follow_the_people_through_the_drawn_seats(*night)
    status_the_words_and_the_seat_displays_show_the_session(*night)
    bad_requests_exit_2_and_change_nothing_and_an_ended_session_reads_without_the_controller(*night)


def the_totals_follow_the_people_through_the_drawn_seats(session, started, report, journals, trace):
    assert started["session"] == {"id": 1, "name": "Friday club", "show_totals": True,
                                  "started_at": started["session"]["started_at"], "games": 0}
    # the abandoned game is listed, not counted
    assert [(g["status"], g["counted"]) for g in report["games"]] == [
        ("finished", True), ("abandoned", False), ("finished", True), ("finished", True)]
    assert report["session"]["games"] == 4 and report["session"]["ended_at"] is None
    finished = list(journals.values())
    assert len(finished) == 3 and all(j[-1].get("final") for j in finished)
    # the draws moved the players: a seat is another person from one game to the next
    seatings = [[p["name"] for p in j[0]["players"]] for j in finished]
    assert seatings[0] != seatings[1] and seatings[1] != seatings[2], seatings
    # the totals by hand: each game's final (worked out above) added up per name at its seat
    expected: dict[str, dict] = {}
    for journal in finished:
        seating, final = journal[0], journal[-1]
        assert seating["session"] == 1 and all("session" not in r for r in journal[1:])
        assert {k: final[k] for k in FINAL} == FINAL
        for seat, player in enumerate(seating["players"]):
            line = expected.setdefault(player["name"], {"games": 0, "score": 0, "table_points": 0, "ranks": []})
            line["games"] += 1
            line["score"] += final["scores"][seat]
            line["table_points"] += final["final_scores"][seat]
            line["ranks"].append(final["ranks"][seat])
    totals = {t["name"]: t for t in report["totals"]}
    assert {name: {k: t[k] for k in ("games", "score", "table_points", "ranks")} for name, t in totals.items()} \
        == expected
    for name, line in expected.items():
        assert totals[name]["average_rank"] == round(sum(line["ranks"]) / 3, 2)
    assert [t["table_points"] for t in report["totals"]] == sorted(
        (line["table_points"] for line in expected.values()), reverse=True)
    assert totals["Ann"]["ema_id"] == "04010001" and totals["Cy"]["club_id"] == "17"


def _seat_texts_since(trace, start: int) -> dict[int, str]:
    """The last text each seat display was given from trace line ``start`` on."""
    texts = {}
    for line in trace.read_text().splitlines()[start:]:
        record = json.loads(line)
        if record.get("dir") == "cmd" and record.get("name") == "show_text" and record["args"]["seats"]:
            texts[record["args"]["seats"].bit_length() - 1] = record["args"]["text"]
    return texts


def status_the_words_and_the_seat_displays_show_the_session(session, started, report, journals, trace):
    status = session.polled_status()
    assert status["session"]["id"] == 1 and status["session"]["games"] == 4
    text = session.ok("status")
    assert "session 1 (Friday club): 4 game(s) since " in text
    # game over: the final standings by player, first place first
    names = {p["seat"]: p["name"] for p in status["seat_players"]}
    final_line = next(line for line in text.splitlines() if line.startswith("final: "))
    assert final_line == "final: " + " · ".join(
        f"{rank} {names[seat]} {FINAL['final_scores'][seat]:+d}" for rank, seat in sorted(
            (rank, seat) for seat, rank in enumerate(FINAL["ranks"])))
    by_place = " ".join(f"{rank} {names[seat]}" for rank, seat in sorted(
        (rank, seat) for seat, rank in enumerate(FINAL["ranks"])))
    assert f"game over: final scores {FINAL['final_scores']}; final {by_place}\n" in stderr_of(session.run)
    out = session.ok("session", "show").splitlines()
    assert out[0].startswith("session 1 (Friday club) · started ") and out[0].endswith(" · open · 4 game(s)")
    rows = [line.split() for line in out if line[:1].isdigit()]
    assert [row[1] for row in rows] == [t["name"] for t in report["totals"]]
    assert [int(row[-3]) for row in rows] == [t["table_points"] for t in report["totals"]]
    # the same totals as CSV, for a spreadsheet (docs/SESSIONS.md)
    table = list(csv.DictReader(io.StringIO(session.ok("session", "show", "--csv"))))
    assert [(r["place"], r["name"], r["table_points"]) for r in table] == [
        (str(place), t["name"], str(t["table_points"])) for place, t in enumerate(report["totals"], 1)]
    assert list(table[0]) == ["place", "name", "ema_id", "club_id", "games", "table_points", "score", "average_rank"]
    # after the last game's end each seat display shows its player's running total; on request too
    totals = {t["name"]: t["table_points"] for t in report["totals"]}
    expected = {seat: f"{name} total {totals[name]:+d}" for seat, name in names.items()}
    assert _seat_texts_since(trace, 0) == expected
    before = len(trace.read_text().splitlines())
    session.ok("session", "show", "--on-table")
    assert _seat_texts_since(trace, before) == expected


def bad_requests_exit_2_and_change_nothing_and_an_ended_session_reads_without_the_controller(
        session, started, report, journals, trace):
    again = session.cli("session", "start", "--name", "another")
    assert again.returncode == 2
    assert again.stderr.startswith("mjtable session: session 1 (Friday club) is open (since ")
    unknown = session.cli("session", "show", "--session", "7")
    assert (unknown.returncode, unknown.stderr) == (2, "mjtable session: no session 7; known: 1\n")
    assert show(session) == report and session.polled_status()["session"]["games"] == 4
    ended = json.loads(session.ok("session", "end", "--json"))
    assert ended["session"]["ended_at"] and ended["totals"] == report["totals"]
    twice = session.cli("session", "end")
    assert (twice.returncode, twice.stderr) == (2, "mjtable session: no session is open; nothing to end\n")
    assert session.polled_status()["session"] is None
    assert show(session) == ended  # the latest session, ended
    session.stop_controller(signal.SIGTERM)
    assert json.loads(session.ok("session", "show", "--json", where="--config")) == {"ok": True, **ended}
    unknown = session.cli("session", "show", "--session", "7", where="--config")
    assert (unknown.returncode, unknown.stderr) == (2, "mjtable session: no session 7; known: 1\n")
