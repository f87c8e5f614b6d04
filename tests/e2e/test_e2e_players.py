"""Named players and drawn seating, through the console scripts: `mjtable start --players ...
--seating draw` against `mjtable sim`, the names on the seat displays (the simulator's
trace), in `mjtable status` and in both journal formats; the draw the same for the same
`mjtable run --seed`; bad players refused with a clear message, nothing started."""
import csv
import io
import json
import signal

import pytest

from .e2e_harness import TableSession, draw, traced_four_port_table, wait_until_serving

PLAYERS = ("Ann:EMA=04010001", "Bo", "Cy:CLUB=17", "Di")
NAMES = {"Ann", "Bo", "Cy", "Di"}
WINDS = ("East", "South", "West", "North")
SEED = "7"


class SeededSession(TableSession):
    """The controller run as `mjtable run --config ... --seed N`."""

    def start_controller(self) -> None:
        self.run = self.procs.start("run", "--config", str(self.config), "--seed", SEED, name="run")
        wait_until_serving(self.run, self.client)


@pytest.fixture(scope="module")
def table():
    """A four-port table (seat displays) whose simulator writes its trace; the controller seeded."""
    with traced_four_port_table("mjpl", SeededSession) as (session, trace, _):
        yield session, trace


def _seat_texts(trace) -> dict[int, str]:
    """The last text each seat display was given (a one-seat mask)."""
    texts = {}
    for line in trace.read_text().splitlines():
        record = json.loads(line)
        if record.get("dir") == "cmd" and record.get("name") == "show_text" and record["args"]["seats"]:
            texts[record["args"]["seats"].bit_length() - 1] = record["args"]["text"]
    return texts


@pytest.fixture(scope="module")
def drawn(table):
    """A game started with named players and drawn seats; one hand played; then abandoned."""
    session, trace = table
    session.ok("start", "--players", *PLAYERS, "--seating", "draw")
    playing = session.wait_hand_after(0)
    status_text = session.ok("status")
    session.ok("result", *draw())
    session.wait_hand_after(playing["hand_in_play"]["seq"])
    journal = session.journal()
    table_csv = session.ok("journal", "--format", "csv", where="--config")
    session.ok("abandon")
    return playing, status_text, journal, table_csv, _seat_texts(trace)


def test_status_names_each_seat_and_the_draw(drawn):
    playing, status_text, *_ = drawn
    assert playing["seating"] == "draw"
    assert {p["name"] for p in playing["seat_players"]} == NAMES
    assert [p["name"] for p in playing["seat_players"]] != ["Ann", "Bo", "Cy", "Di"]  # seed 7 moves them
    assert [p["seat"] for p in playing["seat_players"]] == [0, 1, 2, 3]
    ann = next(p for p in playing["seat_players"] if p["name"] == "Ann")
    assert ann["ema_id"] == "04010001"
    for p in playing["seat_players"]:
        assert any(line.startswith(f"  seat {p['seat']} ") and line.endswith(p["name"])
                   for line in status_text.splitlines()), status_text
    assert "seats drawn by the table" in status_text


def test_each_seat_display_shows_its_player_and_starting_wind(drawn):
    playing, *_, seat_texts = drawn
    dealer = playing["starting_dealer"]
    for p in playing["seat_players"]:
        assert seat_texts[p["seat"]] == f"{p['name']} {WINDS[(p['seat'] - dealer) % 4]}"


def test_the_journal_opens_with_the_seating_and_carries_the_players(drawn):
    playing, _, journal, *_ = drawn
    by_seat = [{k: v for k, v in p.items() if k != "seat"} for p in playing["seat_players"]]
    assert journal[0] == {"seating": "draw", "players": by_seat}
    assert [r["players"] for r in journal[1:]] == [[p["name"] for p in by_seat]]
    assert journal[1]["result"]["kind"] == "draw"


def test_the_csv_has_a_player_column_per_seat(drawn):
    playing, *_, table_csv, _ = drawn
    rows = list(csv.DictReader(io.StringIO(table_csv)))
    assert [r["hand"] for r in rows] == ["seating", "E1"]
    assert rows[0]["seating"] == "draw"
    names = [p["name"] for p in playing["seat_players"]]
    assert [rows[1][f"players_{s}"] for s in range(4)] == names
    assert rows[0][f"players_{names.index('Ann')}"] == "Ann:EMA=04010001"
    assert rows[0][f"players_{names.index('Cy')}"] == "Cy:CLUB=17"


def test_the_same_seed_draws_the_same_seats(table, drawn):
    session, _ = table
    playing, *_ = drawn
    session.stop_controller(signal.SIGTERM)
    session.start_controller()
    again = json.loads(session.ok("start", "--players", *PLAYERS, "--seating", "draw", "--json"))
    session.ok("abandon")
    assert again["seat_players"] == playing["seat_players"]


def test_players_as_given_keep_their_order_through_a_restart(table, drawn):
    session, _ = table
    started = json.loads(session.ok("start", "--players", "Di", "Cy", "Bo", "Ann", "--json"))
    session.stop_controller(signal.SIGKILL)
    session.start_controller()  # the game resumed from the state database
    resumed = session.status()
    session.ok("abandon")
    assert [p["name"] for p in started["seat_players"]] == ["Di", "Cy", "Bo", "Ann"]
    assert started["seating"] == "as-given"
    assert (resumed["seat_players"], resumed["seating"]) == (started["seat_players"], "as-given")


@pytest.mark.parametrize("args, message", [
    (("--players", "Ann", "Bo", "Cy"), "this rule set seats 4 players; 3 given"),
    (("--players", "Ann", "Bo", "ann", "Di"), "'ann' is given twice"),
    (("--players", "Ann", " ", "Cy", "Di"), "a player's name is empty"),
    (("--players", "Ann", "Bo", "Cy", "Wilhelmina-Katharina"), "too long for the seat displays"),
    (("--players", "Ann:EMA=123", "Bo", "Cy", "Di"), "Ann's EMA ID is 8 digits"),
    (("--seating", "draw"), "seating draw needs the players"),
])
def test_bad_players_are_refused_and_nothing_starts(table, drawn, args, message):
    session, _ = table
    refused = session.cli("start", *args)
    assert refused.returncode != 0 and message in refused.stderr, refused.stderr
    status = session.polled_status()
    assert "scores" not in status and status["state"] == "idle"


def test_an_identifier_of_unknown_kind_is_a_usage_error(table):
    session, _ = table
    refused = session.cli("start", "--players", "Ann:FIDE=1", "Bo", "Cy", "Di")
    assert refused.returncode == 2 and "an identifier is EMA=ID or CLUB=ID" in refused.stderr
