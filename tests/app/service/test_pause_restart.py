"""A pause survives a restart of `mjtable run`: paused in a setup step, in play or idle,
then killed (SIGKILL, or SIGTERM as `systemctl restart` sends) and started again, the
controller shows the table paused and sends it no motion command (the simulator's trace
says what the table was told) until the operator's `mjtable resume`; then the game
carries on, and a game paused in play ends normally."""
from __future__ import annotations

import json
import re
import signal
import time

import pytest

from firmware_protocol.profile import CONFIG_DIR, DEFAULT_PROFILE, load_profile

from .process_harness import RunProcess, cli, start_sim, status, write_config
from .service_harness import wait_for

SEED = 4
SLOW = 40.0  # seconds at speed 1 for the operation paused in: 4 s at speed 10, time to catch it
SLOW_SPEED = 10
FAST_SPEED = 200
WATCHDOG = load_profile(DEFAULT_PROFILE).heartbeat_timeout_ms / 1000
MOTION = {"collect_tiles", "shuffle", "raise_walls", "roll_dice", "separate_dead_wall", "flip_dora",
          "set_wind_marker", "resume"}


def slow_profile(folder, timing: str) -> str:
    """four-port with one operation slow enough to be paused while it runs."""
    shipped = (CONFIG_DIR / "tables" / "four-port.yaml").read_text()
    path = folder / f"slow-{timing}.yaml"
    path.write_text(re.sub(rf"(?m)^(\s+{timing}:) [0-9.]+", rf"\1 {SLOW}", shipped))
    return str(path)


def commands(path) -> list[str]:
    return [r["name"] for r in map(json.loads, path.read_text().splitlines()) if r["dir"] == "cmd"]


class PausedTable:
    """One `mjtable run` on one `mjtable sim --pty --trace`, driven through the console script."""

    def __init__(self, procs, folder, *options: str, speed: float, dealer: int = 0) -> None:
        self.trace = folder / "trace.jsonl"
        port = start_sim(procs, SEED, "--trace", str(self.trace), *options, speed=speed)
        config = write_config(folder, port)
        text = config.read_text().replace("starting_dealer: 0", f"starting_dealer: {dealer}")
        if "--profile" in options:  # the host's deadlines from the slow profile too: its slow step is no overrun
            text = text.replace(f"profile: {DEFAULT_PROFILE}", f"profile: {options[options.index('--profile') + 1]}")
        config.write_text(text)
        self.run = RunProcess(procs, config)
        self.socket = self.run.client.path
        self.run.start()

    def ok(self, *args: str) -> None:
        done = cli(self.socket, *args)
        assert done.returncode == 0, done.stderr

    def wait_state(self, state: str, interval: float = 0.005) -> None:
        wait_for(lambda: self.run.client.request("status")["state"] == state, state, timeout=20, interval=interval)

    def restart_paused(self, how: signal.Signals, waiting: str = "resume") -> None:
        """Pause, stop the controller with `how`, start it again: paused still, nothing moved
        (a hand in play waits for its result, taken while paused, as before the restart)."""
        self.ok("pause")
        assert status(self.socket)["state"] == "paused"
        self.run.proc.send_signal(how)
        self.run.proc.wait(10)
        if how == signal.SIGKILL:
            time.sleep(WATCHDOG + 0.5)  # the table's watchdog has stopped it for the host's silence
        before = len(commands(self.trace))
        self.run.start()
        time.sleep(1.5)  # a controller that carries on by itself does so at once
        held = status(self.socket)
        assert (held["state"], held["waiting_for"]) == ("paused", waiting), held
        moved = [name for name in commands(self.trace)[before:] if name in MOTION]
        assert moved == [], f"sent to the paused table before the operator's resume: {moved}"
        self.ok("resume")

    def in_play(self, seq: int) -> None:
        """Hand `seq` in play; a slow step run again after resume may take a while on a loaded machine."""
        def playing():
            now = self.run.client.request("status")
            return now["state"] == "playing" and (now.get("hand_in_play") or {}).get("seq") == seq
        wait_for(playing, f"hand {seq} in play", timeout=30)

    def result(self, seq: int) -> None:
        self.ok("result", "draw", "--tenpai", "--hand", str(seq))  # nobody tenpai: the deal passes


