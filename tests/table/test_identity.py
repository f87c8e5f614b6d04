"""A table whose identity announces figures the host cannot work with is refused at start-up,
naming the field and its value, instead of crashing the controller (receive window 0) or
spinning heartbeats (a timeout of 1 ms). Refused once: a restart loop helps nobody."""
from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
import yaml

from controller import rules as R
from controller.table.capabilities import UnusableTable, identity_problem
from controller.game.controller import Controller
from firmware_protocol.virtual_time import run_virtual
from firmware_protocol.profile import DEFAULT_PROFILE, load_profile
from sim.serve import connect_in_process
from sim.table import SimulatedTable

from ..support.processes import MJTABLE

GOOD = {"protocol_version": 1, "firmware": "1.0", "model": "T", "boot_id": 1, "tiles": 136, "stacks": [17] * 4,
        "tile_sets": 2, "dice": 2, "dead_wall_separator": True, "dora_flipper": True, "seat_displays": True,
        "centre_display": True, "wind_marker": 2, "seat_buttons": True, "heartbeat_timeout_ms": 3000,
        "frame_size": 64, "receive_window": 4}


def test_a_sane_identity_is_usable():
    assert identity_problem(GOOD) is None


@pytest.mark.parametrize("field, value", [
    ("receive_window", 0), ("receive_window", 200), ("heartbeat_timeout_ms", 0), ("heartbeat_timeout_ms", 1),
    ("heartbeat_timeout_ms", 199), ("frame_size", 16), ("tile_sets", 0), ("dice", 0), ("dice", 9),
    ("wind_marker", 7), ("stacks", [17, 17, 17]), ("stacks", [17, 17, 0, 17]), ("tiles", 0), ("tiles", 137),
    ("tiles", 200),
])
def test_an_unusable_figure_is_named_with_its_value(field, value):
    problem = identity_problem({**GOOD, field: value})
    assert problem and problem.startswith(f"{field} {value}")


def _profile(tmp_path: Path, **link) -> Path:
    data = yaml.safe_load(DEFAULT_PROFILE.read_text())
    data["link"].update(link)
    path = tmp_path / "liar.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("link", [{"receive_window": 0}, {"heartbeat_timeout_ms": 1}])
def test_the_controller_refuses_the_table_at_start_instead_of_crashing_or_retrying(tmp_path, link):
    table_profile = load_profile(_profile(tmp_path, **link))

    async def start():
        loop = asyncio.get_running_loop()
        table = SimulatedTable(table_profile)
        controller = Controller(lambda: _connected(loop, table), R.load_ruleset("ema-2016"))
        try:
            await controller.start()
        finally:
            controller.close()

    with pytest.raises(UnusableTable) as refused:
        run_virtual(start())
    field, value = next(iter(link.items()))
    assert f"{field} {value}" in str(refused.value)


async def _connected(loop, table):
    return connect_in_process(loop, table)


@pytest.mark.parametrize("link", [{"receive_window": 0}, {"heartbeat_timeout_ms": 1}])
def test_mjtable_run_exits_2_naming_the_field(short_tmp, link):
    tmp_path = short_tmp
    sim = subprocess.Popen([MJTABLE, "sim", "--pty", "--speed", "50", "--profile", str(_profile(tmp_path, **link))],
                           cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                           text=True)
    try:
        port = sim.stdout.readline().strip()
        config = tmp_path / "table.yaml"
        config.write_text(f"kind: table\nserial: {{port: {port}, baud: 115200}}\nprofile: {DEFAULT_PROFILE}\n"
                          "ruleset: ema-2016\nstate: {database: var/state.db}\napi: {socket: var/api.sock}\n")
        run = subprocess.run([MJTABLE, "run", "--config", str(config)], cwd=tmp_path, capture_output=True,
                             text=True, timeout=30, stdin=subprocess.DEVNULL)
    finally:
        sim.terminate()
        sim.wait(5)
        sim.stdout.close()
    field, value = next(iter(link.items()))
    assert run.returncode == 2, run.stderr
    assert f"{field} {value}" in run.stderr
    assert run.stderr.count("cannot be used") == 1  # refused once, not retried
