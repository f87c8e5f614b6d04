"""controller/club/exports.py over store records, field by field: the EMA rows of a round (a tie
shares its position), a row per player per game (finished, abandoned, anonymous, a
three-player game), and which game of a round is exported."""
import io

import pytest

from controller.club import exports as X
from controller.store.database import Game

EMA_SEATS = [0, 1, 2, 3]
ANN, BO, CY, DI = ({"name": "Ann", "ema_id": "04010001"}, {"name": "Bo", "club_id": "C2"}, {"name": "Cy"},
                   {"name": "Di", "ema_id": "04020002"})


def game(id_: int, status: str = "finished", *, round_: int | None = 2, table: int | None = 7, final=None,
         seats=EMA_SEATS, starting_dealer: int = 0, session: int | None = None) -> Game:
    return Game(id=id_, ruleset="ema-2016", rules={"seats": seats}, state={"starting_dealer": starting_dealer},
                step="", hand={}, status=status, started_at="", ended_at=None, final=final, seating="schedule",
                session_id=session, round=round_, table=table)


# Seat 2 and seat 0 tie for second at 31,000 (EMA: they share 5,000 - 5,000 of uma, so 0 each).
TIED = {"final": True, "scores": [31000, 38000, 31000, 20000], "final_scores": [1000, 23000, 1000, -25000],
        "ranks": [2, 1, 2, 4]}


def test_the_ema_rows_are_by_position_a_tie_sharing_it_then_by_seat():
    rows = X.ema_rows(game(4, final=TIED), {0: ANN, 1: BO, 2: CY, 3: DI})
    assert rows == [
        {"round": 2, "table": 7, "position": 1, "name": "Bo", "ema_id": None, "table_points": 23000, "score": 38000},
        {"round": 2, "table": 7, "position": 2, "name": "Ann", "ema_id": "04010001", "table_points": 1000,
         "score": 31000},
        {"round": 2, "table": 7, "position": 2, "name": "Cy", "ema_id": None, "table_points": 1000, "score": 31000},
        {"round": 2, "table": 7, "position": 4, "name": "Di", "ema_id": "04020002", "table_points": -25000,
         "score": 20000},
    ]
    out = io.StringIO()
    X.write_csv(rows, X.EMA_COLUMNS, out)
    assert out.getvalue().splitlines() == [
        "round,table,position,name,ema_id,table_points,score", "2,7,1,Bo,,23000,38000",
        "2,7,2,Ann,04010001,1000,31000", "2,7,2,Cy,,1000,31000", "2,7,4,Di,04020002,-25000,20000"]


def test_a_three_player_game_has_three_rows():
    final = {"final": True, "scores": [40000, 35000, 30000, None], "final_scores": [25000, 0, -25000, None],
             "ranks": [1, 2, 3, None]}
    rows = X.ema_rows(game(5, final=final, seats=[0, 1, 2]), {0: ANN, 1: BO, 2: CY})
    assert [(r["position"], r["name"], r["table_points"]) for r in rows] == [(1, "Ann", 25000), (2, "Bo", 0),
                                                                          (3, "Cy", -25000)]


def test_an_unfinished_game_has_no_results():
    with pytest.raises(X.ExportError, match="game 6 is abandoned: only a finished game has results"):
        X.ema_rows(game(6, "abandoned"), {0: ANN})


def test_the_rounds_game_is_its_finished_one():
    games = [game(1, "abandoned"), game(2, final=TIED), game(3, round_=3, final=TIED)]
    assert X.round_game(games, 2).id == 2
    with pytest.raises(X.ExportError, match=r"round 3 has 2 finished games here \(games 3, 4\); name one with --game"):
        X.round_game(games + [game(4, round_=3, final=TIED)], 3)
    with pytest.raises(X.ExportError, match="round 2 has no finished game here: game 1 is abandoned, game 5 is active"):
        X.round_game([game(1, "abandoned"), game(5, "active")], 2)
    with pytest.raises(X.ExportError, match="no game of round 4 was played at this table"):
        X.round_game(games, 4)


def test_a_row_per_player_and_game_by_player_then_game():
    played = [
        (game(1, round_=None, table=None, final=TIED, session=3, starting_dealer=2), {0: ANN, 1: BO, 2: CY, 3: DI}),
        (game(2, "abandoned", round_=None, table=None, session=3), {0: BO, 1: ANN}),
        (game(3, round_=None, table=None, final=TIED), {}),  # anonymous: nobody to list
    ]
    rows = X.player_rows(played)
    assert [(r["name"], r["game"]) for r in rows] == [("Ann", 1), ("Ann", 2), ("Bo", 1), ("Bo", 2), ("Cy", 1),
                                                      ("Di", 1)]
    assert rows[0] == {"name": "Ann", "ema_id": "04010001", "club_id": None, "game": 1, "status": "finished",
                       "round": None, "table": None, "session": 3, "seat": 0, "wind": "West", "score": 31000,
                       "table_points": 1000, "rank": 2}
    assert rows[1] == {"name": "Ann", "ema_id": "04010001", "club_id": None, "game": 2, "status": "abandoned",
                       "round": None, "table": None, "session": 3, "seat": 1, "wind": "South"}
    assert rows[2]["club_id"] == "C2" and rows[2]["wind"] == "North"  # dealer seat 2: seat 1 is North
    out = io.StringIO()
    X.write_csv(rows[:2], X.PLAYER_COLUMNS, out)
    assert out.getvalue().splitlines() == [
        "name,ema_id,club_id,game,status,round,table,session,seat,wind,score,table_points,rank",
        "Ann,04010001,,1,finished,,,3,0,West,31000,1000,2", "Ann,04010001,,2,abandoned,,,3,1,South,,,"]
