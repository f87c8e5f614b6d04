"""A table without optional devices through the installed console script, as a user runs it:
`mjtable sim --pty --profile`, `mjtable run`, `mjtable start`, `mjtable result`."""
from __future__ import annotations

import json
import select
import subprocess
from pathlib import Path

from firmware_protocol.profile import DEFAULT_PROFILE

from ..support.processes import MJTABLE, Processes, stderr_of, wait_for

TIMEOUT = 20.0


def _profile(folder: Path, model: str, **changes: str) -> Path:
    """The four-port profile with some lines changed (`key: value`)."""
    lines = []
    for line in DEFAULT_PROFILE.read_text().splitlines():
        key = line.split(":")[0]
        lines.append(f"{key}: {changes[key]}" if key in changes else line)
    path = folder / f"{model}.yaml"
    path.write_text("\n".join(lines).replace("four-port-136", model) + "\n")
    return path


def _sim(procs: Processes, profile: Path, trace: Path) -> str:
    sim = procs.start("sim", "--pty", "--profile", str(profile), "--speed", "2000", "--seed", "3", "--trace",
                      str(trace), name="sim", stdout=subprocess.PIPE, text=True)
    readable, _, _ = select.select([sim.stdout], [], [], 10)
    assert readable, stderr_of(sim)
    return sim.stdout.readline().strip()


def _config(folder: Path, port: str, profile: Path, ruleset: str) -> Path:
    config = folder / "table.yaml"
    config.write_text(f"kind: table\nserial: {{port: {port}, baud: 115200}}\nprofile: {profile}\nruleset: {ruleset}\n"
                      "state: {database: state.db}\napi: {socket: api.sock}\ngame: {starting_dealer: 0}\n")
    return config


def _client(config: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([MJTABLE, *args, "--config", str(config)], capture_output=True, text=True, timeout=10)


def _wait_status(config: Path, ready, what: str) -> dict:
    def answered():
        reply = _client(config, "status", "--json")
        return reply.returncode == 0 and ready(status := json.loads(reply.stdout)) and status
    return wait_for(answered, what, TIMEOUT, 0.05)


def _playing(seq: int):
    return lambda s: s["state"] == "playing" and s["hand_in_play"]["seq"] == seq


def test_a_table_without_marker_and_seat_displays_plays(short_tmp, procs):
    folder = short_tmp
    profile = _profile(folder, "plain-136", wind_marker="none", seat_displays="false")
    trace = folder / "trace.jsonl"
    config = _config(folder, _sim(procs, profile, trace), profile, "ema-2016")
    run = procs.start("run", "--config", str(config), name="run")
    _wait_status(config, lambda s: s["state"] == "idle", "the controller to be ready")

    refused = _client(config, "start", "--ruleset", "mcr")
    assert refused.returncode != 0 and "plain-136" in refused.stderr and "mcr" in refused.stderr

    assert _client(config, "start").returncode == 0
    _wait_status(config, _playing(1), "hand 1 in play")
    assert _client(config, "result", "draw", "--tenpai", "0").returncode == 0
    _wait_status(config, _playing(2), "hand 2 in play")
    assert run.poll() is None

    records = [json.loads(line) for line in trace.read_text().splitlines()]
    sent = [r for r in records if r["dir"] == "cmd"]
    assert [r for r in records if r["name"] == "rejected"] == []
    assert not [r for r in sent if r["name"] in ("set_wind_marker", "show_scores")]
    texts = [r["args"]["text"] for r in sent if r["name"] == "show_text"]
    assert "E1 dealer 0 honba 0 sticks 0" in texts  # the round, in place of the marker
    assert "scores 33000 29000 29000 29000" in texts  # the dealer alone tenpai takes 3,000
    assert "E1 dealer 0 honba 1 sticks 0" in texts  # and deals again


def test_run_refuses_a_rule_set_the_table_cannot_play(short_tmp, procs):
    folder = short_tmp
    profile = _profile(folder, "four-port-136")
    config = _config(folder, _sim(procs, profile, folder / "trace.jsonl"), profile, "mcr")
    run = procs.start("run", "--config", str(config), name="run")
    assert run.wait(TIMEOUT) == 2
    err = stderr_of(run)
    assert "four-port-136" in err and "mcr" in err and "144" in err and "Traceback" not in err
