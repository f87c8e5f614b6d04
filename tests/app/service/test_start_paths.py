"""`mjtable start` answers, whatever the table and the controller are doing: after the
table's watchdog stopped it (the controller stalled longer than the heartbeat timeout,
as on a frozen disk) the game is started and dealt without an operator; while the
controller is still connecting, start says so."""
from __future__ import annotations

import signal
import time

from firmware_protocol.profile import DEFAULT_PROFILE, load_profile

from .process_harness import RunProcess, cli, in_play, start_sim, stderr_of, write_config
from .service_harness import wait_for

SEED = 4
WATCHDOG = load_profile(DEFAULT_PROFILE).heartbeat_timeout_ms / 1000


def test_start_after_the_tables_watchdog_stopped_it_answers_and_the_game_is_dealt(procs, short_tmp):
    run = RunProcess(procs, write_config(short_tmp, start_sim(procs, SEED)))
    socket = run.client.path
    run.start()
    run.proc.send_signal(signal.SIGSTOP)  # the controller stalls while idle ...
    time.sleep(WATCHDOG + 1)  # ... and the table's watchdog stops it
    run.proc.send_signal(signal.SIGCONT)
    wait_for(lambda: run.client.request("status")["state"] == "idle", "the controller back in idle")

    started = cli(socket, "start")  # times out (a failure) if it never answers
    assert started.returncode == 0, started.stderr
    in_play(run, 1)
    assert run.client.request("status")["fault"] is None
    assert "watchdog" in stderr_of(run.proc)


def test_start_while_connecting_says_the_controller_is_not_ready(procs, short_tmp):
    run = procs.start("run", "--config", str(write_config(short_tmp, str(short_tmp / "no-table"))), name="run")
    socket = short_tmp / "api.sock"
    wait_for(lambda: socket.exists() and cli(socket, "status").returncode == 0, "the control API")

    refused = cli(socket, "start")
    assert refused.returncode == 1
    assert "still connecting to the table (state connecting); try again when it is ready" in refused.stderr
    assert "abandon" not in refused.stderr
    paused = cli(socket, "pause")
    assert paused.returncode == 1 and "cannot be reached" in paused.stderr
    assert run.poll() is None, stderr_of(run)
