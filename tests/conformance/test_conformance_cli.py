"""`mjtable conformance` through the console script, as a table maker runs it: against
`mjtable sim` on a pty for every shipped profile, on TCP, against a broken table, and
with --reset-with for the MCU reset checks."""
from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ..support.processes import MJTABLE, Processes
from .broken_tables import BROKEN
from firmware_protocol.conformance import CHECKS

SERVE_TABLE = Path(__file__).with_name("serve_table.py")
KIT_TIMEOUT = 120


def conformance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([MJTABLE, "conformance", *args], capture_output=True, text=True, timeout=KIT_TIMEOUT)


def first_line(proc: subprocess.Popen) -> str:
    line = proc.stdout.readline().strip()
    assert line, f"the table did not start: {Path(proc.stderr_path).read_text()}"
    return line


def serve_script(procs: Processes, *args: str) -> subprocess.Popen:
    """tests/conformance/serve_table.py in a child the fixture kills at teardown."""
    path = procs.folder / f"table.{len(procs.started)}.err"
    with open(path, "w") as stderr:
        proc = subprocess.Popen([sys.executable, str(SERVE_TABLE), *args], stdout=subprocess.PIPE, text=True,
                                stderr=stderr, stdin=subprocess.DEVNULL)
    proc.stderr_path = path
    procs.started.append(proc)
    return proc


def verdicts(out: str) -> dict[str, str]:
    return {line.split()[1]: line.split()[0] for line in out.splitlines()[:-1]}


def test_the_simulator_passes_on_a_pty(procs):
    """One profile through the console scripts (12 s of real time); every shipped profile
    runs the same kit against the same simulated firmware in test_conformance_kit.py."""
    sim = procs.start("sim", "--pty", "--profile", "four-port-sticks", "--speed", "50", name="sim",
                          stdout=subprocess.PIPE, text=True)
    result = conformance(first_line(sim))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(CHECKS) + 1
    assert lines[-1].startswith("conformance PASS: ")
    assert all(line.split()[0] in ("pass", "n/a") and "§" in line for line in lines[:-1])
    assert verdicts(result.stdout)["reset.state"] == "n/a"  # nothing can reset the MCU of `mjtable sim`
    assert {name: v for name, v in verdicts(result.stdout).items() if name.startswith("v11.")} == {
        c.name: "pass" for c in CHECKS if c.name.startswith("v11.")}  # a 1.1 table with a stick reader


def test_the_simulator_passes_on_tcp_and_each_check_is_printed_as_it_runs(procs):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sim = procs.start("sim", "--tcp", f"127.0.0.1:{port}", "--speed", "50", name="sim",
                          stdout=subprocess.PIPE, text=True)
    kit = procs.start("conformance", first_line(sim), name="kit", stdout=subprocess.PIPE, text=True)
    assert kit.stdout.readline().startswith("pass  session.reset ")
    assert kit.poll() is None  # the first line came while the rest still runs
    rest = kit.stdout.read()
    assert kit.wait(KIT_TIMEOUT) == 0, rest
    assert rest.splitlines()[-1].startswith("conformance PASS: ")


def test_the_command_is_listed_with_the_options_docs_conformance_lists():
    assert "conformance" in subprocess.run([MJTABLE, "--help"], capture_output=True, text=True).stdout
    shown = subprocess.run([MJTABLE, "conformance", "--help"], capture_output=True, text=True).stdout
    assert all(option in shown for option in ("PORT", "--baud", "--reset-with", "--op-timeout"))


def test_a_table_that_executes_duplicates_fails_that_check_and_the_run(procs):
    table = serve_script(procs, "four-port", "forgets-duplicates")
    result = conformance(first_line(table))
    assert result.returncode == 1
    assert [name for name, verdict in verdicts(result.stdout).items() if verdict == "FAIL"] == ["link.duplicate"]
    assert BROKEN["forgets-duplicates"][1] == "link.duplicate"
    assert result.stdout.splitlines()[-1].startswith("conformance FAIL: ")


def test_reset_with_runs_the_mcu_reset_checks(procs):
    table = serve_script(procs, "sanma-108")
    result = conformance(first_line(table), "--reset-with", f"kill -USR1 {table.pid}")
    assert result.returncode == 0, result.stdout + result.stderr
    seen = verdicts(result.stdout)
    assert seen["reset.reset_request"] == seen["reset.booted"] == seen["reset.state"] == "pass"


def test_a_port_that_cannot_be_opened_is_reported():
    result = conformance("/dev/no-such-table")
    assert result.returncode == 2
    assert "cannot open /dev/no-such-table" in result.stderr


def test_the_kit_runs_with_firmware_protocol_alone():
    # A table maker's machine may have only firmware_protocol: the controller and the
    # simulator must not be needed (importing them fails here).
    code = ("import runpy, sys; sys.modules['controller'] = sys.modules['sim'] = None; "
            "sys.argv = ['kit', '--help']; runpy.run_module('firmware_protocol.conformance', run_name='__main__')")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert "--reset-with" in shown.stdout
