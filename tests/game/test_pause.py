"""Pause stops a moving table wherever it is: in every setup step, during the background
shuffle and while the wind marker moves, from the API and from a seat's pause button.
The simulator's trace shows the `stop` while the operation moved and the operation done
after `resume`; the game ends with the clean run's journal."""
import asyncio
import dataclasses

import pytest

from firmware_protocol.catalog import COMPLETIONS
from firmware_protocol.codes import Code
from sim.faults import FaultPlan
from firmware_protocol.profile import DEFAULT_PROFILE, load_profile

from controller.errors import Refusal
from controller.app.simulation import run_game

from ..support.retry import press_retry

SEED = 5
HOLD = 40.0  # simulated seconds the table stays paused
PROFILE = load_profile(DEFAULT_PROFILE)
# A shuffle slower than a hand: the next hand waits for it before collecting (waiting_for shuffle).
SLOW_SHUFFLE = dataclasses.replace(PROFILE, timings=dataclasses.replace(PROFILE.timings, shuffle=200.0,
                                                                        build_limit=400.0))


@pytest.fixture(scope="module")
def clean():
    """The game without a pause, on a profile and with a dealer; each played once."""
    runs = {}

    def clean_run(profile=PROFILE, dealer=0):
        key = (profile.timings.shuffle, dealer)
        if key not in runs:
            runs[key] = run_game("ema-2016", seed=SEED, profile=profile, dealer=dealer)
        return runs[key]
    return clean_run


def pause_while(operation: str, state: str, seen: dict, press=None):
    """Pause (or press a seat's pause button, with `press`) the first time `operation`
    moves while the controller is in `state`; resume `HOLD` seconds later."""
    def attach(controller, table):
        async def operator():
            while operation not in table.model.motion.values() or controller.sm.state != state:
                await asyncio.sleep(0.25)
            if press:
                press(table)
                await asyncio.sleep(0.1)
            else:
                await controller.pause()
            seen["status"] = controller.snapshot()
            seen["stopped"] = table.firmware.stopped
            await asyncio.sleep(HOLD)
            seen["still"] = not table.model.motion
            with pytest.raises(Refusal) as refused:
                controller.retry()
            seen["retry"] = str(refused.value)
            await controller.resume()
        asyncio.ensure_future(operator())
    return attach


def _stopped_then_done(trace, operation):
    """The operation sent before the stop has no completion before it; after `resume` it
    is sent again and completes."""
    names = [(r.dir, r.name) for r in trace]
    stop = names.index(("cmd", "stop"))
    sent = max(i for i, n in enumerate(names[:stop]) if n == ("cmd", operation))
    assert ("event", COMPLETIONS[operation]) not in names[sent:stop]
    resume = names.index(("cmd", "resume"), stop)
    again = names.index(("cmd", operation), resume)
    assert ("event", COMPLETIONS[operation]) in names[again:]
    assert ("cmd", operation) not in names[stop:resume]  # nothing moves while paused


@pytest.mark.parametrize("state, operation, profile", [
    ("preparing", "set_wind_marker", PROFILE),       # a new game's marker
    ("collecting", "collect_tiles", PROFILE),
    ("collecting", "shuffle", SLOW_SHUFFLE),         # the hopper waits for the shuffle
    ("raising", "raise_walls", PROFILE),
    ("rolling", "roll_dice", PROFILE),
    ("separating", "separate_dead_wall", PROFILE),
    ("revealing_dora", "flip_dora", PROFILE),
    ("playing", "shuffle", PROFILE),                 # the background shuffle
    ("settling", "set_wind_marker", PROFILE),        # the round wind changes
])
def test_pause_stops_the_moving_table_and_resume_carries_on(clean, state, operation, profile):
    seen = {}
    dealer = 1 if state == "preparing" else 0  # the marker shows East at seat 0 at power-on: seat 1's moves it
    run = run_game("ema-2016", seed=SEED, profile=profile, dealer=dealer,
                   on_controller=pause_while(operation, state, seen))
    status = seen["status"]
    assert status["state"] == "paused"
    assert status["waiting_for"] == ("result" if state == "playing" else "resume")
    assert seen["stopped"] and seen["still"]
    assert "resume carries on" in seen["retry"]
    assert status["fault"] is None and run.controller.fault is None
    _stopped_then_done(run.trace, operation)
    assert run.hands == clean(profile, dealer).hands
    assert run.standings == clean(profile, dealer).standings


def test_a_seats_pause_button_stops_the_table(clean):
    seen = {}
    press = pause_while("raise_walls", "raising", seen, press=lambda table: table.press_button(2, "pause"))
    run = run_game("ema-2016", seed=SEED, on_controller=press)
    assert seen["status"]["state"] == "paused" and seen["stopped"] and seen["still"]
    _stopped_then_done(run.trace, "raise_walls")
    assert run.hands == clean().hands


