"""controller/club/schedule.py: the players and schedule files read liberally in whitespace and
strictly in content, every problem at once as `file:line: what`; the control API's form
checked the same way; the messages a start and an import give."""
import pytest

from controller.club import schedule as S
from controller.club.players import Player

PLAYERS = "number,name,ema_id,club_id\n1,Ann,04010001,\n2,Bo,,C2\n3,Cy,,\n4,Di,,\n5,Ed,,\n6,Fay,,\n7,Gus,,\n8,Hal,,\n"
HEADER = "round,table,east,south,west,north\n"
GOOD = HEADER + "1,1,1,2,3,4\n1,2,5,6,7,8\n2,1,8,3,6,1\n2,2,2,7,4,5\n"


def problems(players: str = PLAYERS, schedule: str = GOOD) -> list[str]:
    with pytest.raises(S.ScheduleError) as refused:
        S.parse(players, "players.csv", schedule, "schedule.csv")
    assert str(refused.value) == "\n".join(refused.value.problems)
    return refused.value.problems


def test_a_good_schedule_is_read_with_its_players_and_winds():
    schedule = S.parse(PLAYERS, "players.csv", GOOD, "schedule.csv")
    assert schedule.roster[1] == Player("Ann", "04010001") and schedule.roster[2] == Player("Bo", None, "C2")
    assert len(schedule.roster) == 8
    assert schedule.tables[2] == S.TableSeating(2, 1, (8, 3, 6, 1))
    assert schedule.rows()[8:12] == [(2, 1, 0, 8), (2, 1, 1, 3), (2, 1, 2, 6), (2, 1, 3, 1)]
    assert schedule.rounds_at(2) == [1, 2] and schedule.rounds_at(3) == []


def test_whitespace_blank_lines_a_byte_order_mark_and_the_headers_case_are_taken(tmp_path):
    (tmp_path / "p.csv").write_text("\ufeff Number , NAME \n\n 1 ,  Ann  \n2,Bo\n3,Cy\n4,Di\n", encoding="utf-8")
    (tmp_path / "s.csv").write_text("ROUND, Table,East,South,West,North\n\n  1 , 7 , 4 , 3 , 2 , 1  \n\n")
    schedule = S.read_files(tmp_path / "p.csv", tmp_path / "s.csv")
    assert schedule.roster[1] == Player("Ann") and schedule.tables == (S.TableSeating(1, 7, (4, 3, 2, 1)),)


def test_a_three_player_table_leaves_north_empty():
    schedule = S.parse(PLAYERS, "p", HEADER + "1,1,1,2,3,\n", "s")
    assert schedule.tables == (S.TableSeating(1, 1, (1, 2, 3)),)
    assert schedule.rows() == [(1, 1, 0, 1), (1, 1, 1, 2), (1, 1, 2, 3)]


@pytest.mark.parametrize("schedule, expected", [
    ("", ["schedule.csv:1: no header row; the first line names the columns: round,table,east,south,west,north"]),
    ("round,table,east,south\n1,1,1,2\n",
     ["schedule.csv:1: missing column(s) west; the columns are round,table,east,south,west,north "
      "(north optional)"]),
    ("round,table,east,south,west,north,fifth\n",
     ["schedule.csv:1: unknown column(s) 'fifth'; the columns are round,table,east,south,west,north "
      "(north optional)"]),
    (HEADER + '1,1,"2,3\n', ["schedule.csv:2: not valid CSV: unexpected end of data"]),
    (HEADER + '1,1,"1"x,2,3,4\n', ["schedule.csv:2: not valid CSV: ',' expected after '\"'"]),
    (HEADER + "1,1,1,2,3\n", ["schedule.csv:2: 5 fields; the header has 6 (round, table, east, south, west, north)"]),
    (HEADER + "one,1,1,2,3,4\n1,0,1,2,3,4\n1,2,1,2,,4\n",
     ["schedule.csv:2: round must be a whole number 1-999999, not 'one'",
      "schedule.csv:3: table must be a whole number 1-999999, not '0'",
      "schedule.csv:4: west's player number is empty"]),
    (HEADER, ["the schedule seats no table: give a row per round and table"]),
])
def test_a_malformed_schedule_file_is_refused(schedule, expected):
    assert problems(schedule=schedule) == expected


def test_every_content_problem_is_found_at_once_in_file_order():
    schedule = GOOD + "3,1,1,2,3,99\n3,2,5,6,5,7\n3,3,8,1,4,\n2,1,1,2,3,4\n"
    assert problems(schedule=schedule) == [
        "schedule.csv:6: unknown player number 99: players.csv has no such player",
        "schedule.csv:7: player 5 (Ed) sits twice at table 2 in round 3",
        "schedule.csv:8: player 1 (Ann) sits at table 3 and at table 1 (schedule.csv:6) in round 3",
        "schedule.csv:9: round 2 table 1 is given twice (first at schedule.csv:4)",
    ]


