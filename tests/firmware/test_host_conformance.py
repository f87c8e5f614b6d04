"""`mjtable conformance` through the console script against the C core's host build on a
pty, as a table maker runs it against their board: every check passes or is n/a."""
from __future__ import annotations

import subprocess

from ..support.processes import MJTABLE, Processes
from .tables import start_host_table

KIT_TIMEOUT = 120
WRAP_SOON = str(2**32 - 4000)  # the tick wraps 4 s into the run
# Four tables at once (the runs are mostly waits): every device and feature with an MCU
# reset and a tick wrap; no separator, no flipper and a lamp-only marker; 32-byte frames
# (PROTOCOL.md "Frames"); a 1.0 table of three-player walls.
TABLES = {
    "sticks": ("--profile", "four-port-sticks", "--tick-start", WRAP_SOON),
    "basic": ("--profile", "basic"),
    "small frames": ("--frame-size", "32"),
    "1.0 sanma": ("--profile", "sanma-108", "--protocol", "1.0"),
}


def verdicts(out: str) -> dict[str, str]:
    return {line.split()[1]: line.split()[0] for line in out.splitlines()[:-1]}


def test_the_host_build_passes_the_kit_with_an_mcu_reset_and_a_tick_wrap(host_build, tmp_path):
    procs = Processes(tmp_path)
    try:
        runs = {}
        for name, args in TABLES.items():
            table, port = start_host_table(procs, host_build, "--speed", "50", *args)
            reset = ["--reset-with", f"kill -USR1 {table.pid}"] if name == "sticks" else []
            runs[name] = subprocess.Popen([MJTABLE, "conformance", port, *reset], stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True)
        done = {name: (run.communicate(timeout=KIT_TIMEOUT), run.returncode) for name, run in runs.items()}
    finally:
        procs.stop_all()
    for name, ((out, err), code) in done.items():
        assert code == 0, f"{name}:\n{out}{err}"
    seen = {name: verdicts(out) for name, ((out, _), _) in done.items()}
    assert {check: v for check, v in seen["sticks"].items() if v == "n/a"} == {
        "unsupported": "n/a", "state.lid_open": "n/a"}
    assert seen["sticks"]["reset.state"] == seen["sticks"]["boot.booted"] == seen["sticks"]["v11.read_sticks"] == "pass"
    assert seen["basic"]["unsupported"] == seen["basic"]["command.set_wind_marker"] == "pass"  # a lamp-only marker
    assert seen["basic"]["command.flip_dora"] == "n/a"
    assert seen["small frames"]["session.identity"] == "pass"
    assert seen["1.0 sanma"]["v11.identity"] == "n/a" and seen["1.0 sanma"]["command.shuffle"] == "pass"
