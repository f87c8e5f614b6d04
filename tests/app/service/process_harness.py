"""`mjtable run` and `mjtable sim --pty` as real processes, for tests that drive them the
way a user does (the console script, a table config, the control socket)."""
from __future__ import annotations

import json
import select
import signal
import subprocess
from pathlib import Path

from controller.api.client import Client
from firmware_protocol.profile import DEFAULT_PROFILE

from ...support.processes import MJTABLE, Processes, stderr_of, wait_for, wait_until_serving  # noqa: F401 (the service tests import them from here)




def start_sim(procs: Processes, seed: int, *options: str, speed: float = 2000) -> str:
    """`mjtable sim --pty` (with more `options`, e.g. --trace FILE); the device path it prints."""
    sim = procs.start("sim", "--pty", "--speed", str(speed), "--seed", str(seed), *options, name="sim",
                      stdout=subprocess.PIPE, text=True)
    readable, _, _ = select.select([sim.stdout], [], [], 10)
    assert readable, "mjtable sim printed no device path"
    path = sim.stdout.readline().strip()
    assert path.startswith("/dev/"), (path, stderr_of(sim))
    return path


def write_config(folder: Path, port: str, ruleset: str = "ema-2016") -> Path:
    config = folder / "table.yaml"
    config.write_text(f"""kind: table
serial: {{port: {port}, baud: 115200}}
profile: {DEFAULT_PROFILE}
ruleset: {ruleset}
state: {{database: state.db}}
api: {{socket: api.sock}}
timeouts: {{reconnect_backoff_max: 1}}
game: {{starting_dealer: 0}}
""")
    return config


class RunProcess:
    """`mjtable run --config ...`, restartable; ``client`` reaches its control API."""

    def __init__(self, procs: Processes, config: Path) -> None:
        self.procs, self.config = procs, config
        self.client = Client(config.parent / "api.sock", timeout=5)
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = self.procs.start("run", "--config", str(self.config), name="run")
        wait_until_serving(self.proc, self.client)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(5)


def cli(socket, *args: str) -> subprocess.CompletedProcess:
    """One `mjtable` client command on the control socket; refusals exit 1."""
    return subprocess.run([MJTABLE, *args, "--socket", str(socket)], capture_output=True, text=True, timeout=20)


def status(socket) -> dict:
    done = cli(socket, "status", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def in_play(run: RunProcess, seq: int) -> None:
    def ready():
        now = run.client.request("status")
        return now["state"] == "playing" and (now.get("hand_in_play") or {}).get("seq") == seq
    wait_for(ready, f"hand {seq} in play")
