"""The tournament entered once, through `mjtable hall import`: the files of docs/HALL.md
taken as the page says; bad files refused with every problem at once, nothing changed."""
from __future__ import annotations

from .conftest import doc_block, enter, hall


def test_the_tournament_of_the_doc_is_entered(files):
    done = enter(files)
    assert done.returncode == 0, done.stderr
    assert done.stdout == doc_block("$ mjtable hall import --players").splitlines()[1] + "\n"
    standings = hall("standings", cwd=files)
    # eight players at 0.0, the substitute who has not played left out
    assert standings.returncode == 0 and len(standings.stdout.splitlines()) == 8
    assert "Ida" not in standings.stdout


def test_a_bad_seating_is_refused_with_every_problem_and_changes_nothing(files):
    assert enter(files).returncode == 0
    before = hall("export", "rounds", cwd=files).stdout, (files / "hall.db").read_bytes()
    seating = files / "seating.txt"
    lines = seating.read_text().splitlines()
    lines[0], lines[-1] = "1-2-3-99", "3-7-4-4"  # an unknown player; a player seated twice
    seating.write_text("\n".join(lines) + "\n")
    refused = enter(files)
    assert refused.returncode == 2
    assert refused.stderr == doc_block("mjtable hall import: the tournament is refused")
    assert (hall("export", "rounds", cwd=files).stdout, (files / "hall.db").read_bytes()) == before


def test_every_file_s_problems_at_once(files):
    (files / "players.csv").write_text("number,first_name,last_name,ema_id,country,ema_member\n"
                                       "1,Ann,Archer,0401,FR,maybe\n1,Bo,,,SWE,no\n")
    (files / "header.csv").write_text("key,value\ntitle,Open\nstart_date,10/4/2027\n")
    (files / "tables.csv").write_text("number,table_id\n1,demo 1\n")
    (files / "seating.txt").write_text("1-2\n")
    refused = enter(files)
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[1:] == [
        "  players.csv:2: the EMA number is 8 digits, not '0401'",
        "  players.csv:2: the country is a 3-letter code (ISO 3166 alpha-3, e.g. FRA), not 'FR'",
        "  players.csv:2: ema_member is yes or no, not 'maybe'",
        "  players.csv:3: the last name must be 1 to 64 characters, not ''",
        "  players.csv:3: the player number 1 is given twice (first at players.csv:2)",
        "  header.csv: country is missing",
        "  header.csv: days is missing",
        "  header.csv: end_date is missing",
        "  header.csv: mers_weight is missing",
        "  header.csv: place is missing",
        "  header.csv: rules is missing",
        "  header.csv: start_date is a date YYYY-MM-DD, not '10/4/2027'",
        "  tables.csv:2: a table id is letters, digits, - and _, not 'demo 1'",
        "  seating.txt:1: a table is player numbers East first, like 1-2-3-4, not '1-2'",
    ]
    assert not (files / "hall.db").exists()
