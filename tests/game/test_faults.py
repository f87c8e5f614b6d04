"""Faults, link loss and MCU resets during whole games: the game ends exactly as the
clean run with the same seed, the operator is shown the numbered error, and nothing is
raised on a wrong tile count."""
import asyncio
import logging

import pytest

from firmware_protocol.codes import Code
from firmware_protocol.transport import Impairment
from sim.faults import FaultPlan, LidOpening

from controller.app.simulation import run_game

from ..support.retry import operator, press_retry

SEED = 5


@pytest.fixture(scope="module")
def clean():
    return run_game("ema-2016", seed=SEED)


def _same_game(run, clean):
    assert [h["result"] for h in run.hands] == [h["result"] for h in clean.hands]
    assert [h["scores"] for h in run.hands] == [h["scores"] for h in clean.hands]
    assert run.standings == clean.standings


def _shown_errors(run):
    return [r.args["code"] for r in run.trace if r.name == "show_error" and r.dir == "cmd"]


@pytest.mark.parametrize("plan, code", [
    (FaultPlan(jam={2: "stacker"}), Code.JAM),
    (FaultPlan(lift_stuck={3: 1}), Code.LIFT_STUCK),
    (FaultPlan(build_timeout={2}), Code.BUILD_TIMEOUT),
    (FaultPlan(lid_open=[LidOpening(at=7.5, duration=40.0)]), Code.LID_OPENED),
], ids=["jam", "lift_stuck", "build_timeout", "lid_open"])
def test_mechanical_fault_is_shown_and_the_game_resumes_after_retry(clean, plan, code):
    faults = []
    run = run_game("ema-2016", seed=SEED, faults=plan, on_controller=operator(on_fault=faults.append))
    assert faults and faults[0]["code"] == code
    assert code in _shown_errors(run)
    assert any(r.name == "resume" and r.dir == "cmd" for r in run.trace)
    _same_game(run, clean)


@pytest.mark.parametrize("plan, counted", [(FaultPlan(missing_tile={2}), 135), (FaultPlan(extra_tile={2}), 137)],
                         ids=["missing", "extra"])
def test_wrong_tile_count_stops_before_anything_is_raised(clean, plan, counted):
    run = run_game("ema-2016", seed=SEED, faults=plan, on_controller=operator())
    trace = [r for r in run.trace if r.dir in ("cmd", "event")]
    bad = next(i for i, r in enumerate(trace) if r.name == "tiles_collected" and r.args["count"] == counted)
    resumed = next(i for i, r in enumerate(trace) if i > bad and r.name == "resume")
    between = [r.name for r in trace[bad:resumed]]
    assert "raise_walls" not in between
    assert "stop" in between and "show_error" in between
    assert Code.TILE_COUNT in _shown_errors(run)
    _same_game(run, clean)


def test_link_noise_changes_nothing(clean):
    noise = Impairment(corrupt=0.01, drop=0.01, jitter=0.002)
    run = run_game("ema-2016", seed=SEED, impairment=noise)
    _same_game(run, clean)
    assert run.hands == clean.hands
    stats = run.controller.table.stats
    assert stats.retransmits > 0 and stats.crc_errors > 0


@pytest.mark.parametrize("at", [5.0, 8.0, 400.0, 1000.0])
def test_mcu_reset_at_any_point_ends_in_the_same_game(clean, at):
    run = run_game("ema-2016", seed=SEED, faults=FaultPlan(reset_at=[at]), on_controller=operator())
    _same_game(run, clean)
    assert len({r.args["boot_id"] for r in run.trace if r.name in ("identity", "identity_1_1")}) == 2


@pytest.mark.parametrize("after", [20, 60, 150])
def test_mcu_reset_after_nth_command_ends_in_the_same_game(clean, after):
    run = run_game("ema-2016", seed=SEED, faults=FaultPlan(reset_after_command={after}), on_controller=operator())
    _same_game(run, clean)


@pytest.mark.parametrize("at", [3.0, 9.5, 500.0])
def test_lost_link_reconnects_and_ends_in_the_same_game(clean, at):
    def cut_line(controller, table):
        asyncio.get_running_loop().call_later(at, table.firmware.detach)
    run = run_game("ema-2016", seed=SEED, on_controller=cut_line)
    _same_game(run, clean)
    assert sum(1 for r in run.trace if r.name == "identify") == 2


def _displays(table):
    return [table.model.centre_display, *table.model.seat_displays]


def test_a_refused_step_is_a_described_fault_and_retry_clears_the_error(clean):
    # The lid is opened while nothing moves: the next collect is refused (no fault event comes).
    seen = {}

    def lid_open_after_hand_1(controller, table):
        def on_event(event):
            if event["event"] == "hand_ended" and not seen:
                seen["still"] = not table.model.motion
                table.open_lid()
            elif event["event"] == "fault":
                seen.setdefault("status", controller.snapshot())
                loop = asyncio.get_running_loop()
                loop.call_later(20.0, table.close_lid)
                loop.call_later(30.0, press_retry, controller)
        controller.subscribe(on_event)

    run = run_game("ema-2016", seed=SEED, on_controller=lid_open_after_hand_1)
    assert seen["still"]
    status = seen["status"]
    assert status["state"] == "fault" and status["fault_code"] == Code.LID_OPEN
    assert "E109" in status["fault"] and "close the lid" in status["fault"] and "Retry" in status["fault"]
    shown = _shown_errors(run)
    assert shown[:2] == [Code.LID_OPEN, 0]  # shown at the fault, cleared once the step ran
    assert all(display.error == 0 for display in _displays(run.table))
    _same_game(run, clean)


def test_a_pause_during_the_background_shuffle_waits_for_resume_not_retry(clean, caplog):
    def pause_in_hand_1(controller, table):
        def on_event(event):
            if event["event"] == "hand_started" and event["seq"] == 1:
                asyncio.ensure_future(controller.pause())
                asyncio.get_running_loop().call_later(30.0, lambda: asyncio.ensure_future(controller.resume()))
        controller.subscribe(on_event)

    with caplog.at_level("INFO", logger="mjtable"):
        run = run_game("ema-2016", seed=SEED, on_controller=pause_in_hand_1)
    shuffles = sum(1 for r in run.trace if r.name == "shuffle" and r.dir == "cmd")
    assert shuffles == 1 + sum(1 for r in clean.trace if r.name == "shuffle" and r.dir == "cmd")  # stopped, run again
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert any("resume" in r.getMessage() for r in caplog.records if r.levelno in (logging.INFO, logging.WARNING))
    assert not _shown_errors(run)  # a pause is no fault
    _same_game(run, clean)
