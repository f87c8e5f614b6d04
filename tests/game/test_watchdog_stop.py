"""The table's watchdog stops it when the host is silent longer than the heartbeat timeout
(a stalled disk, a frozen loop). The host, back, resumes it itself: the interrupted step
runs again without an operator's retry and the game is the clean run's."""
import asyncio

from firmware_protocol.codes import Code
from firmware_protocol.profile import DEFAULT_PROFILE, load_profile

from controller.app.simulation import run_game

SEED = 5
WATCHDOG = load_profile(DEFAULT_PROFILE).heartbeat_timeout_ms / 1000


async def stall_when(controller, ready) -> None:
    """Once `ready()`, the host falls silent (no heartbeat, no command) past the watchdog."""
    while not ready():
        await asyncio.sleep(0.25)
    controller.table._heartbeat.cancel()
    await asyncio.sleep(WATCHDOG + 1)
    controller.table._start_heartbeats()


def stall_while_raising():
    def attach(controller, table):
        asyncio.ensure_future(stall_when(controller, lambda: "raise_walls" in table.model.motion.values()))
    return attach


def test_a_watchdog_stop_mid_step_is_resumed_without_an_operator():
    clean = run_game("ema-2016", seed=SEED)
    run = run_game("ema-2016", seed=SEED, on_controller=stall_while_raising())  # no retry is ever given
    names = [(r.dir, r.name, r.args.get("code")) for r in run.trace]
    fault = names.index(("event", "fault", Code.WATCHDOG))
    resume = names.index(("cmd", "resume", None), fault)
    assert ("cmd", "raise_walls", None) in names[resume:] and ("event", "walls_raised", None) in names[resume:]
    assert run.hands == clean.hands and run.standings == clean.standings
    assert run.controller.fault is None


def stall_while_playing_and_lose_the_fault_event():
    """The host falls silent while a hand is played and nothing moves; the table's
    WATCHDOG fault event is lost on the line, so the controller learns of the stop only
    when the next hand's first motion command is refused STOPPED."""
    def attach(controller, table):
        firmware, emit = table.firmware, table.firmware._emit

        def lose_the_watchdog_event(to, msg):
            if not (msg.name == "fault" and msg["code"] == Code.WATCHDOG):
                emit(to, msg)
        firmware._emit = lose_the_watchdog_event
        asyncio.ensure_future(stall_when(controller, lambda: controller.sm.state == "playing" and not table.model.motion))
    return attach


def test_a_watchdog_stop_known_only_from_a_stopped_refusal_is_resumed_without_an_operator():
    clean = run_game("ema-2016", seed=SEED)
    run = run_game("ema-2016", seed=SEED, on_controller=stall_while_playing_and_lose_the_fault_event())
    names = [(r.dir, r.name, r.args.get("code")) for r in run.trace]
    refused = names.index(("reply", "rejected", Code.STOPPED))
    assert ("cmd", "resume", None) in names[refused:]
    assert run.hands == clean.hands and run.standings == clean.standings
    assert run.controller.fault is None
