"""Fleet figures: 50 simulated tables publishing to one mosquitto while the floor view is
open (README, Figures; docs/FLOOR.md). Every hand of every table must show on the floor
view; the event-to-floor latency (from the controller's hand_ended to the floor view's
WebSocket message that shows it) against its target; and what MQTT costs a controller in
CPU and memory, from the same games played with and without a broker.

The tables play in one child process (benchmarks/fleet.py: in-process simulated tables on
one real-time loop, `SPEED` times faster than real); the broker, `mjtable floor` and the
WebSocket watcher each run in a process of their own, as in a parlour.
"""
from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TABLES = 50
SPEED = 30  # a hand change of 17 s takes 0.57 s, a hand 2.6 s: 50 tables end some 20 hands a second
LATENCY_TARGET = 0.200  # seconds, p99
MIB = 1024 * 1024

# RSS of a fresh interpreter with the controller, then with the MQTT client as well.
IMPORT_COST = ("import resource, controller.controller, controller.service\n"
               "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
               "import controller.mqtt.publisher\n"
               "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)\n")


def _child(broker: str | None, out: Path, password: str | None) -> None:
    """The tables' process: play the fleet's games; their hands' ends, CPU and peak RSS to `out`."""
    import asyncio
    import logging
    logging.basicConfig(level=logging.ERROR)  # a starved loop's watchdog stops are expected here

    from benchmarks.fleet import play_fleet
    cpu, wall = time.process_time(), time.monotonic()
    tables = asyncio.run(play_fleet(TABLES, speed=SPEED, broker=broker, password=password))
    out.write_text(json.dumps({
        "cpu": time.process_time() - cpu, "wall": time.monotonic() - wall,
        "hwm": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "ended": [[*hand, t] for table in tables for hand, t in table.ended.items()]}))


def play(folder: Path, broker: str | None, password: str | None = None) -> dict:
    out = folder / ("with.json" if broker else "without.json")
    subprocess.run([PYTHON, "-m", "benchmarks.bench_fleet", broker or "-", str(out), password or "-"], cwd=ROOT,
                   check=True, timeout=1800)
    return json.loads(out.read_text())


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
            load = os.getloadavg()[0]
            with_mqtt = play(folder, broker.url, PASSWORD)
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
    library = int(subprocess.run([PYTHON, "-c", IMPORT_COST], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout)
    return {"with": with_mqtt, "without": without, "seen": seen, "library": library, "load": load}


def latencies(ended: dict, seen: dict) -> list[float]:
    return sorted(seen[h] - t for h, t in ended.items() if h in seen)


def p99(values: list[float]) -> float:
    return values[min(len(values) - 1, int(0.99 * len(values)))]


def spread(values: list[float]) -> str:
    """median / p99 / max, in ms."""
    return f"{statistics.median(values) * 1000:.0f} / {p99(values) * 1000:.0f} / {values[-1] * 1000:.0f} ms"


def main() -> None:
    m = measure()
    ended = {tuple(e[:3]): e[3] for e in m["with"]["ended"]}
    floor, broker = latencies(ended, m["seen"]["floor"]), latencies(ended, m["seen"]["broker"])
    missing = len(ended) - len(floor)
    hands = len(ended)
    cpu_with, cpu_without = m["with"]["cpu"], m["without"]["cpu"]
    per_table = (m["with"]["hwm"] - m["without"]["hwm"] - m["library"]) / TABLES
    print(f"fleet: {TABLES} simulated tables at {SPEED}x on one mosquitto, the floor view open "
          f"(load average {m['load']:.1f} at the start)")
    rows = [
        ("hands on the floor view", f"{len(floor)} of {hands}" + (f", {missing} MISSING" if missing else ""),
         "every one", missing == 0),
        ("hand_ended → floor view WebSocket, median / p99 / max", spread(floor), f"p99 ≤ {LATENCY_TARGET * 1000:.0f} ms",
         p99(floor) <= LATENCY_TARGET),
        ("  of which hand_ended → a broker subscriber", spread(broker), "", True),
        ("controller CPU per hand, without / with MQTT",
         f"{cpu_without / hands * 1000:.1f} / {cpu_with / hands * 1000:.1f} ms "
         f"(+{(cpu_with / cpu_without - 1) * 100:.0f} %)", "", True),
        ("controller RSS for MQTT: the client library + each table's connection",
         f"{m['library'] / MIB:.1f} + {per_table / MIB:.2f} MB", "", True),
        ("the games' wall time, without / with MQTT", f"{m['without']['wall']:.1f} / {m['with']['wall']:.1f} s", "",
         True),
    ]
    width = max(len(r[0]) for r in rows)
    vwidth = max(len(r[1]) for r in rows)
    for figure, value, target, ok in rows:
        verdict = ("ok" if ok else "OVER") if target else ""
        print(f"  {figure:<{width}}  {value:>{vwidth}}  {target:<16}  {verdict}")


if __name__ == "__main__":
    if len(sys.argv) == 4:
        _child(None if sys.argv[1] == "-" else sys.argv[1], Path(sys.argv[2]),
               None if sys.argv[3] == "-" else sys.argv[3])
    else:
        main()
