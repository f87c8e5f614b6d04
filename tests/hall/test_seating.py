"""Seating generated through `mjtable hall seating`: shuffled with no repeat meeting where
one exists, imported as it is written, printed by name with the repeat-meetings report;
Swiss by the standings, added as the next round."""
from __future__ import annotations

from controller.hall.seating import meetings, repeat_report, shuffled, swiss

from .conftest import enter, hall
from .test_tournament import tournament_files


def test_sixteen_players_meet_at_most_once_in_five_rounds():
    rounds = shuffled(list(range(1, 17)), 5, seed=3)
    assert max(meetings(rounds).values()) == 1
    assert sorted(n for table in rounds[0] for n in table) == list(range(1, 17))
    assert repeat_report(rounds) == ["no pair meets twice"]


def test_the_report_names_who_meets_whom_again():
    assert repeat_report([[[1, 2, 3, 4]], [[1, 2, 5, 6]]]) == ["1 pairs meet more than once", "1: 2 twice", "2: 1 twice"]


def test_swiss_seats_by_the_standings_and_avoids_a_pair_meeting_again():
    assert [sorted(t) for t in swiss(list(range(1, 9)), [])] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert [sorted(t) for t in swiss(list(range(1, 9)), [[[1, 2, 7, 8]]])] == [[1, 3, 4, 5], [2, 6, 7, 8]]


def test_a_generated_seating_is_imported_and_shown(files):
    tournament_files(files)
    made = hall("seating", "generate", "--players", "players.csv", "--rounds", "4", "--out", "seating.txt", cwd=files)
    assert made.returncode == 0, made.stderr
    assert made.stdout == "no pair meets twice\n"
    assert enter(files).returncode == 0
    shown = hall("seating", "show", cwd=files).stdout.splitlines()
    assert len(shown) == 4 * 4 + 1 and shown[-1] == "no pair meets twice"
    assert shown[0].startswith("round 1 table 1: East P") and " · North P" in shown[0]


def test_a_swiss_round_is_added_once(files):
    assert enter(files).returncode == 0
    added = hall("seating", "swiss", "--round", "3", cwd=files)
    assert added.returncode == 0, added.stderr
    assert [line.split(":")[0] for line in added.stdout.splitlines()[:6]] == [
        "round 1 table 1", "round 1 table 2", "round 2 table 1", "round 2 table 2", "round 3 table 1", "round 3 table 2"]
    again = hall("seating", "swiss", "--round", "3", cwd=files)
    assert again.returncode == 2 and again.stderr == "mjtable hall seating: round 3 is seated already\n"


def test_an_odd_field_is_refused(files):
    (files / "players.csv").write_text("number,first_name,last_name,ema_id,country,ema_member\n1,A,B,,FRA,no\n")
    refused = hall("seating", "generate", "--players", "players.csv", "--rounds", "2", cwd=files)
    assert refused.returncode == 2
    assert refused.stderr == "mjtable hall seating: 1 players do not fill tables of 4: add substitutes or take some out\n"