@pytest.mark.parametrize("step, timing, hand, how", [
    ("raising", "raise_walls", 1, signal.SIGKILL),
    ("raising", "raise_walls", 1, signal.SIGTERM),
    ("collecting", "collect", 2, signal.SIGKILL),
    ("rolling", "dice", 1, signal.SIGKILL),
    ("separating", "separate", 1, signal.SIGKILL),
])
def test_a_restart_while_paused_in_a_setup_step_moves_nothing_until_resume(procs, short_tmp, step, timing, hand,
                                                                            how):
    table = PausedTable(procs, short_tmp, "--profile", slow_profile(short_tmp, timing), speed=SLOW_SPEED)
    table.ok("start")
    if hand == 2:
        table.in_play(1)
        table.result(1)
    table.wait_state(step)
    table.restart_paused(how)
    table.in_play(hand)
    assert status(table.socket)["fault"] is None


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_restart_while_paused_in_play_moves_nothing_and_the_game_ends_after_resume(procs, short_tmp, how):
    table = PausedTable(procs, short_tmp, speed=FAST_SPEED)
    table.ok("start")
    table.in_play(1)
    table.restart_paused(how, waiting="result")
    seq = 1
    while True:
        table.in_play(seq)
        table.result(seq)
        wait_for(lambda: status(table.socket)["state"] != "playing"
                 or status(table.socket)["hand_in_play"]["seq"] != seq, f"hand {seq} settled", timeout=20)
        if status(table.socket)["state"] == "game_over":
            break
        seq += 1
    assert seq >= 8 and status(table.socket)["fault"] is None


def test_a_restart_while_paused_idle_keeps_the_table_paused(procs, short_tmp):
    table = PausedTable(procs, short_tmp, speed=FAST_SPEED)
    table.restart_paused(signal.SIGKILL)
    table.wait_state("idle")
    table.ok("start")
    table.in_play(1)


def test_a_controller_killed_as_the_wind_marker_is_set_does_not_move_it_again(procs, short_tmp):
    # Frozen (SIGSTOP) while the marker moves, so that it is in place when the controller
    # is killed without having heard so: the restarted controller opens the game again.
    # The marker is at East, seat 0 at power-on: seat 1 deals, so that it moves.
    table = PausedTable(procs, short_tmp, "--profile", slow_profile(short_tmp, "marker"), speed=2 * SLOW_SPEED,
                        dealer=1)
    table.ok("start")
    wait_for(lambda: "set_wind_marker" in commands(table.trace), "the wind marker sent", interval=0.002)
    table.run.proc.send_signal(signal.SIGSTOP)
    time.sleep(SLOW / (2 * SLOW_SPEED) + 0.5)  # the marker is in place, before the table's watchdog
    table.run.kill()
    table.run.start()
    table.wait_state("playing", interval=0.05)
    assert commands(table.trace).count("set_wind_marker") == 1


def test_a_hand_in_play_takes_its_result_while_paused_after_a_restart_as_before_it(procs, short_tmp):
    # A pause during play stops the motors, not the players: the hand's result is taken, and
    # stored, while paused — after a restart too, before the operator's resume.
    table = PausedTable(procs, short_tmp, speed=FAST_SPEED)
    table.ok("start")
    table.in_play(1)
    table.ok("pause")
    table.run.proc.send_signal(signal.SIGKILL)
    table.run.proc.wait(10)
    table.run.start()
    wait_for(lambda: status(table.socket)["waiting_for"] == "result", "the hand in play waiting for its result "
             "while paused", timeout=20)
    assert status(table.socket)["state"] == "paused"
    table.result(1)
    wait_for(lambda: status(table.socket)["hands_played"] == 1, "hand 1 stored while paused", timeout=20)
    assert status(table.socket)["state"] == "paused"
    table.ok("resume")
    table.in_play(2)