def test_pause_is_refused_during_a_fault_which_stopped_the_table_already(clean):
    seen = {}

    def attach(controller, table):
        def on_event(event):
            if event["event"] == "fault" and "refused" not in seen:
                asyncio.ensure_future(refuse_then_retry(controller))
        controller.subscribe(on_event)

    async def refuse_then_retry(controller):
        await asyncio.sleep(1.0)
        with pytest.raises(Refusal) as refused:
            await controller.pause()
        seen["refused"] = refused.value
        seen["state"] = controller.sm.state
        press_retry(controller)

    run = run_game("ema-2016", seed=SEED, faults=FaultPlan(lift_stuck={2: 1}), on_controller=attach)
    assert seen["state"] == "fault" and seen["refused"].code == "not_allowed"
    message = str(seen["refused"])
    assert "stopped already" in message and f"E{Code.LIFT_STUCK}" in message and "free the stuck wall lift" in message
    assert run.hands == clean().hands


def _lose_link(table, loss: str) -> None:
    """An MCU reset, or the line cut (the host hears nothing more: its link gives up)."""
    if loss == "reset":
        table.firmware.reset()
    else:
        table.firmware.detach()


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.25)


def _restored(controller) -> bool:
    return controller.table.connected and not controller.recovery.active


@pytest.mark.parametrize("loss", ["reset", "cut"])
def test_resume_sent_as_the_link_is_lost_is_refused_clearly_and_the_table_stays_paused(clean, loss):
    seen = {}

    def attach(controller, table):
        async def operator():
            await _until(lambda: controller.sm.state == "playing" and controller.hand.seq == 2)
            await controller.pause()
            await asyncio.sleep(5.0)
            _lose_link(table, loss)
            try:
                await controller.resume()
                seen["resume"] = "carried out"
            except Refusal as refused:
                seen["resume"] = refused
            await _until(lambda: _restored(controller))
            seen["after"] = (controller.sm.state, table.firmware.stopped)
            if controller.sm.is_motion_paused():
                await controller.resume()
        asyncio.ensure_future(operator())

    run = run_game("ema-2016", seed=SEED, on_controller=attach)
    refused = seen["resume"]
    assert isinstance(refused, Refusal) and refused.code == "not_allowed", refused
    assert "stays paused" in str(refused) and "resume again" in str(refused)
    assert seen["after"] == ("paused", True)  # reconnected, the table stopped again
    assert run.hands == clean().hands


def test_pause_answers_when_the_table_reboots_during_its_stop(clean):
    seen = {}

    def attach(controller, table):
        async def operator():
            await _until(lambda: "raise_walls" in table.model.motion.values() and controller.sm.state == "raising")
            table.firmware.reset()  # its reboot notice reaches the host while the stop waits for its reply
            await controller.pause()
            seen["paused"] = controller.sm.motion  # the state says `reconnecting` meanwhile
            await _until(lambda: _restored(controller))
            await asyncio.sleep(HOLD)
            seen["after"] = (controller.sm.state, table.firmware.stopped, dict(table.model.motion))
            await controller.resume()
        asyncio.ensure_future(operator())

    run = run_game("ema-2016", seed=SEED, on_controller=attach)
    assert seen["paused"] == "paused"
    assert seen["after"] == ("paused", True, {})  # reconnected: stopped again, nothing moving
    names = [(r.dir, r.name) for r in run.trace]
    stop = len(names) - 1 - names[::-1].index(("cmd", "stop"))
    resume = names.index(("cmd", "resume"), stop)
    assert ("cmd", "raise_walls") not in names[stop:resume]
    assert run.hands == clean().hands


def test_a_marker_set_as_a_pause_meets_it_is_not_moved_again(clean):
    # The table sets the wind marker for the South round; as it reports it, the host pauses
    # (the stop fails the wait before the report arrives): at `resume` the host runs the
    # work again, and must ask the table before moving it.
    seen = {}

    def attach(controller, table):
        record = table.trace.record

        async def pause_then_resume():
            await controller.pause()
            await asyncio.sleep(HOLD)
            await controller.resume()

        def spy(direction, msg):
            record(direction, msg)
            if (direction, msg.name) == ("event", "wind_marker_set") and msg.args["wind"] == 1 and not seen:
                seen["paused"] = asyncio.ensure_future(pause_then_resume())
        table.trace.record = spy

    run = run_game("ema-2016", seed=SEED, on_controller=attach)
    assert seen["paused"].done() and seen["paused"].exception() is None
    south = [r for r in run.trace if (r.dir, r.name) == ("cmd", "set_wind_marker") and r.args["wind"] == 1]
    assert len(south) == 1
    assert run.hands == clean().hands
