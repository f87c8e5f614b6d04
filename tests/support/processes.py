"""What every test that runs the product as a user does needs: the installed `mjtable`
console script, waiting with a deadline, and child processes that are killed at teardown
whatever happened."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

MJTABLE = str(Path(sys.executable).with_name("mjtable"))


def wait_for(condition, what: str, timeout: float = 10.0, interval: float = 0.01):
    """Poll ``condition()`` until it is truthy (and return it); fail with ``what`` on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


class Processes:
    """The long-running children (simulators, controllers) of a test; all stopped at teardown."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[subprocess.Popen] = []

    def start(self, *args: str, name: str, cwd: Path | None = None, **popen) -> subprocess.Popen:
        path = self.folder / f"{name}.{len(self.started)}.err"
        with open(path, "w") as stderr:
            proc = subprocess.Popen([MJTABLE, *args], stderr=stderr, stdin=subprocess.DEVNULL,
                                    cwd=cwd or self.folder, **popen)
        proc.stderr_path = path
        self.started.append(proc)
        return proc

    def stop_all(self) -> None:
        stop_in_order(self.started)


def stop_in_order(processes: list[subprocess.Popen], patience: float = 10.0) -> None:
    """SIGTERM each, the last started first (controllers before the tables they talk to; a
    demo ends the simulators it started, which SIGKILL would orphan), SIGKILL what stays."""
    for proc in reversed(processes):
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(patience)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(patience)
        if proc.stdout:
            proc.stdout.close()


def stderr_of(proc: subprocess.Popen) -> str:
    return Path(proc.stderr_path).read_text()


def wait_until_serving(run: subprocess.Popen, client) -> None:
    """Wait for `mjtable run` to answer on its control socket past start-up (connected to
    the table); fail at once, with its stderr, if it exits instead."""
    from controller.api.client import ClientError

    def ready():
        assert run.poll() is None, f"mjtable run exited {run.returncode}: {stderr_of(run)}"
        try:
            return client.request("status")["state"] not in ("boot", "connecting", "self_test")
        except ClientError:  # not listening yet, or a killed run's stale socket
            return False
    wait_for(ready, "mjtable run to be ready")
