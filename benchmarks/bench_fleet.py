"""Fleet figures: 50 simulated tables publishing to one mosquitto while the floor view is
open (README, Figures; docs/FLOOR.md). Every hand of every table must show on the floor
view; the event-to-floor latency (from the controller's hand_ended to the floor view's
WebSocket message that shows it) against its target, and apart from it the floor view's
own share (from a broker subscriber's delivery to the floor's message); and what MQTT costs
a table's controller in CPU and memory, from the same games played with and without a broker.

Each table plays in a process of its own (benchmarks/fleet.py: its simulated table on a
real-time loop, `SPEED` times faster than real), as each real table has a board: a p99 then
measures the publisher, the broker and the floor view, not one process's share of the CPU.
The broker, `mjtable floor` and the WebSocket watcher each run in a process of their own.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_system import Figures, load, vm_hwm

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TABLES = 50
SPEED = 30  # a hand change of 17 s takes 0.57 s, a hand 2.6 s: 50 tables end some 20 hands a second
LATENCY_TARGET = 0.200  # seconds, p99
MIB = 1024 * 1024


def _child(n: int, broker: str | None, out: Path, password: str | None) -> None:
    """Table `fleet-n`'s process: play its game; its hands' ends, CPU and peak RSS to `out`."""
    import asyncio
    import logging
    logging.basicConfig(level=logging.ERROR)

    from benchmarks.fleet import play_fleet
    print("ready", flush=True)  # imported: the games start together once every table is
    sys.stdin.readline()
    cpu, wall = time.process_time(), time.monotonic()
    [table] = asyncio.run(play_fleet(1, speed=SPEED, broker=broker, password=password, first=n))
    out.write_text(json.dumps({
        "cpu": time.process_time() - cpu, "wall": time.monotonic() - wall,
        "hwm": vm_hwm(),
        "ended": [[*hand, t] for hand, t in table.ended.items()]}))


def play(folder: Path, broker: str | None, password: str | None = None) -> list[dict]:
    """Every table's game, each in its own process at once; what each process wrote."""
    kind = "with" if broker else "without"
    outs = [folder / f"{kind}-{n}.json" for n in range(1, TABLES + 1)]
    children = [subprocess.Popen([PYTHON, "-m", "benchmarks.bench_fleet", str(n), broker or "-", str(out),
                                  password or "-"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                for n, out in enumerate(outs, 1)]
    for child in children:  # fifty interpreters starting would load the machine during the first hands
        child.stdout.readline()
    for child in children:
        child.stdin.write("go\n")
        child.stdin.close()
    for child in children:
        if child.wait(timeout=1800):
            raise SystemExit(f"a fleet table's process failed ({child.args})")
    return [json.loads(out.read_text()) for out in outs]


def measure() -> dict:
    from benchmarks.fleet import start_floor
    from tests.support.mosquitto import PASSWORD, Mosquitto

    with tempfile.TemporaryDirectory(prefix="mjfleet") as tmp:
        folder = Path(tmp)
        broker = Mosquitto(folder / "broker", tuple(f"fleet-{n}" for n in range(1, TABLES + 1))).start()
        secret = folder / "floor.password"
        secret.write_text(PASSWORD)
        floor, url = start_floor(broker.url, "--username", "floor", "--password-file", str(secret))
        seen_file = folder / "seen.jsonl"
        watcher = subprocess.Popen([PYTHON, "-m", "benchmarks.fleet", url, broker.url, PASSWORD, str(seen_file)],
                                   cwd=ROOT)
        try:
            time.sleep(1.0)  # the watcher connected to the floor view
            with_mqtt = play(folder, broker.url, PASSWORD)
            load_with = load()
            time.sleep(1.0)  # the last hands on their way to the floor
        finally:
            for proc in (watcher, floor):
                proc.terminate()
                proc.wait(10)
            broker.kill()
        seen = {"floor": {}, "broker": {}}
        for where, *hand, at in map(json.loads, seen_file.read_text().splitlines()):
            seen[where][tuple(hand)] = at
        without = play(folder, None)
    return {"with": with_mqtt, "without": without, "seen": seen, "load": load_with}


def p99(values: list[float]) -> float:
    return values[min(len(values) - 1, int(0.99 * len(values)))]


def spread(values: list[float]) -> str:
    """median / p99 / max, in ms."""
    return f"{statistics.median(values) * 1000:.0f} / {p99(values) * 1000:.0f} / {values[-1] * 1000:.0f} ms"


def main() -> None:
    m = measure()
    ended = {tuple(e[:3]): e[3] for table in m["with"] for e in table["ended"]}
    floor_seen, broker_seen = m["seen"]["floor"], m["seen"]["broker"]
    floor = sorted(floor_seen[h] - t for h, t in ended.items() if h in floor_seen)
    broker = sorted(broker_seen[h] - t for h, t in ended.items() if h in broker_seen)
    own = sorted(floor_seen[h] - broker_seen[h] for h in ended if h in floor_seen and h in broker_seen)
    missing = len(ended) - len(floor)
    hands = len(ended)
    cpu_with, cpu_without = (sum(t["cpu"] for t in m[k]) for k in ("with", "without"))
    hwm_with, hwm_without = (statistics.median(t["hwm"] for t in m[k]) for k in ("with", "without"))
    wall_with, wall_without = (max(t["wall"] for t in m[k]) for k in ("with", "without"))
    figures = Figures(f"fleet: {TABLES} simulated tables at {SPEED}x, each in its own process, on one mosquitto, "
                      f"the floor view open (load average {m['load']:.1f} at the end of the games)")
    figures.add("hands on the floor view", f"{len(floor)} of {hands}" + (f", {missing} MISSING" if missing else ""),
                "every one", missing == 0)
    figures.add("hand_ended → floor view WebSocket, median / p99 / max", spread(floor),
                f"p99 ≤ {LATENCY_TARGET * 1000:.0f} ms", p99(floor) <= LATENCY_TARGET)
    figures.add("  hand_ended → a broker subscriber (the publisher and the broker)", spread(broker))
    figures.add("  broker subscriber → floor view WebSocket (the floor view's own)", spread(own))
    figures.add("controller CPU per hand, without / with MQTT",
                f"{cpu_without / hands * 1000:.1f} / {cpu_with / hands * 1000:.1f} ms "
                f"(+{(cpu_with / cpu_without - 1) * 100:.0f} %)")
    figures.add("a table's process peak RSS, without / with MQTT (median)",
                f"{hwm_without / MIB:.1f} / {hwm_with / MIB:.1f} MB (+{(hwm_with - hwm_without) / MIB:.1f})")
    figures.add("the games' wall time, without / with MQTT", f"{wall_without:.1f} / {wall_with:.1f} s")
    figures.print()


if __name__ == "__main__":
    if len(sys.argv) == 5:
        _child(int(sys.argv[1]), None if sys.argv[2] == "-" else sys.argv[2], Path(sys.argv[3]),
               None if sys.argv[4] == "-" else sys.argv[4])
    else:
        main()
