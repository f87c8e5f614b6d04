"""`mjtable pause` and `mjtable resume` on a real `mjtable run` while the walls go up:
the simulator's trace shows the stop while the lifts moved and the walls raised after
resume. And a pause while idle, refused starts included, through the in-process service."""
from __future__ import annotations

import json
import re
import time

import pytest

from controller.api.client import RequestError
from firmware_protocol.profile import CONFIG_DIR

from .process_harness import RunProcess, cli, in_play, start_sim, status, write_config
from .service_harness import wait_for

SEED = 4
SPEED = 10
SLOW_WALLS = 40.0  # seconds at speed 1: the walls take 4 s to go up, time to catch them moving


def slow_walls_profile(folder) -> str:
    """four-port with walls slow enough to be paused while they rise, on a loaded machine too."""
    shipped = (CONFIG_DIR / "tables" / "four-port.yaml").read_text()
    path = folder / "slow-walls.yaml"
    path.write_text(re.sub(r"(?m)^(\s+raise_walls:) [0-9.]+", rf"\1 {SLOW_WALLS}", shipped))
    return str(path)


def trace(path) -> list[tuple[str, str]]:
    return [(r["dir"], r["name"]) for r in map(json.loads, path.read_text().splitlines())]


def test_mjtable_pause_stops_the_rising_walls_and_resume_raises_them(procs, short_tmp):
    recorded = short_tmp / "trace.jsonl"
    port = start_sim(procs, SEED, "--trace", str(recorded), "--profile", slow_walls_profile(short_tmp), speed=SPEED)
    run = RunProcess(procs, write_config(short_tmp, port))
    socket = run.client.path
    run.start()
    assert cli(socket, "start").returncode == 0
    wait_for(lambda: run.client.request("status")["state"] == "raising", "the walls going up", interval=0.005)

    paused = cli(socket, "pause")
    assert paused.returncode == 0, paused.stderr
    held = status(socket)
    assert (held["state"], held["waiting_for"], held["fault"]) == ("paused", "resume", None)
    time.sleep(SLOW_WALLS / SPEED)  # as long as the walls take: they must not have gone up
    names = trace(recorded)
    stop = names.index(("cmd", "stop"))
    assert ("cmd", "raise_walls") in names[:stop] and ("event", "walls_raised") not in names
    refused = cli(socket, "retry")
    assert refused.returncode == 1 and "resume carries on (`mjtable resume`)" in refused.stderr

    assert cli(socket, "resume").returncode == 0
    in_play(run, 1)
    names = trace(recorded)
    resume = names.index(("cmd", "resume"), stop)
    assert ("cmd", "raise_walls") in names[resume:] and ("event", "walls_raised") in names[resume:]


def test_a_pause_while_idle_holds_the_table_and_start_waits_for_resume(service):
    assert service.request("pause") == {}
    status = service.status()
    assert (status["state"], status["waiting_for"]) == ("paused", "resume")
    assert service.call(lambda: service.table.firmware.stopped)
    with pytest.raises(RequestError) as refused:
        service.request("start")
    assert refused.value.code == "not_allowed" and "paused" in refused.value.message
    assert "resume" in refused.value.message
    assert service.request("resume") == {}
    assert service.status()["state"] == "idle"
    service.request("start")
    assert service.wait_playing(1)["fault"] is None
