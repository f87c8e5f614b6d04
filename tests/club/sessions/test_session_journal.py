"""The journal of a game of a session (or a tournament round): its session (round) on the
first record, JSON lines and CSV; other games' journals as before."""
import csv
import io

from controller import rules as R
from controller.club.journal import journal_records, write_csv
from controller.store.database import Store

RULES = R.load_ruleset("ema-2016")
PLAYERS = {0: {"name": "Ann", "ema_id": "04010001"}, 1: {"name": "Bo"}, 2: {"name": "Cy"}, 3: {"name": "Di"}}
DRAW = {"kind": "draw", "tenpai": [], "riichi": []}


def game(store: Store, **kwargs) -> int:
    state = R.new_game(RULES, 0)
    game_id = store.new_game("ema-2016", {}, state.to_dict(), **kwargs)
    outcome = R.apply_result(RULES, state, DRAW)
    store.commit_hand(game_id, 1, {"hand": "E1", "result": DRAW, "scores": list(outcome.state.scores)},
                      outcome.state.to_dict())
    return game_id


def test_the_first_record_carries_the_session_and_the_round(short_tmp):
    with Store(short_tmp / "state.db") as store:
        outside = game(store, players=PLAYERS)
        store.abandon_game(outside)
        session = store.start_session("Friday")
        named = game(store, players=PLAYERS, round=2)
        store.abandon_game(named)
        anonymous = game(store)
        records = {g: journal_records(store, g) for g in (outside, named, anonymous)}
    assert "session" not in records[outside][0] and "round" not in records[outside][0]
    seating, hand = records[named]
    assert (seating["seating"], seating["session"], seating["round"]) == ("as-given", session.id, 2)
    assert "session" not in hand
    # an anonymous game has no seating record: its first hand carries the session
    assert records[anonymous][0]["session"] == session.id and records[anonymous][0]["hand"] == "E1"

    out = io.StringIO()
    write_csv(records[named], out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["hand"], r["session"], r["round"]) for r in rows] == [("seating", "1", "2"), ("E1", "", "")]
    out = io.StringIO()
    write_csv(records[outside], out)
    assert "session" not in out.getvalue().splitlines()[0].split(",")
