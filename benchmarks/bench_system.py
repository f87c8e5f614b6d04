"""System figures against the targets (README, Figures): pty round trip vs a raw pty echo
(interleaved, repeated) and the host's CPU per round trip, hand change vs the mechanical
critical path (with and without pipelining), a hanchan in virtual time (wall, CPU, frames
per hand) and a heartbeat's CPU on an idle line, and how long the table is out of play after a fault it recovers from alone
(virtual time). A real `mjtable run`'s memory, start-up and idle CPU are bench_run.py's.

Subprocesses measure what must not share this process: the simulator at the far end of
the pty, the echo baseline, a game's peak memory.
"""
from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
MJTABLE = str(Path(PYTHON).parent / "mjtable")
ROUND_TRIPS = 200  # per block
ROUNDS = 10  # blocks of table and echo round trips, in turn
SEEDS = range(7)
MIB = 1024 * 1024

def unit_environment() -> dict[str, str]:
    """`mjtable run`'s environment as the shipped systemd unit gives it (its Environment=
    lines over this process's): the board's controller is measured as the board runs it."""
    from tests.support.unit import unit_environment

    return {**os.environ, **unit_environment(ROOT / "config" / "systemd" / "mjtable.service")}


def compile_for_unit() -> None:
    """The bytecode the unit's PYTHONOPTIMIZE runs, compiled as at install: the tree's packages too."""
    from tests.support.unit import compile_for_unit

    compile_for_unit(PYTHON, *(ROOT / name for name in ("controller", "firmware_protocol", "config", "sim")))


def load() -> float:
    """The one-minute load average: printed beside every figure, which it disturbs."""
    return os.getloadavg()[0]


class Figures:
    """A benchmark's figures, each with its target, met or OVER, and the load average when
    it was taken; printed in columns under a title."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.rows: list[tuple[str, str, str, str, float]] = []

    def add(self, figure: str, value: str, target: str = "", ok: bool = True) -> None:
        verdict = ("met" if ok else "OVER") if target else ""
        self.rows.append((figure, value, target, verdict, load()))

    def print(self) -> None:
        widths = [max(len(r[i]) for r in self.rows) for i in range(3)]
        print(self.title)
        for *cells, verdict, at in self.rows:
            line = "  ".join(f"{c:<{w}}" for c, w in zip(cells, widths))
            print(f"  {line}  {verdict:<4}  load {at:.1f}")


def vm_rss(pid: int | str) -> int:
    """A process's resident memory now (bytes), as the kernel counts it."""
    return _vm(pid, "VmRSS")


def vm_hwm(pid: int | str = "self") -> int:
    """A process's peak resident memory (bytes) since its exec (ru_maxrss would keep the
    peak of the process that forked it)."""
    return _vm(pid, "VmHWM")


def _vm(pid: int | str, key: str) -> int:
    return next(int(line.split()[1]) * 1024 for line in open(f"/proc/{pid}/status") if line.startswith(key))


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a process has used: what a loaded machine does not inflate."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


figures = Figures("system: figures against the targets (README, Figures)")


def report(figure: str, value: str, target: str, ok: bool) -> None:
    figures.add(figure, value, target, ok)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


# ------------------------------------------------------------------ pty round trip
def spawn_first_line(argv: list[str]) -> tuple[subprocess.Popen, str]:
    """Start a child that prints a device path on its first stdout line."""
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    return child, child.stdout.readline().strip()


def stop(child: subprocess.Popen) -> None:
    child.terminate()
    child.wait(timeout=5)


# The baseline: a child that echoes every byte back on a raw pty, nothing else.
ECHO = textwrap.dedent("""
    import os, tty
    master, slave = os.openpty()
    tty.setraw(slave)
    print(os.ttyname(slave), flush=True)
    while data := os.read(master, 4096):
        os.write(master, data)
""")


async def _open(path: str):
    from firmware_protocol.transport import SerialTransport
    return SerialTransport.open(path, 1_000_000)


class Echo:
    """The same loop machinery (a reader on the event loop), bytes echoed by a child."""

    def __init__(self, path: str, size: int) -> None:
        from firmware_protocol.transport import SerialTransport
        self.line = SerialTransport.open(path, 1_000_000)
        self.line.set_receiver(self._on_bytes)
        self.size, self.message = size, bytes(size)
        self.received = bytearray()
        self.arrived: asyncio.Future | None = None

    def _on_bytes(self, data: bytes) -> None:
        self.received.extend(data)
        if len(self.received) >= self.size and self.arrived and not self.arrived.done():
            self.arrived.set_result(None)

    async def round_trip(self) -> None:
        self.received.clear()
        self.arrived = asyncio.get_running_loop().create_future()
        self.line.write(self.message)
        await self.arrived