def test_a_name_or_an_ema_id_given_twice_and_bad_players_are_refused():
    players = PLAYERS + "9,ann,,\n10,Ida,04010001,\n2,Jo,,\nx,Kai,,\n11,,,\n12,Lu,123,\n13,Wilhelmina-Katharina,,\n"
    assert problems(players=players) == [
        "players.csv:10: the name 'ann' is given twice (first at players.csv:2)",
        "players.csv:11: the EMA ID 04010001 is given twice (first at players.csv:2)",
        "players.csv:12: player number 2 is given twice (first at players.csv:3)",
        "players.csv:13: the player number must be a whole number 1-999999, not 'x'",
        "players.csv:14: a player's name is empty",
        "players.csv:15: Lu's EMA ID is 8 digits, not '123'",
        "players.csv:16: the name 'Wilhelmina-Katharina' is too long for the seat displays: at most 16 bytes "
        "(16 plain letters)",
    ]


def test_an_unreadable_players_file_is_said_once_not_for_every_number():
    assert problems(players="name\nAnn\n") == [
        "players.csv:1: missing column(s) number; the columns are number,name,ema_id,club_id "
        "(ema_id, club_id optional)"]


def test_files_that_cannot_be_read_are_named(tmp_path):
    (tmp_path / "latin1.csv").write_bytes("number,name\n1,Jos\xe9\n".encode("latin-1"))
    with pytest.raises(S.ScheduleError) as refused:
        S.read_files(tmp_path / "latin1.csv", tmp_path / "missing.csv")
    assert refused.value.problems == [
        f"{tmp_path / 'latin1.csv'}: not UTF-8 text (invalid continuation byte at byte 17)",
        f"{tmp_path / 'missing.csv'}: cannot read it: No such file or directory"]


def test_the_api_form_is_the_files_content_and_is_checked_the_same_way():
    schedule = S.parse(PLAYERS, "p", GOOD, "s")
    request = schedule.to_request()
    assert request["players"][:2] == [{"number": 1, "name": "Ann", "ema_id": "04010001"},
                                      {"number": 2, "name": "Bo", "club_id": "C2"}]
    assert request["tables"][0] == [1, 1, 1, 2, 3, 4]
    assert S.from_request(**request) == schedule
    with pytest.raises(S.ScheduleError) as refused:
        S.from_request([{"number": 1, "name": "Ann"}, {"number": True, "name": "Bo"}, {"number": 3, "name": "ann"}],
                       [[1, 1, 1, 3, 3], [1, 2, 1], {"round": 1}])
    assert refused.value.problems == [
        'players[1]: a player is an object with a "number" (1-999999) and a "name"',
        "players[2]: the name 'ann' is given twice (first at players[0])",
        "tables[0]: player 3 (ann) sits twice at table 1 in round 1",
        "tables[1]: a table is [round, table, east, south, west, north] (north left out at a three-player table), "
        "each a number 1-999999",
        "tables[2]: a table is [round, table, east, south, west, north] (north left out at a three-player table), "
        "each a number 1-999999",
    ]


def test_a_start_the_schedule_cannot_seat_says_why():
    assert S.not_scheduled({}, 1, 7) == "no schedule is imported: import the tournament's players and schedule first"
    assert S.not_scheduled({1: [1, 2], 2: [1, 2]}, 3, 7) == "the schedule has no round 3 (it has rounds 1-2)"
    assert S.not_scheduled({1: [1, 2, 3, 4, 5, 6], 3: [1, 2, 3, 4, 5, 6]}, 3, 7) == (
        "the schedule seats tables 1-6 in round 3, not table 7")
    assert S.not_scheduled({3: [5]}, 3, 7) == "the schedule seats table 5 in round 3, not table 7"


def test_an_import_without_this_table_warns():
    schedule = S.parse(PLAYERS, "p", GOOD, "s")
    assert S.import_warnings(schedule, 1) == []
    assert S.import_warnings(schedule, 7) == [
        "the schedule never seats table 7 (it seats tables 1-2): check table.number in the table config"]
    assert "table.number" in S.import_warnings(schedule, None)[0]


def test_spans_shorten_runs_of_numbers():
    assert S.spans([3, 1, 2, 5, 7, 8]) == "1-3, 5, 7-8"
    assert S.spans([4], "round") == "round 4" and S.spans([4, 6], "round") == "rounds 4, 6"
