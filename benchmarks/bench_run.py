"""A real `mjtable run` (the console script, on `mjtable sim --pty`) in each configuration —
plain, web, MQTT (a local mosquitto), web and MQTT — to its ready notification: seconds and
CPU to ready, VmRSS at ready and after IDLE_SECONDS idle, idle CPU over that window; the
start-up of web + MQTT on a store of HISTORY_GAMES games, warm and cold (after `sync` and
dropping the page cache, as root where the kernel lets us; the line says when it could
not); and `mjtable status` against the running controller, CPU from start to exit.

Ready is the controller's READY=1 datagram on $NOTIFY_SOCKET, as systemd hears it.
"""
from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.bench_system import (HISTORY_GAMES, MIB, MJTABLE, Figures, compile_for_unit, cpu_of, history_store,
                                     spawn_first_line, stop, unit_environment, vm_rss)

IDLE_SECONDS = 20.0  # the idle window each configuration is measured over
STATUS_RUNS = 5
RSS_TARGET = 40 * MIB
STATUS_CPU_TARGET = 0.150
READY_TARGET = 1.0
SECRET = "bench operator secret"
HAND = "web + MQTT, started by hand (no PYTHONOPTIMIZE)"


def config(folder: Path, device: str, *, web: bool, mqtt: str | None, database: str = "state.db") -> Path:
    from controller.api.web.secret import hash_secret

    text = (f"kind: table\nserial: {{port: {device}, baud: 1000000}}\nprofile: four-port\nruleset: ema-2016\n"
            f"state: {{database: {database}}}\napi: {{socket: api.sock}}\ngame: {{starting_dealer: 0}}\n")
    if web:
        text += f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {hash_secret(SECRET)}\n"
    if mqtt:
        text += f"mqtt:\n  broker: {mqtt}\n  table_id: bench\n"
    path = folder / "table.yaml"
    path.write_text(text)
    return path


def start(config_file: Path, unit: bool = True) -> tuple[subprocess.Popen, float]:
    """`mjtable run` and the wall seconds to its READY=1 notification: as the systemd unit
    runs it (its environment), or as started by hand in a shell."""
    notify = config_file.parent / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(notify))
        listener.settimeout(30)
        started = time.perf_counter()
        run = subprocess.Popen([MJTABLE, "run", "--config", str(config_file)], stdin=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               env={**(unit_environment() if unit else os.environ), "NOTIFY_SOCKET": str(notify)})
        while b"READY=1" not in listener.recv(4096):
            pass
        ready = time.perf_counter() - started
    notify.unlink()
    return run, ready


def drop_caches() -> bool:
    """Sync, then drop the page cache (interpreter, modules, store): as after a power-on."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def measure(device: str, folder: Path, *, web: bool, mqtt: str | None, unit: bool = True) -> dict:
    folder.mkdir()
    run, ready = start(config(folder, device, web=web, mqtt=mqtt), unit)
    try:
        out = {"ready": ready, "cpu_ready": cpu_of(run.pid), "rss_ready": vm_rss(run.pid)}
        time.sleep(1.0)  # the broker connection and the first status published
        before = cpu_of(run.pid)
        time.sleep(IDLE_SECONDS)
        out["idle_cpu"] = cpu_of(run.pid) - before
        out["rss_idle"] = vm_rss(run.pid)
        if web and mqtt:
            out["status_cpu"] = [status_cpu(folder / "api.sock") for _ in range(STATUS_RUNS)]
    finally:
        stop(run)
    return out


def status_cpu(sock: Path) -> float:
    """CPU seconds (user + system) of one `mjtable status`, start to exit."""
    before = os.times()
    subprocess.run([MJTABLE, "status", "--socket", str(sock)], check=True, capture_output=True)
    after = os.times()
    return after.children_user + after.children_system - before.children_user - before.children_system


def cold_start(device: str, folder: Path, mqtt: str) -> tuple[float | None, float]:
    """Seconds to ready for web + MQTT on a store holding a busy table's years of games,
    after dropping the caches (None: not permitted), then warm."""
    folder.mkdir()
    database = folder / "state.db"
    shutil.copyfile(history_store(), database)
    path = config(folder, device, web=True, mqtt=mqtt, database=database.name)
    cold = None
    if drop_caches():
        run, cold = start(path)
        stop(run)
    run, warm = start(path)
    stop(run)
    return cold, warm


def main() -> None:
    from tests.support.mosquitto import Mosquitto

    figures = Figures("run: a real `mjtable run` on `mjtable sim --pty`, to its ready notification, in the "
                      "systemd unit's environment (PYTHONOPTIMIZE=2, its bytecode compiled as at install)")
    compile_for_unit()
    sim, device = spawn_first_line([MJTABLE, "sim", "--pty", "--speed", "1000"])
    try:
        with tempfile.TemporaryDirectory(prefix="mjtable-bench-run-") as tmp:
            folder = Path(tmp)
            broker = Mosquitto(folder / "broker", ("bench",)).start()
            url = broker.url
            try:
                configs = {"plain": (False, None, True), "web": (True, None, True), "MQTT": (False, url, True),
                           "web + MQTT": (True, url, True), HAND: (True, url, False)}
                runs = {name: measure(device, folder / f"config-{i}", web=web, mqtt=mqtt, unit=unit)
                        for i, (name, (web, mqtt, unit)) in enumerate(configs.items())}
                cold, warm = cold_start(device, folder / "cold", url)
            finally:
                broker.kill()
    finally:
        stop(sim)
    for name, r in runs.items():
        figures.add(f"{name}: start to ready (warm), CPU to ready", f"{r['ready']:.2f} s, {r['cpu_ready']:.2f} s CPU",
                    f"≤ {READY_TARGET:.0f} s", r["ready"] <= READY_TARGET)
        target = name == "web + MQTT"
        figures.add(f"{name}: VmRSS at ready / after {IDLE_SECONDS:.0f} s idle",
                    f"{r['rss_ready'] / MIB:.1f} / {r['rss_idle'] / MIB:.1f} MB", "≤ 40 MB" if target else "",
                    r["rss_idle"] <= RSS_TARGET)
        share = r["idle_cpu"] / IDLE_SECONDS
        figures.add(f"{name}: idle CPU over {IDLE_SECONDS:.0f} s", f"{r['idle_cpu'] * 1e3:.0f} ms ({share:.2%})",
                    "≤ 0.5 %", share <= 0.005)
    statuses = runs["web + MQTT"]["status_cpu"]
    figures.add(f"mjtable status: CPU start to exit, median / max of {len(statuses)}",
                f"{statistics.median(statuses) * 1e3:.0f} / {max(statuses) * 1e3:.0f} ms",
                f"≤ {STATUS_CPU_TARGET * 1e3:.0f} ms", max(statuses) <= STATUS_CPU_TARGET)
    stored = f"{HISTORY_GAMES:,} games stored ({history_store().stat().st_size / MIB:.0f} MB)"
    figures.add(f"web + MQTT, {stored}: start to ready, cold (sync, page cache dropped)",
                f"{cold:.2f} s" if cold is not None else "not measured (no permission to drop caches)",
                f"≤ {READY_TARGET:.0f} s", cold is None or cold <= READY_TARGET)
    figures.add(f"web + MQTT, {stored}: start to ready, warm, right after", f"{warm:.2f} s", f"≤ {READY_TARGET:.0f} s",
                warm <= READY_TARGET)
    figures.print()


if __name__ == "__main__":
    main()
