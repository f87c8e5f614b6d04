"""controller/club/totals.py: each person's running totals over a session's games,
checked against sums worked by hand."""
import pytest

from controller.errors import Refusal
from controller.club.players import check_players
from controller.club.totals import PlayerTotal, player_key, running_totals

ANN = {"name": "Ann", "ema_id": "04010001"}
BO = {"name": "Bo"}
CY = {"name": "Cy", "club_id": "17"}
DI = {"name": "Di"}


def final(scores, final_scores, ranks):
    return {"final": True, "scores": scores, "final_scores": final_scores, "ranks": ranks}


# Game 1: Ann East, Bo South, Cy West, Di North.
GAME_1 = ({0: ANN, 1: BO, 2: CY, 3: DI},
          final([28800, 34200, 27000, 30000], [-6200, 19200, -18000, 5000], [3, 1, 4, 2]))
# Game 2: everybody moved: Di at seat 0, Cy 1, Bo 2, Ann 3.
GAME_2 = ({0: DI, 1: CY, 2: BO, 3: ANN},
          final([41000, 25000, 20000, 34000], [26000, -10000, -25000, 9000], [1, 3, 4, 2]))
# Game 3: Bo 0, Ann 1, Di 2, Cy 3; Cy's name in another case (the club ID says who he is).
GAME_3 = ({0: BO, 1: ANN, 2: DI, 3: {"name": "CY", "club_id": "17"}},
          final([30000, 36000, 24000, 30000], [0, 21000, -21000, 0], [2, 1, 4, 2]))


def by_name(totals):
    return {t.name: t for t in totals}


def test_totals_follow_the_people_across_their_seats():
    totals = running_totals([GAME_1, GAME_2, GAME_3])
    # Ann: seat 0 (-6200, 28800, 3rd), seat 3 (+9000, 34000, 2nd), seat 1 (+21000, 36000, 1st)
    #      table points -6200 + 9000 + 21000 = 23800; score 28800 + 34000 + 36000 = 98800; ranks 3 2 1: 2.0
    # Bo:  seat 1 (+19200, 34200, 1st), seat 2 (-25000, 20000, 4th), seat 0 (0, 30000, 2nd shared)
    #      19200 - 25000 + 0 = -5800; 34200 + 20000 + 30000 = 84200; ranks 1 4 2: 7/3 = 2.33
    # Cy:  seat 2 (-18000, 27000, 4th), seat 1 (-10000, 25000, 3rd), seat 3 (0, 30000, 2nd shared)
    #      -28000; 82000; ranks 4 3 2: 3.0
    # Di:  seat 3 (+5000, 30000, 2nd), seat 0 (+26000, 41000, 1st), seat 2 (-21000, 24000, 4th)
    #      10000; 95000; ranks 2 1 4: 2.33
    assert [t.to_dict() for t in totals] == [
        {"name": "Ann", "ema_id": "04010001", "games": 3, "score": 98800, "table_points": 23800,
         "average_rank": 2.0, "ranks": [3, 2, 1]},
        {"name": "Di", "games": 3, "score": 95000, "table_points": 10000, "average_rank": 2.33, "ranks": [2, 1, 4]},
        {"name": "Bo", "games": 3, "score": 84200, "table_points": -5800, "average_rank": 2.33, "ranks": [1, 4, 2]},
        {"name": "CY", "club_id": "17", "games": 3, "score": 82000, "table_points": -28000, "average_rank": 3.0,
         "ranks": [4, 3, 2]},
    ]
    # the table points of a game sum to 0, so the totals do too: 23800 + 10000 - 5800 - 28000
    assert sum(t.table_points for t in totals) == 0


def test_abandoned_and_anonymous_games_are_not_counted():
    abandoned = ({0: ANN, 1: BO, 2: CY, 3: DI}, None)
    anonymous = ({}, final([60000, 20000, 20000, 20000], [45000, -5000, -15000, -25000], [1, 2, 2, 4]))
    totals = by_name(running_totals([abandoned, GAME_1, anonymous]))
    assert {name: (t.games, t.table_points, t.ranks) for name, t in totals.items()} == {
        "Ann": (1, -6200, (3,)), "Bo": (1, 19200, (1,)), "Cy": (1, -18000, (4,)), "Di": (1, 5000, (2,))}
    assert running_totals([abandoned, anonymous]) == []


def test_a_player_is_his_ema_id_else_his_club_id_else_his_name():
    assert player_key({"name": "Ann", "ema_id": "04010001", "club_id": "9"}) == ("ema", "04010001")
    assert player_key({"name": "Cy", "club_id": "17"}) == ("club", "17")
    assert player_key({"name": "Bo"}) == player_key({"name": "bo"}) == ("name", "bo")
    # the same EMA ID under another name is the same person: one line, his latest name
    renamed = ({0: {"name": "Anne", "ema_id": "04010001"}, 1: BO, 2: CY, 3: DI}, GAME_1[1])
    totals = by_name(running_totals([GAME_1, renamed]))
    assert totals["Anne"].games == 2 and "Ann" not in totals
    # Ann given without her EMA ID is, by the rule, someone else: her own line
    plain = ({0: {"name": "Ann"}, 1: BO, 2: CY, 3: DI}, GAME_1[1])
    lines = [t for t in running_totals([GAME_1, plain]) if t.name == "Ann"]
    assert sorted((t.ema_id or "", t.games) for t in lines) == [("", 1), ("04010001", 1)]


def test_equal_table_points_are_ordered_by_score_then_average_rank_then_name():
    # sanma: seat 3 is the empty side (None everywhere); Bo and Cy tie on table points
    game = ({0: ANN, 1: BO, 2: CY}, final([50000, 30000, 25000, None], [25000, -10000, -10000, None], [1, 2, 3, None]))
    names = [t.name for t in running_totals([game])]
    assert names == ["Ann", "Bo", "Cy"]  # Bo's 30000 beat Cy's 25000
    tied = ({0: {"name": "Zed"}, 1: {"name": "Al"}, 2: CY},
            final([40000, 40000, 25000, None], [5000, 5000, -10000, None], [1, 1, 3, None]))
    assert [t.name for t in running_totals([tied])] == ["Al", "Zed", "Cy"]


def test_a_line_knows_its_key_and_average():
    line = PlayerTotal("Ann", "04010001", None, games=2, score=60000, table_points=1000, ranks=(1, 2))
    assert line.key == ("ema", "04010001") and line.average_rank == 1.5


@pytest.mark.parametrize("given, message", [
    ([ANN, {"name": "Bo", "ema_id": "04010001"}, CY, DI], "Ann and Bo have the same EMA ID 04010001"),
    ([ANN, BO, CY, {"name": "Di", "club_id": "17"}], "Cy and Di have the same club ID 17"),
])
def test_two_players_with_one_identifier_are_refused_at_the_start(given, message):
    # they would be one person in the totals
    with pytest.raises(Refusal, match=message) as refused:
        check_players(given, (0, 1, 2, 3))
    assert refused.value.code == "bad_request"