async def timed(step, count: int) -> tuple[list[float], float]:
    """Wall seconds of each of `count` awaited steps, and this process's CPU seconds per step."""
    times = []
    cpu = time.process_time()
    for _ in range(count):
        start = time.perf_counter()
        await step()
        times.append(time.perf_counter() - start)
    return times, (time.process_time() - cpu) / count


async def interleaved_round_trips(table_path: str, echo_path: str) -> list[tuple[float, float, float]]:
    """ROUNDS rounds, each a block of table round trips (get_status) and one of raw echoes
    of the same bytes, in turn (which goes first alternates): per round the table's median,
    the echo's median and the host's CPU per table round trip."""
    from controller.table.facade import Table

    table = Table(lambda: _open(table_path))
    await table.connect()
    # Half the exchange each way: the same bytes on the wire as command + status reply.
    echo = Echo(echo_path, status_exchange_bytes() // 2)
    rounds = []
    for n in range(ROUNDS):
        blocks = {"table": lambda: table.command("get_status"), "echo": echo.round_trip}
        order = ["table", "echo"] if n % 2 == 0 else ["echo", "table"]
        measured = {name: await timed(blocks[name], ROUND_TRIPS) for name in order}
        (table_times, cpu), (echo_times, _) = measured["table"], measured["echo"]
        rounds.append((statistics.median(table_times), statistics.median(echo_times), cpu))
    table.close()
    echo.line.close()
    return rounds


def status_exchange_bytes() -> int:
    """Bytes of one get_status round trip on the wire: command frame and status reply."""
    from firmware_protocol.catalog import Message, encode_message
    from firmware_protocol.frame import encode_frame
    status = Message("status", {"boot_id": 0, "operation": 0, "fault": 0, "stopped": False, "centre_open": False,
                                "sets": [0, 0], "walls_up": False, "dead_wall_separated": False, "dora_flipped": 0,
                                "wind": 0, "wind_seat": 0, "dealer_lamp": 0, "lid_open": False})
    return sum(len(encode_frame(0, *encode_message(m))) for m in (Message("get_status"), status))


def bench_round_trip() -> None:
    sim, table_path = spawn_first_line([MJTABLE, "sim", "--pty", "--speed", "1000"])
    echo, echo_path = spawn_first_line([PYTHON, "-c", ECHO])
    try:
        rounds = asyncio.run(interleaved_round_trips(table_path, echo_path))
    finally:
        stop(sim)
        stop(echo)
    table, raw, cpu = ([r[i] for r in rounds] for i in range(3))
    ratios = [t / e for t, e, _ in rounds]
    us = "{:.0f} µs ({:.0f}–{:.0f})".format
    report(f"pty round trip get_status, median of {ROUNDS} rounds' medians (spread)",
           us(statistics.median(table) * 1e6, min(table) * 1e6, max(table) * 1e6), "", True)
    report("raw pty echo (same bytes), interleaved with it", us(statistics.median(raw) * 1e6, min(raw) * 1e6,
                                                               max(raw) * 1e6), "", True)
    ratio = statistics.median(ratios)
    report("round trip / raw echo, median of the rounds' ratios (spread)",
           f"{ratio:.1f}× ({min(ratios):.1f}–{max(ratios):.1f})", "≤ 3×", ratio <= 3)
    report("host CPU per round trip (the controller's own cost)", us(statistics.median(cpu) * 1e6, min(cpu) * 1e6,
                                                                     max(cpu) * 1e6), "", True)


# ------------------------------------------------------------------ hand change
def hand_changes(trace) -> list[float]:
    """Simulated seconds from each hand's collect_tiles command to its next walls being
    ready to play (dora flipped: the last step of the EMA setup)."""
    collects = [r.t for r in trace if r.dir == "cmd" and r.name == "collect_tiles"]
    flips = [r.t for r in trace if r.dir == "event" and r.name == "dora_flipped"]
    return [next(f for f in flips if f > c) - c for c in collects]


def bench_hand_change() -> None:
    from controller.app.simulation import profile_for, run_game
    from controller import rules as R
    from firmware_protocol.profile import load_profile

    rules = R.load_ruleset("ema-2016")
    t = load_profile(profile_for(rules)).timings
    path = t.collect + t.raise_walls + t.dice + t.separate + t.dora_flip
    run = run_game(rules, seed=1)
    changes = hand_changes(run.trace)
    worst = max(changes)
    report("hand change (collect → dora), median / max",
           f"{statistics.median(changes):.3f} / {worst:.3f} s", f"≤ {path:.1f} + 0.05 s", worst <= path + 0.05)
    waited = [r for r in run.trace if r.name == "show_text" and "waiting" in r.args.get("text", "")]
    report("hands waiting for the shuffle", f"{len(waited)} of {len(changes)}", "0 (hidden)", not waited)
    serial = path + t.shuffle
    report("  without pipelining (profile: + shuffle)", f"{serial:.1f} s", "", True)
    slow, waits = bench_slow_shuffle(rules)
    report(f"  measured, shuffle {SLOW_SHUFFLE:.0f} s > play: result → dora", f"{slow:.3f} s", "", True)
    report("  hands shown waiting for that shuffle", f"{waits}", "", True)


SLOW_SHUFFLE = 150.0  # longer than a hand's play (about 65 s of simulated players): awaited


def bench_slow_shuffle(rules) -> tuple[float, int]:
    """A controller run where the shuffle sits on the critical path: a profile whose
    shuffle outlasts the play of a hand, so every hand change waits for it, visibly.
    Returns the median simulated seconds from each result to the next dora flipped,
    and how many waits were shown."""
    import re
    from controller.app.simulation import profile_for, run_game

    text = profile_for(rules).read_text()
    text = re.sub(r"(?m)^(\s*shuffle:)\s*[\d.]+", rf"\g<1> {SLOW_SHUFFLE}", text)
    text = re.sub(r"(?m)^(\s*build_limit:)\s*[\d.]+", rf"\g<1> {SLOW_SHUFFLE * 2}", text)
    ended: list[float] = []

    def on_controller(controller, table) -> None:
        loop = asyncio.get_running_loop()
        controller.subscribe(lambda e: ended.append(loop.time()) if e["event"] == "hand_ended" else None)
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "slow-shuffle.yaml"
        profile.write_text(text)
        run = run_game(rules, seed=1, profile=profile, on_controller=on_controller)
    flips = [r.t for r in run.trace if r.dir == "event" and r.name == "dora_flipped"]
    waits = sum(1 for r in run.trace if r.name == "show_text" and "waiting" in r.args.get("text", ""))
    return statistics.median(next(f for f in flips if f > e) - e for e in ended[:-1]), waits


# ------------------------------------------------------------------ hanchan in virtual time
def bench_hanchan() -> None:
    from controller.app.simulation import run_game

    run_game("ema-2016", seed=0)  # warm imports and caches
    walls, cpus, runs = [], [], []
    for seed in SEEDS:
        start, cpu = time.perf_counter(), time.process_time()
        runs.append(run_game("ema-2016", seed=seed))
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    median = statistics.median(walls)
    report(f"EMA hanchan in virtual time, median of {len(walls)}", f"{median:.3f} s", "≤ 0.5 s", median <= 0.5)
    cpu = statistics.median(cpus)
    report("  its CPU (table, simulator and players), median", f"{cpu:.3f} s", "≤ 0.1 s", cpu <= 0.1)
    # Frames each way, a hand played at the table's own pace: virtual time keeps the
    # simulated seconds, so a heartbeat a second of idle line counts as it would at a table.
    frames = [(r.controller.table.stats.frames_sent + r.controller.table.stats.frames_received) / len(r.hands)
              for r in runs]
    beats = [sum(1 for t in r.trace if t.dir == "cmd" and t.name == "heartbeat") for r in runs]
    commands = [sum(1 for t in r.trace if t.dir == "cmd") for r in runs]
    report("  frames per hand on the line (both ways), median", f"{statistics.median(frames):.0f}", "", True)
    report("  heartbeats of all commands in a game, median",
           f"{statistics.median(beats):.0f} of {statistics.median(commands):.0f}", "", True)


# ------------------------------------------------------------------ a heartbeat on an idle line
IDLE = 3000.0  # simulated seconds of idle line: about as many heartbeats


def bench_heartbeat() -> None:
    """Most of a game's commands are heartbeats (the line is idle while the players play):
    the CPU of one, host and simulator in one process, and its loop turns and timers."""
    from firmware_protocol.virtual_time import VirtualTimeLoop

    class Counting(VirtualTimeLoop):
        turns = timers = 0

        def _run_once(self) -> None:
            self.turns += 1
            super()._run_once()

        def call_at(self, *args, **kwargs):
            self.timers += 1
            return super().call_at(*args, **kwargs)

    cpus = [_idle_line(VirtualTimeLoop())[0] for _ in range(3)]
    _, beats, loop = _idle_line(Counting())
    report("  CPU per heartbeat on an idle line (host and simulator), best of 3",
           f"{min(cpus) * 1e6:.0f} µs: {loop.turns / beats:.1f} loop turns, {loop.timers / beats:.1f} timers", "", True)


def _idle_line(loop) -> tuple[float, int, object]:
    """CPU seconds per heartbeat over IDLE seconds of a connected, idle table; the heartbeats; the loop."""
    from controller.table.facade import Table
    from sim.serve import connect_in_process
    from sim.table import SimulatedTable

    async def idle() -> tuple[float, int]:
        sim = SimulatedTable()

        async def connect():
            return connect_in_process(loop, sim)
        host = Table(connect)
        await host.connect()
        await asyncio.sleep(10.0)  # past the start-up
        loop.turns = loop.timers = 0
        before, cpu = len(sim.trace.named("heartbeat", "cmd")), time.process_time()
        await asyncio.sleep(IDLE)
        cpu, beats = time.process_time() - cpu, len(sim.trace.named("heartbeat", "cmd")) - before
        host.close()
        sim.close()
        return cpu / beats, beats

    try:
        return (*loop.run_until_complete(idle()), loop)
    finally:
        loop.close()


# ------------------------------------------------------------------ out of play after a fault
# Virtual time, and honest there: the simulator's mechanics and the link's timers run on the
# same clock as the controller, so a delay measured here is the host's and the protocol's,
# not the machine's. Each figure compares when the second hand is ready to play (its
# hand_started) with the undisturbed game of the same seed.
RECOVERY_SEEDS = range(5)
CUT = 1.0


def _second_hand(seed: int, **kwargs) -> tuple[float, float, object]:
    """When hand 1 ended and hand 2 started, in a game with `kwargs` (at most 2 hands played)."""
    from controller.app.simulation import run_game

    times: dict[str, list[float]] = {"hand_ended": [], "hand_started": []}

    def on_controller(controller, table) -> None:
        loop = asyncio.get_running_loop()
        controller.subscribe(lambda e: times[e["event"]].append(loop.time()) if e["event"] in times else None)
    run = run_game("ema-2016", seed=seed, on_controller=on_controller, **kwargs)
    return times["hand_ended"][0], times["hand_started"][1], run


def _disturbance_at(seed: int, ended: float, started: float) -> float:
    """A seeded moment in hand 2's setup, not in its last second."""
    import random
    return random.Random(f"recovery:{seed}").uniform(ended + 0.5, started - 1.0)


def bench_line_cut() -> None:
    from firmware_protocol.transport import Impairment

    delays = []
    for seed in RECOVERY_SEEDS:
        ended, started, _ = _second_hand(seed)
        at = _disturbance_at(seed, ended, started)
        cut = Impairment(noise_every=1e9, noise_for=CUT, noise_from=at)  # every byte noise: a cut line
        delays.append(_second_hand(seed, impairment=cut)[1] - started)
    # A cut while a mechanism moves costs nothing: its end is reported once the line is back.
    report(f"line cut {CUT:.0f} s in setup: hand delayed, median / max",
           f"{statistics.median(delays):.2f} / {max(delays):.2f} s", f"≤ {CUT:.0f} + 1.5 s", max(delays) <= CUT + 1.5)


def _interrupted(trace, at: float) -> float:
    """When the setup operation running at `at` began (its end not yet reported), else `at`."""
    from firmware_protocol.catalog import COMPLETIONS
    running, began = None, at
    for r in trace:
        if r.t > at:
            break
        if r.dir == "cmd" and r.name in COMPLETIONS and r.name != "shuffle":  # the shuffle runs beside the setup
            running, began = r.name, r.t
        elif r.dir == "event" and running and r.name == COMPLETIONS[running]:
            running, began = None, at
    return began


def bench_mcu_reset() -> None:
    from sim.faults import FaultPlan

    extra = []
    for seed in RECOVERY_SEEDS:
        ended, started, clean = _second_hand(seed)
        at = _disturbance_at(seed, ended, started)
        wasted = at - _interrupted(clean.trace, at)  # the interrupted operation runs again from its start
        extra.append(_second_hand(seed, faults=FaultPlan(reset_at=[at]))[1] - started - wasted)
    report("MCU reset in setup: hand delayed beyond the interrupted operation, median / max",
           f"{statistics.median(extra):.2f} / {max(extra):.2f} s", "≤ 1 s", max(extra) <= 1.0)


def bench_controller_restart() -> None:
    # Virtual time would count no CPU: wall time here, simulator and store in the same process.
    walls = [run_virtual_restart(seed) for seed in RECOVERY_SEEDS]
    report("controller restart in play: start to playing again (wall, in process), median / max",
           f"{statistics.median(walls):.3f} / {max(walls):.3f} s", "≤ 1 s", max(walls) <= 1.0)


def run_virtual_restart(seed: int) -> float:
    """Kill the controller 20 s into hand 1's play (cancel its tasks, hang up, close the
    store) and start a new one on the same store and table: virtual seconds to playing."""
    from controller import rules as R
    from controller.game.controller import Controller
    from controller.app.simulation import profile_for
    from controller.store.database import Store
    from firmware_protocol.virtual_time import run_virtual
    from sim.serve import connect_in_process
    from sim.table import SimulatedTable

    rules = R.load_ruleset("ema-2016")

    async def scenario(database: Path) -> float:
        loop = asyncio.get_running_loop()
        table = SimulatedTable(profile_for(rules), seed=seed)

        async def connect():
            return connect_in_process(loop, table, seed=seed)

        store = Store(database)
        first = Controller(connect, rules, store=store, seed=seed)
        playing = asyncio.Event()
        first.subscribe(lambda e: playing.set() if e["event"] == "hand_started" else None)
        await first.start()
        await first.new_game(0)
        game = asyncio.ensure_future(first.play())
        await playing.wait()
        await asyncio.sleep(20.0)
        game.cancel()
        first.close()
        store.close()
        store = Store(database)
        second = Controller(connect, rules, store=store, seed=seed)
        back = asyncio.Event()
        second.subscribe(lambda e: back.set() if e["state"] == "playing" else None)
        began = time.perf_counter()
        await second.start()
        game = asyncio.ensure_future(second.play())
        await back.wait()
        took = time.perf_counter() - began
        game.cancel()
        second.close()
        store.close()
        return took

    with tempfile.TemporaryDirectory() as tmp:
        return run_virtual(scenario(Path(tmp) / "state.db"))


# Plays a whole game in virtual time, simulator and players in the same process.
GAME = textwrap.dedent("""
    from controller.app.simulation import run_game
    run_game("ema-2016", seed=0)
    from benchmarks.bench_system import vm_hwm
    print(vm_hwm())
""")


# ------------------------------------------------------------------ a long history
HISTORY_GAMES = 20_000  # a few years of one busy table


def history_store() -> Path:
    """A state database holding HISTORY_GAMES finished hanchans (copies of one real game),
    built once into a cache file: a store the size of a busy table's after years."""
    from controller.store.database import SCHEMA_VERSION

    path = Path(tempfile.gettempdir()) / "mjtable-bench" / f"history-{HISTORY_GAMES}-v{SCHEMA_VERSION}.db"
    if not path.exists():
        path.parent.mkdir(exist_ok=True)
        part = path.with_suffix(".part")
        part.unlink(missing_ok=True)
        _fill_history(part)
        part.rename(path)
    return path


def _fill_history(path: Path) -> None:
    import sqlite3
    from controller.app.simulation import run_game
    from controller.store.database import Store

    with Store(path) as store:
        run_game("ema-2016", seed=0, store=store)
    db = sqlite3.connect(path, isolation_level=None)
    game = db.execute("SELECT ruleset, rules, state, step, hand, status, final, started_at, ended_at FROM games").fetchone()
    hands = db.execute("SELECT seq, record, committed_at FROM hands").fetchall()
    db.execute("BEGIN")
    db.execute("DELETE FROM hands")
    db.execute("DELETE FROM games")
    db.executemany("INSERT INTO games (id, ruleset, rules, state, step, hand, status, final, started_at, ended_at)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ((gid, *game) for gid in range(1, HISTORY_GAMES + 1)))
    db.executemany("INSERT INTO hands (game_id, seq, record, committed_at) VALUES (?, ?, ?, ?)",
                   ((gid, *hand) for gid in range(1, HISTORY_GAMES + 1) for hand in hands))
    db.execute("COMMIT")
    db.close()


def bench_game_memory() -> None:
    game = int(subprocess.run([PYTHON, "-c", GAME], capture_output=True, text=True, cwd=ROOT, check=True).stdout)
    report("peak RSS, hanchan with sim + players in process", f"{game / MIB:.1f} MB", "≤ 40 MB", game <= 40 * MIB)


def main() -> None:
    figures.rows.clear()
    for bench in (bench_round_trip, bench_hand_change, bench_hanchan, bench_heartbeat, bench_line_cut, bench_mcu_reset,
                  bench_controller_restart, bench_game_memory):
        bench()
    figures.print()


if __name__ == "__main__":
    main()
