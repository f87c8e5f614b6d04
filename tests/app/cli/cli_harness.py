"""The installed `mjtable` console script as a user runs it: `mjtable sim --pty`, `mjtable run`
and the client commands as separate processes, each in a folder of the test's choosing.

Not in conftest.py: conftest modules hold fixtures, which pytest finds by itself; tests
import helpers from modules."""
from __future__ import annotations

import os
import select
import subprocess
from pathlib import Path

from firmware_protocol.profile import DEFAULT_PROFILE

from ...support.processes import MJTABLE, stop_in_order, wait_for

TIMEOUT = 20.0


def mjtable(*args: str, cwd: Path, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """One `mjtable` command to its end; ``env`` is added to a copy of this process' environment
    from which MJTABLE_CONFIG is removed (a test says which config it means)."""
    environment = {k: v for k, v in os.environ.items() if k != "MJTABLE_CONFIG"} | (env or {})
    done = subprocess.run([MJTABLE, *args], cwd=cwd, env=environment, capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    if check:
        assert done.returncode == 0, f"mjtable {' '.join(args)} exited {done.returncode}: {done.stderr}"
    return done


def wait_until(condition, what: str, timeout: float = TIMEOUT):
    return wait_for(condition, what, timeout, interval=0.05)


def table_with_faults(short_tmp: Path, plan: str) -> tuple["Table", list[str]]:
    """A started table whose simulator follows the fault scenario `plan` (YAML text), and
    the `--config` options that reach its controller."""
    folder = short_tmp / "table"
    folder.mkdir()
    path = folder / "faults.yaml"
    path.write_text(plan)
    table = Table(folder, sim_args=("--faults", str(path))).start()
    return table, ["--config", str(table.config)]


class Table:
    """A simulated table (`mjtable sim --pty`) and `mjtable run --config table.yaml` on it, in
    ``folder``; the config names its socket and database relative to itself."""

    def __init__(self, folder: Path, ruleset: str = "ema-2016", profile: Path = DEFAULT_PROFILE,
                 sim_args: tuple[str, ...] = ()) -> None:
        self.folder = folder
        self.sim_args = sim_args  # e.g. ("--faults", FILE)
        self.config = folder / "table.yaml"
        self.ruleset = ruleset
        self.profile = profile
        self.processes: list[subprocess.Popen] = []

    def _start(self, *args: str, name: str, **popen) -> subprocess.Popen:
        with open(self.folder / f"{name}.err", "w") as err:
            proc = subprocess.Popen([MJTABLE, *args], cwd=self.folder, stderr=err, stdin=subprocess.DEVNULL, **popen)
        self.processes.append(proc)
        return proc

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.err").read_text()

    def start(self) -> "Table":
        sim = self._start("sim", "--pty", "--speed", "2000", "--profile", str(self.profile), *self.sim_args, name="sim",
                          stdout=subprocess.PIPE, text=True)
        readable, _, _ = select.select([sim.stdout], [], [], TIMEOUT)
        assert readable, f"mjtable sim printed no device path: {self.log('sim')}"
        port = sim.stdout.readline().strip()
        self.config.write_text(f"kind: table\nserial: {{port: {port}, baud: 115200}}\nprofile: {self.profile}\n"
                               f"ruleset: {self.ruleset}\nstate: {{database: var/state.db}}\n"
                               "api: {socket: var/api.sock}\ngame: {starting_dealer: 0}\n")
        run = self._start("run", "--config", str(self.config), name="run")

        def ready():
            assert run.poll() is None, f"mjtable run exited {run.returncode}: {self.log('run')}"
            return "ready in" in self.log("run")
        wait_until(ready, "mjtable run to be ready")
        return self

    def stop(self) -> None:
        stop_in_order(self.processes, patience=5.0)
