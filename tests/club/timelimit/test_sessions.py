"""Games on the clock (EMA 2016 §5.9) in virtual time against the in-process simulator:
the dice wait for the start signal, the warning given just before or just after a hand's
dice, a chombo re-deal, the table's own clock giving the warning 75 minutes into a
90-minute session, a game complete before the limit, refusals, and a restart in the
middle of a session."""
import asyncio
from datetime import datetime

import pytest

from controller import rules as R
from controller.errors import Refusal
from controller.club.journal import journal_records
from controller.game.machine import TableMachine
from controller.app.simulation import profile_for
from controller.store.database import Store
from firmware_protocol.virtual_time import run_virtual
from sim.table import SimulatedTable

from .session import CHOMBO, DRAW, SEED, after_dice_of, before_dice_of, host, run_restarted, run_session


def seconds(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def labels(session) -> list[str]:
    return [h["hand"] for h in session.hands()]


@pytest.fixture(scope="module")
def after_dice():
    return run_session([DRAW] * 8, warn_when=after_dice_of(3))


def test_a_warning_just_after_a_hands_dice_leaves_that_hand_and_one_more(after_dice):
    assert labels(after_dice) == ["E1", "E2", "E3", "E4"]
    start, warning = after_dice.signals()
    assert (warning["seq"], warning["dice_thrown"], warning["hands_left"], warning["by"]) == (3, True, 2, "director")
    status = after_dice.controller.snapshot()
    assert status["ended"] == "time" and status["finished"]
    assert status["time_limit"]["hands_left"] == 0 and status["time_limit"]["ended"]


def test_the_game_ended_by_time_ends_with_the_standings_of_its_scores(after_dice):
    c = after_dice.controller
    state = R.new_game(c.rules)
    for hand in after_dice.hands():
        state = R.apply_result(c.rules, state, hand["result"]).state
    assert not state.finished  # the rules alone would play on (E4 is not the last hand)
    assert c.standings == R.final_standings(c.rules, state)
    game_over = [e for e in after_dice.events if e["event"] == "game_over"]
    assert [e["ended"] for e in game_over] == ["time"]


def test_the_warning_is_on_the_centre_and_the_seat_displays(after_dice):
    texts = [(r.args["seats"], r.args["text"]) for r in after_dice.trace("show_text") if r.dir == "cmd"]
    assert (0, "TIME 15:00: this hand and 1 more") in texts
    assert (0b1111, "TIME 15:00: this hand and 1 more") in texts
    # then, each minute of play, the time left and what is still played
    assert any(seats == 0 and text.startswith("TIME 1") and text.endswith("this hand is the last")
               for seats, text in texts)
    assert any(text.startswith("time left 8") for _, text in texts)  # before the warning


def test_a_warning_before_a_hands_dice_leaves_only_that_hand():
    session = run_session([DRAW] * 8, warn_when=before_dice_of(3))
    assert labels(session) == ["E1", "E2", "E3"]
    warning = session.signals()[1]
    assert (warning["seq"], warning["dice_thrown"], warning["hands_left"]) == (3, False, 1)
    assert session.controller.snapshot()["ended"] == "time"


def test_a_chombo_re_deal_is_not_counted_as_a_hand():
    session = run_session([DRAW, DRAW, CHOMBO, DRAW, DRAW, DRAW, DRAW, DRAW], warn_when=after_dice_of(3))
    # E3 ends in chombo and is dealt again; then E3 and one more (E4) are played
    assert labels(session) == ["E1", "E2", "E3", "E3", "E4"]
    assert session.controller.snapshot()["ended"] == "time"


def test_the_tables_clock_gives_the_warning_75_minutes_after_the_start_signal():
    # a quarter of an hour a hand: a 90-minute session reaches its warning in the fifth hand
    session = run_session([DRAW] * 8, think=900.0)
    start, warning = session.signals()
    assert warning["by"] == "table" and warning["signal"] == "warning"
    assert seconds(warning["at"]) - seconds(start["at"]) == 75 * 60
    assert (warning["seq"], warning["dice_thrown"], warning["hands_left"]) == (5, True, 2)
    assert labels(session) == ["E1", "E2", "E3", "E4", "S1", "S2"]
    assert session.controller.snapshot()["ended"] == "time"


def test_a_game_complete_before_the_limit_ends_by_the_rules():
    session = run_session([DRAW] * 8)  # eight noten draws: East and South rounds, about 11 minutes
    assert labels(session) == ["E1", "E2", "E3", "E4", "S1", "S2", "S3", "S4"]
    assert [s["signal"] for s in session.signals()] == ["start"]
    status = session.controller.snapshot()
    assert status["finished"] and "ended" not in status
    assert not status["time_limit"]["signalled"] and not status["time_limit"]["ended"]
    game_over = next(e for e in session.events if e["event"] == "game_over")
    assert "ended" not in game_over


def test_the_dice_wait_for_the_start_signal():
    session = run_session([DRAW] * 8, start_after=900.0, warn_when=before_dice_of(2))

    def first(name, direction):
        return next(r.t for r in session.table.trace.records if r.name == name and r.dir == direction)
    start = seconds(session.signals()[0]["at"])
    assert first("walls_raised", "event") < start - 800  # the walls were up long before
    assert first("roll_dice", "cmd") >= start
    waits = [e for e in session.events if e["event"] == "waiting"]
    assert waits[0]["what"] == "the start signal" and waits[0]["state"] == "awaiting_start"


def test_status_says_what_the_table_waits_for_and_a_warning_waits_for_the_start():
    async def scenario():
        rules = R.load_ruleset("ema-2016")
        controller, _ = host(SimulatedTable(profile_for(rules), seed=SEED), rules, [DRAW], think=60.0,
                             start_after=10**6)
        await controller.start()
        await controller.new_game(0, time_limit=True)
        game = asyncio.ensure_future(controller.play())
        while controller.sm.game != "awaiting_start":
            await asyncio.sleep(1.0)
        status = controller.snapshot()
        with pytest.raises(Refusal) as early:
            controller.signal("warning")
        controller.signal("start")
        with pytest.raises(Refusal) as twice:
            controller.signal("start")
        while controller.sm.game != "playing":
            await asyncio.sleep(1.0)
        playing = controller.snapshot()
        game.cancel()
        controller.close()
        return status, early.value, twice.value, playing
    status, early, twice, playing = run_virtual(scenario())
    assert (status["state"], status["waiting_for"]) == ("awaiting_start", "the start signal")
    assert status["time_limit"]["started_at"] is None and status["time_limit"]["seconds_left"] is None
    assert "start signal first" in early.message and "given already" in twice.message
    assert 89 * 60 < playing["time_limit"]["seconds_left"] < 90 * 60  # the dice, dead wall and dora since
    assert not playing["time_limit"]["signalled"] and playing["time_limit"]["hands_left"] is None


def test_the_machine_keeps_the_dice_from_a_session_not_started():
    waiting = TableMachine(awaits_start=lambda: True)
    waiting.game = "raising"
    waiting.done()
    assert waiting.game == "awaiting_start"
    assert not waiting.may_done()  # no dice before the signal
    started = TableMachine(awaits_start=lambda: False)
    started.game = "awaiting_start"
    started.done()
    assert started.game == "rolling"


def test_a_game_off_the_clock_takes_no_signal_and_a_rule_set_without_figures_no_clock():
    session = run_session([DRAW] * 8, time_limit=False)
    assert session.signals() == [] and "time_limit" not in session.controller.snapshot()
    with pytest.raises(Refusal) as off:
        session.controller.signal("start")
    assert "no game on the clock" in off.value.message
    mcr = R.load_ruleset("mcr")
    assert mcr.time_limit is None
    with pytest.raises(Refusal) as none:
        run_session([DRAW] * 16, ruleset=mcr)
    assert "rule set mcr has no time limit" in none.value.message


# ---------------------------------------------------------------- restart
def _killed_in_play_of(seq):
    return lambda method, args: method == "save_step" and args[1] == "playing" and args[2].get("seq") == seq


def test_a_restart_mid_session_keeps_the_clock_and_the_count(tmp_path):
    db = tmp_path / "state.db"
    first, second = run_restarted([DRAW] * 8, db, _killed_in_play_of(4), warn_when=after_dice_of(3))
    assert [s["signal"] for s in first.signals()] == ["start", "warning"]
    assert second.signals() == []  # nothing given again: both are kept
    resumed = [e for e in second.events if e["event"] == "hand_ended"]
    assert [e["record"]["hand"] for e in resumed] == ["E4"]  # the last hand, and the game ends
    status = second.controller.snapshot()
    assert status["ended"] == "time"
    assert status["time_limit"]["started_at"] == first.signals()[0]["at"]
    assert status["time_limit"]["warning_at"] == first.signals()[1]["at"]
    store = Store(db)
    try:
        journal = journal_records(store)
    finally:
        store.close()
    kinds = [r.get("time_signal") or r.get("hand") for r in journal if not r.get("final")]
    assert kinds == ["start", "E1", "E2", "warning", "E3", "E4"]
    assert journal[-1]["ended"] == "time"
    warning = journal[3]
    assert (warning["by"], warning["seq"], warning["dice_thrown"]) == ("director", 3, True)


def test_a_restart_before_the_start_signal_still_waits_for_it(tmp_path):
    def killed_as_the_walls_go_up(method, args):
        return method == "save_step" and args[1] == "raising"
    first, second = run_restarted([DRAW] * 8, tmp_path / "state.db", killed_as_the_walls_go_up,
                                  start_after=600.0, warn_when=before_dice_of(2))
    assert first.signals() == []
    assert [s["signal"] for s in second.signals()] == ["start"]  # the new host's director
    waits = [e["what"] for e in second.events if e["event"] == "waiting"]
    assert "the start signal" in waits
    assert len(second.hands()) == 8  # no warning from the second director: the rules end it
