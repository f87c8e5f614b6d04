"""A tournament session on the clock through the console scripts, as docs/API.md and
docs/RULESETS.md tell a director: `mjtable run` on `mjtable sim`, `mjtable start
--time-limit`, the dice waiting for `mjtable signal start`, `mjtable signal warning` in
the second hand, results with `mjtable result`, and the game over after that hand and one
more, in `mjtable status` and `mjtable journal`."""
import pytest

from ...e2e.e2e_harness import Processes, draw, pty_table, wait_for
from ...support.folders import short_folder


@pytest.fixture(scope="module")
def session():
    """A game on the clock played through the CLI; the outputs a director reads (the JSON
    statuses polled in process: `mjtable status` itself is read as text)."""
    with short_folder("mjtl") as folder:
        procs = Processes(folder)
        try:
            table = pty_table(procs, "four-port", "ema-2016")
            out = {"start": table.ok("start", "--time-limit", where="--config")}
            wait_for(lambda: table.polled_status()["state"] == "awaiting_start", "the dice to wait for the signal")
            out["waiting"] = table.polled_status()
            out["waiting_text"] = table.ok("status")
            out["early_warning"] = table.cli("signal", "warning")
            out["signal_start"] = table.ok("signal", "start")
            seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
            table.ok("result", *draw())
            seq = table.wait_hand_after(seq)["hand_in_play"]["seq"]
            out["signal_warning"] = table.ok("signal", "warning")
            out["after_warning"] = table.polled_status()
            out["warning_text"] = table.ok("status")
            out["preview_not_last"] = table.client.request("preview", hand=seq, result={"kind": "draw"})
            table.ok("result", *draw())
            seq = table.wait_hand_after(seq)["hand_in_play"]["seq"]
            out["preview_last"] = table.client.request("preview", hand=seq, result={"kind": "draw"})
            table.ok("result", *draw())
            table.wait_game_over()
            out["over"] = table.polled_status()
            out["journal"] = table.journal()
            out["csv"] = table.ok("journal", "--format", "csv", where="--config")
            out["no_limit"] = table.cli("start", "--time-limit", "--ruleset", "zung-jung")
            out["after_refusal"] = table.polled_status()
            yield out
        finally:
            procs.stop_all()


def test_the_dice_wait_for_the_start_signal_and_status_says_so(session):
    waiting = session["waiting"]
    assert waiting["waiting_for"] == "the start signal"
    assert waiting["time_limit"]["started_at"] is None
    assert (waiting["time_limit"]["session_minutes"], waiting["time_limit"]["warning_minutes"]) == (90, 15)
    assert "hand_in_play" in waiting and waiting["hand_in_play"]["dice"] == []
    assert "waiting for: the start signal" in session["waiting_text"]
    assert "the dice wait for the start signal" in session["waiting_text"]


def test_a_warning_before_the_start_is_refused(session):
    early = session["early_warning"]
    assert early.returncode == 1 and "give the start signal first" in early.stderr


def test_the_signals_are_answered_with_the_clock(session):
    assert "90 min · started " in session["signal_start"] and "90:00 left · warning at " in session["signal_start"]
    assert "warning given by the director · 2 hands left" in session["signal_warning"]
    clock = session["after_warning"]["time_limit"]
    assert clock["signalled"] and clock["signalled_by"] == "director" and clock["hands_left"] == 2
    assert "2 hands left" in session["warning_text"]


def test_the_preview_of_the_hand_the_time_limit_ends_says_the_game_is_over(session):
    # the result form shows "game over" before Confirm for the session's last hand only
    assert session["preview_not_last"]["game_over"] is False
    assert session["preview_last"]["game_over"] is True


def test_the_hand_of_the_warning_and_one_more_are_played(session):
    journal = session["journal"]
    order = [r.get("time_signal") or r.get("hand") or "final" for r in journal]
    assert order == ["start", "E1", "warning", "E2", "E3", "final"]
    start, warning = journal[0], journal[2]
    assert (start["by"], start["seq"], start["dice_thrown"]) == ("director", 1, False)
    assert (warning["by"], warning["seq"], warning["dice_thrown"]) == ("director", 2, True)
    assert start["at"] <= warning["at"]  # ISO times, UTC
    assert journal[-1]["ended"] == "time"
    over = session["over"]
    assert over["finished"] and over["ended"] == "time" and over["time_limit"]["hands_left"] == 0


def test_the_csv_journal_keeps_the_hands_and_says_how_the_game_ended(session):
    rows = session["csv"].splitlines()
    assert rows[0].endswith(",ended")
    assert [row.split(",")[1] for row in rows[1:]] == ["E1", "E2", "E3", "final"]
    assert rows[-1].endswith(",time")


def test_a_rule_set_without_a_time_limit_is_refused_and_nothing_starts(session):
    refused = session["no_limit"]
    assert refused.returncode == 1
    assert "rule set zung-jung has no time limit" in refused.stderr
    after = session["after_refusal"]
    assert after["ruleset"] == "ema-2016" and after["finished"] and after["ended"] == "time"
    def clock(status):
        return {k: v for k, v in status["time_limit"].items() if k != "seconds_left"}  # the one that ticks
    assert clock(after) == clock(session["over"])
