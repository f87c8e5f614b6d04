"""The operator's paths through the real processes: `mjtable sim --pty`, `mjtable run` on a
table config, and the CLI client commands as docs/API.md shows them. A game started with
another rule set than the config's, a riichi, a restart in the middle of the hand, a
pause with the result entered while paused, and resume."""
from __future__ import annotations

import json
import subprocess

from .process_harness import MJTABLE, RunProcess, cli, in_play, start_sim, status, stderr_of, write_config

SEED = 4


def test_a_wrc_game_keeps_its_rules_over_a_restart_and_a_result_while_paused(procs, short_tmp):
    run = RunProcess(procs, write_config(short_tmp, start_sim(procs, SEED), ruleset="ema-2016"))
    socket = run.client.path
    run.start()
    assert cli(socket, "start", "--ruleset", "wrc").returncode == 0
    in_play(run, 1)

    assert cli(socket, "riichi", "0").returncode == 0
    shown = status(socket)
    # The bet is on the table at once: off seat 0's score, one stick more in the centre.
    assert (shown["scores"], shown["riichi_sticks"]) == ([29000, 30000, 30000, 30000], 1)

    run.kill()
    run.start()  # the config still names ema-2016
    in_play(run, 1)
    resumed = status(socket)
    assert resumed["ruleset"] == "wrc" and resumed["hand_in_play"]["riichi"] == [0]
    assert (resumed["scores"], resumed["riichi_sticks"]) == ([29000, 30000, 30000, 30000], 1)
    assert "continuing game 1 with rule set wrc" in stderr_of(run.proc)

    assert cli(socket, "pause").returncode == 0
    entered = cli(socket, "result", "draw", "--tenpai", "0", "3", "--riichi", "0")
    assert entered.returncode == 0, entered.stderr
    held = status(socket)
    # WRC draw: the two noten seats pay 1,500 each to the two tenpai seats; seat 0's bet stays a stick.
    assert (held["state"], held["waiting_for"]) == ("paused", "resume")
    assert (held["scores"], held["riichi_sticks"]) == ([30500, 28500, 28500, 31500], 1)
    journal = subprocess.run([MJTABLE, "journal", "--db", str(short_tmp / "state.db")], capture_output=True,
                             text=True, timeout=20, check=True).stdout
    (hand,) = [json.loads(line) for line in journal.splitlines()]
    assert (hand["ruleset"], hand["payments"], hand["riichi_sticks_after"]) == ("wrc", [500, -1500, -1500, 1500], 1)

    assert cli(socket, "resume").returncode == 0
    in_play(run, 2)
    log = stderr_of(run.proc)
    assert "paused" in log and "`mjtable resume`" in log and " ERROR " not in log
