"""The table's watchdog stops it when the host is silent longer than the heartbeat timeout
(a stalled disk, a frozen loop). The host, back, resumes it itself: the interrupted step
runs again without an operator's retry and the game is the clean run's."""
import asyncio

from firmware_protocol.codes import Code
from sim.profile import DEFAULT_PROFILE, load_profile

from controller.simulation import run_game

SEED = 5
WATCHDOG = load_profile(DEFAULT_PROFILE).heartbeat_timeout_ms / 1000


def stall_while_raising():
    def attach(controller, table):
        async def stall():
            while "raise_walls" not in table.model.motion.values():
                await asyncio.sleep(0.25)
            controller.table._heartbeat.cancel()  # the host falls silent: no heartbeat, no command
            await asyncio.sleep(WATCHDOG + 1)
            controller.table._schedule_heartbeat()
        asyncio.ensure_future(stall())
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
