"""Seating generated through `mjtable hall seating`: imported as it is written, printed by
name with the repeat-meetings report; Swiss by the standings, added as the next round."""
from __future__ import annotations

from .conftest import enter, hall
from .test_tournament import TABLES, tournament_files


def test_a_generated_seating_is_imported_and_shown(files):
    tournament_files(files)
    made = hall("seating", "generate", "--players", "players.csv", "--rounds", "4", "--out", "seating.txt", cwd=files)
    assert made.returncode == 0, made.stderr
    assert made.stdout == "no pair meets twice\n"
    assert enter(files).returncode == 0
    shown = hall("seating", "show", cwd=files).stdout.splitlines()
    assert len(shown) == 4 * TABLES + 1 and shown[-1] == "no pair meets twice"
    assert shown[0].startswith("round 1 table 1: East P") and " · North P" in shown[0]


def test_a_swiss_round_waits_for_the_round_before_it_to_be_reported(files):
    assert enter(files).returncode == 0
    refused = hall("seating", "swiss", "--round", "3", cwd=files)
    assert refused.returncode == 2 and refused.stderr == (
        "mjtable hall seating: round 2 has tables that have not reported (1, 2): Swiss seats by the standings after "
        "it; nothing changed\n")
    assert "round 3" not in hall("seating", "show", cwd=files).stdout


def test_an_odd_field_is_refused(files):
    (files / "players.csv").write_text("number,first_name,last_name,ema_id,country,ema_member\n1,A,B,,FRA,no\n")
    refused = hall("seating", "generate", "--players", "players.csv", "--rounds", "2", cwd=files)
    assert refused.returncode == 2
    assert refused.stderr == "mjtable hall seating: 1 players do not fill tables of 4: add substitutes or take some out\n"
