"""The pause against the table's own pace, through `mjtable run` on `mjtable sim --pty`:
requests that reach the controller in one write (`start` and `pause`, a result and
`pause`, `resume` and `pause`) leave no window in which a motion command goes out between
a pause's `stop` and the operator's `resume` (the simulator's trace is what the table was
told); a `resume` as the line is cut is refused with what to do, the table kept paused."""
from __future__ import annotations

import json
import socket

from .process_harness import RunProcess, cli, in_play, start_sim, status, stderr_of, write_config
from .service_harness import wait_for

SEED = 4
MOTION = {"collect_tiles", "shuffle", "raise_walls", "roll_dice", "separate_dead_wall", "flip_dora",
          "set_wind_marker"}


def in_one_write(path, *requests: dict) -> list[dict]:
    """Send the requests in one write to the control socket; their replies, in order."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(20)
        sock.connect(str(path))
        sock.sendall(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
        replies = b""
        while replies.count(b"\n") < len(requests):
            chunk = sock.recv(65536)
            assert chunk, "the controller closed the connection"
            replies += chunk
    return [json.loads(line) for line in replies.splitlines()]


def sent_while_paused(path) -> list[tuple[int, str]]:
    """Motion commands the table was sent between a `stop` and the next `resume`."""
    paused, sent = False, []
    for i, record in enumerate(map(json.loads, path.read_text().splitlines())):
        if record["dir"] != "cmd":
            continue
        if record["name"] in ("stop", "resume"):
            paused = record["name"] == "stop"
        elif paused and record["name"] in MOTION:
            sent.append((i, record["name"]))
    return sent


def test_no_motion_command_goes_out_between_a_pause_and_resume_in_one_write(procs, short_tmp):
    recorded = short_tmp / "trace.jsonl"
    run = RunProcess(procs, write_config(short_tmp, start_sim(procs, SEED, "--trace", str(recorded), speed=200)))
    run.start()
    path = run.client.path
    pause, resume = {"op": "pause"}, {"op": "resume"}

    replies = in_one_write(path, {"op": "start"}, pause)  # the game's opening: the wind marker
    assert [r["ok"] for r in replies] == [True, True], replies
    for _ in range(6):  # each setup step, held again as soon as it carries on
        wait_for(lambda: status(path)["state"] == "paused", "paused")
        assert [r["ok"] for r in in_one_write(path, resume, pause)] == [True, True]
    assert in_one_write(path, resume)[0]["ok"]
    in_play(run, 1)
    replies = in_one_write(path, {"op": "result", "hand": 1, "result": {"kind": "draw", "tenpai": []}}, pause)
    assert [r["ok"] for r in replies] == [True, True], replies  # the next hand's collect, shuffle, raise
    wait_for(lambda: status(path)["state"] == "paused", "paused")
    for _ in range(4):
        assert [r["ok"] for r in in_one_write(path, resume, pause)] == [True, True]
    assert in_one_write(path, resume)[0]["ok"]
    in_play(run, 2)

    assert sent_while_paused(recorded) == []
    assert status(path)["fault"] is None


def test_resume_as_the_line_is_cut_is_refused_with_what_to_do_and_the_table_stays_paused(procs, short_tmp):
    run = RunProcess(procs, write_config(short_tmp, start_sim(procs, SEED, speed=200)))
    run.start()
    path = run.client.path
    assert cli(path, "start").returncode == 0
    in_play(run, 1)
    assert cli(path, "pause").returncode == 0
    table = procs.started[0]
    table.kill()  # the line is cut: the controller hears nothing more from the table
    table.wait(5)
    resumed = cli(path, "resume")
    assert resumed.returncode == 1, resumed.stdout
    assert "stays paused" in resumed.stderr and "resume again once the table answers" in resumed.stderr, resumed.stderr
    assert "internal" not in resumed.stderr
    held = status(path)
    assert held["state"] in ("paused", "reconnecting") and held["waiting_for"] in ("resume", "result")
    assert "Traceback" not in stderr_of(run.proc)
