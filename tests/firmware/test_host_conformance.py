"""`mjtable conformance` through the console script against the C core's host build on a
pty, as a table maker runs it against their board: every check passes or is n/a."""
from __future__ import annotations

import subprocess

from ..support.processes import MJTABLE, Processes
from .tables import start_host_table

KIT_TIMEOUT = 120
WRAP_SOON = str(2**32 - 4000)  # the tick wraps 4 s into the run


def kit(port: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([MJTABLE, "conformance", port, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def verdicts(out: str) -> dict[str, str]:
    return {line.split()[1]: line.split()[0] for line in out.splitlines()[:-1]}


def test_the_host_build_passes_the_kit_with_an_mcu_reset_and_a_tick_wrap(host_build, tmp_path):
    procs = Processes(tmp_path)
    try:
        # Three tables at once: the runs are mostly waits.
        sticks, sticks_port = start_host_table(procs, host_build, "--profile", "four-port-sticks", "--speed", "50",
                                               "--tick-start", WRAP_SOON)
        _, basic_port = start_host_table(procs, host_build, "--profile", "basic", "--speed", "50")
        _, small_port = start_host_table(procs, host_build, "--speed", "50", "--frame-size", "32")
        runs = [kit(sticks_port, "--reset-with", f"kill -USR1 {sticks.pid}"), kit(basic_port), kit(small_port)]
        (sticks_out, sticks_err), (basic_out, basic_err), (small_out, small_err) = (
            run.communicate(timeout=KIT_TIMEOUT) for run in runs)
    finally:
        procs.stop_all()
    assert runs[0].returncode == 0, sticks_out + sticks_err
    assert runs[1].returncode == 0, basic_out + basic_err
    assert runs[2].returncode == 0, small_out + small_err  # 32-byte frames (PROTOCOL.md "Frames")
    seen = verdicts(sticks_out)
    assert {name: v for name, v in seen.items() if v == "n/a"} == {"unsupported": "n/a", "state.lid_open": "n/a"}
    assert seen["reset.state"] == seen["boot.booted"] == seen["v11.read_sticks"] == "pass"
    basic = verdicts(basic_out)
    assert basic["unsupported"] == "pass" and basic["command.set_wind_marker"] == "pass"  # a lamp-only marker
    assert basic["command.flip_dora"] == "n/a"
