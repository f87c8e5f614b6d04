"""`mjtable demo --tables 2` stopped by a signal (systemd's SIGTERM, the terminal's Ctrl-C):
every table hangs up, every simulator it started ends, and nothing is dumped on stderr."""
import os
import signal
import subprocess
from pathlib import Path

import pytest

from ...support.processes import wait_for

QUIET = ("Traceback", "Task was destroyed but it is pending", "table not reachable")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the demo's simulators, `mjtable sim --pty`)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except FileNotFoundError:  # ended meanwhile
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has ended (its parent has not reaped it yet)


def _simulators(pid: int) -> list[int]:
    sims = [child for child in _children(pid)
            if b"sim\0--pty" in Path(f"/proc/{child}/cmdline").read_bytes()]
    return sims if len(sims) == 2 else []


@pytest.mark.parametrize("web", [["--no-web"], ["--web", "127.0.0.1:0"]], ids=["no-web", "web"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_every_table_and_simulator(procs, sig, web):
    demo = procs.start("demo", "--tables", "2", "--speed", "600", *web, name="demo",
                       stdout=subprocess.PIPE, text=True)
    wait_for(lambda: demo.stdout.readline().startswith("demo-"), "a table's first line", timeout=60)
    sims = wait_for(lambda: _simulators(demo.pid), "the two simulators", timeout=30)
    try:
        os.kill(demo.pid, sig)
        demo.wait(30)
        stderr = Path(demo.stderr_path).read_text()
        assert demo.returncode == 0, stderr
        assert [pid for pid in sims if _alive(pid)] == []
        assert not [line for line in stderr.splitlines() if any(word in line for word in QUIET)], stderr
        assert "stopped before the game's end" in demo.stdout.read()
    finally:
        for pid in sims:  # the product's failure must not outlive the test
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
