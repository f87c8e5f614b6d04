"""Tables that misbehave on the line, through `mjtable run` and the client commands: each
becomes a described fault in time, the operator's commands answer clearly, and the log
stays readable. The tables are the simulator with its logic broken (misbehaving_table.py)."""
from __future__ import annotations

import signal
import subprocess
import sys
import select
import time
from pathlib import Path

from controller.table.facade import CLEAN_LINE_PATIENCE

from .e2e_harness import (PROFILES, SPEED, WAIT_TIMEOUT, Client, TableSession, mjtable, start_sim, stderr_of, wait_for,
                          write_table_config)

PEER = Path(__file__).with_name("misbehaving_table.py")


def misbehaving(procs, variant: str, profile: str = "four-port"):
    """The broken table on a pty and `mjtable run` on it: (peer, run, client, config)."""
    peer = subprocess.Popen([sys.executable, str(PEER), profile, variant], stdout=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    procs.started.append(peer)
    readable, _, _ = select.select([peer.stdout], [], [], WAIT_TIMEOUT)
    assert readable, "the misbehaving table printed no port"
    config = write_table_config(procs.folder, peer.stdout.readline().strip(), profile, "ema-2016")
    run = procs.start("run", "--config", str(config), name="run")
    return peer, run, Client(procs.folder / "api.sock", timeout=5), config


def status_of(client) -> dict | None:
    try:
        return client.request("status")
    except Exception:  # not listening yet
        return None


def test_a_failed_sensor_test_is_described_as_text(procs):
    _, run, client, config = misbehaving(procs, "fails_sensor_test")
    wait_for(lambda: (status_of(client) or {}).get("state") == "idle", "the table to be idle")
    done = mjtable("maintenance", "test", "lifts", "--config", str(config))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "FAILED: E200" in done.stdout and "at hopper" in done.stdout, done.stdout


def test_a_table_that_acknowledges_but_stops_answering_is_a_described_fault_and_pause_answers(procs):
    peer, run, client, _ = misbehaving(procs, "hangs")
    socket = str(procs.folder / "api.sock")
    wait_for(lambda: (status_of(client) or {}).get("state") == "idle", "the table to be idle")
    mjtable("start", "--socket", socket)
    wait_for(lambda: status_of(client)["state"] == "playing", "the game to be in play")
    peer.send_signal(signal.SIGUSR1)
    # The heartbeats go unanswered: a fault within the clean line's reply deadline (10 s).
    shown = wait_for(lambda: status_of(client)["fault"], "a described fault", timeout=20)
    assert "acknowledges commands but does not answer" in shown, shown
    # The fault holds the table already: `pause` says so (or, still in play, is taken), never `internal`.
    paused = mjtable("pause", "--socket", socket)
    said = paused.stdout + paused.stderr
    assert "internal" not in said and (paused.returncode == 0 or "stopped already by its fault" in said), paused
    time.sleep(CLEAN_LINE_PATIENCE + 1)  # every heartbeat since has gone unanswered too
    log = stderr_of(run)
    assert "Traceback" not in log, log
    assert log.count("messages with the table:") == 1, log[-3000:]


def test_a_table_that_refuses_every_protocol_version_is_refused_once_naming_them(procs):
    _, run, _, _ = misbehaving(procs, "refuses_identify")
    assert run.wait(WAIT_TIMEOUT) == 2
    log = stderr_of(run)
    assert "refuses protocol 1.1 (this table speaks protocol 2.0) and 1.0" in log, log
    assert "speaks protocol 1.0" not in log and "trying again" not in log, log


def test_a_table_that_never_answers_identify_says_so_in_status_and_log_and_is_tried_again(procs):
    _, run, client, config = misbehaving(procs, "silent_identify")
    connection = wait_for(lambda: ((status_of(client) or {}).get("connection") or {}).get("problem") and
                          status_of(client)["connection"], "the connection's problem", timeout=20)
    assert connection["state"] != "up" and connection["retry_in"] > 0, connection
    assert "acknowledges commands but does not answer them (no reply to identify" in connection["problem"]
    shown = mjtable("status", "--config", str(config)).stdout
    assert "connection: E202 operation_timeout: the table acknowledges commands" in shown, shown
    # Tried again on the stated schedule (0.25 s, then twice as long), each failure logged.
    wait_for(lambda: stderr_of(run).count("cannot connect to the table") >= 2, "a second try", timeout=30)
    assert "trying again in 0.2 s" in stderr_of(run) and "trying again in 0.5 s" in stderr_of(run)


def test_a_game_is_abandoned_while_the_link_is_restored_and_the_store_keeps_it(procs):
    sim, port = start_sim(procs, "--pty", "--profile", str(PROFILES / "four-port.yaml"), "--speed", str(SPEED))
    table = TableSession(procs, port, "four-port", "ema-2016")
    table.ok("start")
    table.wait_hand_after(0)
    sim.send_signal(signal.SIGSTOP)  # the table falls silent: the link is lost, then restored
    try:
        wait_for(lambda: table.polled_status()["state"] == "reconnecting", "the link to be restored")
        assert table.ok("abandon") is not None  # taken: the store records it at once
        assert "scores" not in table.polled_status()
    finally:
        sim.send_signal(signal.SIGCONT)
    wait_for(lambda: table.polled_status()["state"] == "idle", "the table to be back, idle")
    table.stop_controller(signal.SIGTERM)
    table.start_controller()  # the store says no game is running: nothing to carry on
    assert table.polled_status()["state"] == "idle"
