"""`mjtable session` for people: what start and end print (the report itself is read
through the console script in test_club_night.py)."""
from controller.commands.session import describe

SESSION = {"id": 2, "name": "Friday club", "show_totals": True, "started_at": "2026-12-01T19:02:11.402+00:00"}


def test_start_says_what_belongs_to_the_session():
    assert describe("start", {"session": {**SESSION, "games": 0}}) == (
        "session 2 (Friday club) started: the games started from now on belong to it; "
        "the totals show on the table after each game")
    assert describe("start", {"session": {**SESSION, "name": "", "show_totals": False, "games": 0}}) == (
        "session 2 started: the games started from now on belong to it")


def test_end_prints_the_totals_of_the_session_it_closed():
    report = {"session": {**SESSION, "ended_at": "2026-12-01T23:40:00.000+00:00", "games": 1},
              "games": [{"id": 7, "status": "active", "counted": False, "players": []}], "totals": []}
    assert describe("end", report).splitlines() == [
        "session 2 (Friday club) ended",
        "session 2 (Friday club) · started 2026-12-01T19:02:11.402+00:00 · ended 2026-12-01T23:40:00.000+00:00"
        " · 1 game(s)",
        "  game 7    in play    not counted  anonymous",
        "no totals yet: no finished game with named players",
    ]
