"""Starting the C core's host build as a table, like `mjtable sim --pty`."""
from __future__ import annotations

import select
import subprocess
from pathlib import Path

from ..support.processes import Processes, stderr_of

START_TIMEOUT = 10.0


def start_host_table(procs: Processes, build: Path, *args: str) -> tuple[subprocess.Popen, str]:
    """`mjt-host ARGS` as a child the Processes kill at teardown; the process and its pty."""
    path = procs.folder / f"mjt-host.{len(procs.started)}.err"
    with open(path, "w") as stderr:
        proc = subprocess.Popen([str(build / "mjt-host"), *args], stdout=subprocess.PIPE, stderr=stderr,
                                stdin=subprocess.DEVNULL, text=True)
    proc.stderr_path = path
    procs.started.append(proc)
    readable, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT)
    assert readable, f"mjt-host printed no pty: {stderr_of(proc)}"
    return proc, proc.stdout.readline().strip()
