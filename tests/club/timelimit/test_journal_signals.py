"""The journal of a game on the clock read from the store: each signal before the hand it
fell in, with its time in UTC; with named players, the signals carry no names."""
import io

from controller.club.journal import journal_records, write_csv
from controller.store.database import Store

STATE = {"ruleset": "ema-2016", "scores": [30000] * 4, "dealer": 0, "starting_dealer": 0}
HAND = {"ruleset": "ema-2016", "hand": "E1", "scores": [30000] * 4, "payments": [0] * 4}
CLOCK = {"figures": {"session_minutes": 90, "warning_minutes": 15, "hands_after_signal": 1},
         "signals": [{"signal": "start", "at": 1777712400.0, "by": "director", "seq": 1, "dice_thrown": False},
                     {"signal": "warning", "at": 1777716900.0, "by": "table", "seq": 2, "dice_thrown": True}]}


def test_the_signals_stand_before_their_hands_and_carry_no_names(tmp_path):
    store = Store(tmp_path / "state.db")
    try:
        game = store.new_game("ema-2016", {}, STATE, players={s: {"name": n} for s, n in enumerate("ABCD")},
                              hand={"time_limit": CLOCK})
        for seq in (1, 2):
            store.commit_hand(game, seq, {**HAND, "hand": f"E{seq}"}, STATE)
        store.save_step(game, "playing", {"seq": 3, "label": "E3", "time_limit": CLOCK})
        records = journal_records(store)
    finally:
        store.close()
    assert [r.get("time_signal") or r.get("hand") or "seating" for r in records] == [
        "seating", "start", "E1", "warning", "E2"]
    assert records[1] == {"time_signal": "start", "at": "2026-05-02T09:00:00Z", "by": "director", "seq": 1,
                          "dice_thrown": False}
    assert records[3]["at"] == "2026-05-02T10:15:00Z" and records[3]["by"] == "table"
    assert records[2]["players"] == ["A", "B", "C", "D"]
    assert "players" not in records[1]


def test_the_csv_keeps_the_hands_only(tmp_path):
    store = Store(tmp_path / "state.db")
    try:
        game = store.new_game("ema-2016", {}, STATE, hand={"time_limit": CLOCK})
        store.commit_hand(game, 1, HAND, STATE)
        records = journal_records(store)
    finally:
        store.close()
    out = io.StringIO()
    write_csv(records, out)
    rows = out.getvalue().splitlines()
    assert len(rows) == 2 and rows[1].split(",")[1] == "E1"
