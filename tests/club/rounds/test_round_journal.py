"""A scheduled game in the journal and its export, from a real store: the seating record
carries the round and the table (JSON lines and CSV); `export journal` gives each record
its game."""
import csv
import io

from controller.club.exports import journal_lines
from controller.club.journal import journal_records, write_csv
from controller.store.database import Store

PLAYERS = {0: {"name": "Fay", "ema_id": "04030006"}, 1: {"name": "Cy"}, 2: {"name": "Hal"}, 3: {"name": "Ann"}}
FINAL = {"final": True, "scores": [28000, 35200, 24800, 32000], "final_scores": [-7000, 20200, -20200, 7000],
         "ranks": [3, 1, 4, 2]}


def test_the_seating_record_of_a_round_names_it_and_its_table(tmp_path):
    with Store(tmp_path / "state.db") as store:
        anonymous = store.new_game("ema-2016", {}, {"scores": [30000] * 4})
        store.abandon_game(anonymous)
        game = store.new_game("ema-2016", {}, {"scores": [30000] * 4}, players=PLAYERS, seating="schedule",
                              round=2, table=7)
        store.finish_game(game, FINAL)
        records = journal_records(store, game)
        exported = journal_lines(store, store.games())
    assert records[0] == {"seating": "schedule", "round": 2, "table": 7,
                          "players": [PLAYERS[0], PLAYERS[1], PLAYERS[2], PLAYERS[3]]}
    assert records[1] == {**FINAL, "players": ["Fay", "Cy", "Hal", "Ann"]}
    assert exported == [{"game": game, **r} for r in records]  # the anonymous game has no hands, no final
    out = io.StringIO()
    write_csv(records, out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert (rows[0]["hand"], rows[0]["seating"], rows[0]["round"], rows[0]["table"]) == ("seating", "schedule", "2", "7")
    assert rows[0]["players_0"] == "Fay:EMA=04030006"
    assert (rows[1]["hand"], rows[1]["round"], rows[1]["table"], rows[1]["final_scores_1"]) == ("final", "", "", "20200")
