"""One contract, every line, in the manner of python-can's back-to-back suite: the real
host facade (`controller.table.Table`) drives the simulated table through the same
scenarios on each transport the product supports — in process over memory (virtual
time), and against `mjtable sim` in a subprocess on a pseudo-terminal and on TCP
(`socket://`, real time, --speed 50). The table is seen only through the facade's
typed operations and the simulator's trace."""
from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from controller.table.facade import Interrupted, McuReset, Rejected, Table
from controller.table.events import TableEvent, TableRebooted
from firmware_protocol.codes import Code
from firmware_protocol.transport import Impairment, SerialTransport
from firmware_protocol.virtual_time import run_virtual
from sim import DEFAULT_PROFILE, FaultPlan, SimulatedTable, connect_in_process

SPEED = 50.0  # real-time transports: a 30 s shuffle takes 0.6 s
# A scenario still running after this long is hung (a completion that never came): fail it.
IN_MEMORY_LIMIT = 600.0  # virtual seconds
REAL_TIME_LIMIT = 60.0


class Events:
    """What the facade reports besides replies and completions (MCU reset, lost link,
    fault, button, unexpected), in order. The one place the suite hooks into its events."""

    def __init__(self) -> None:
        self.seen: list[TableEvent] = []

    def __call__(self, event: TableEvent) -> None:
        self.seen.append(event)

    def of(self, kind: type[TableEvent]) -> list[TableEvent]:
        return [event for event in self.seen if isinstance(event, kind)]


@dataclass
class Line:
    """A table on one transport, as a scenario sees it: the facade, its events, and the
    simulator's trace (commands, replies and events in simulated seconds)."""
    table: Table
    trace: Callable[[], list[dict]]
    events: Events


@dataclass
class Options:
    seed: int = 0
    corrupt: float = 0.0
    drop: float = 0.0
    reset_after: int | None = None


Scenario = Callable[[Line], Awaitable[None]]


async def _play(scenario: Scenario, connector, trace: Callable[[], list[dict]], limit: float) -> None:
    events = Events()
    line = Line(Table(connector, on_event=events), trace, events)
    try:
        await asyncio.wait_for(scenario(line), limit)
    finally:
        line.table.close()


def run_in_memory(scenario: Scenario, opts: Options) -> None:
    async def main() -> None:
        noise = Impairment(corrupt=opts.corrupt, drop=opts.drop) if opts.corrupt or opts.drop else None
        plan = FaultPlan(link=noise, reset_after_command={opts.reset_after} if opts.reset_after else set())
        table = SimulatedTable(DEFAULT_PROFILE, seed=opts.seed, faults=plan)
        loop = asyncio.get_running_loop()

        async def connect():
            return connect_in_process(loop, table)
        try:
            await _play(scenario, connect, lambda: [r.as_dict() for r in table.trace.records], IN_MEMORY_LIMIT)
        finally:
            table.close()

    run_virtual(main())


def run_in_subprocess(where: list[str], scenario: Scenario, opts: Options, tmp_path) -> None:
    trace_file = tmp_path / "trace.jsonl"
    argv = [sys.executable, "-m", "controller.cli", "sim", *where, "--speed", str(SPEED), "--seed", str(opts.seed),
            "--trace", str(trace_file), "--corrupt", str(opts.corrupt), "--drop", str(opts.drop)]
    argv += ["--reset-after", str(opts.reset_after)] if opts.reset_after else []

    def trace() -> list[dict]:
        return [json.loads(line) for line in trace_file.read_text().splitlines()]

    async def main() -> None:
        proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
        try:
            device = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode().strip()

            async def connect():
                return SerialTransport.open(device)
            await _play(scenario, connect, trace, REAL_TIME_LIMIT)
        finally:
            proc.terminate()
            assert await proc.wait() == 0

    asyncio.run(main())


@pytest.fixture(params=["memory", "pty", "tcp"])
def contract(request, tmp_path):
    def run(scenario: Scenario, **options) -> None:
        opts = Options(**options)
        if request.param == "memory":
            run_in_memory(scenario, opts)
        else:
            where = ["--pty"] if request.param == "pty" else ["--tcp", "127.0.0.1:0"]
            run_in_subprocess(where, scenario, opts, tmp_path)
    return run


async def started(operation: Awaitable) -> asyncio.Task:
    """Run `operation` in the background once its command is on the line (so commands
    sent after this are sent after it)."""
    task = asyncio.ensure_future(operation)
    await asyncio.sleep(0)
    return task


async def refused(operation: Awaitable) -> int:
    """The code the table refuses `operation` with."""
    with pytest.raises(Rejected) as rejected:
        await operation
    return rejected.value.code


def without_heartbeats(records: list[dict]) -> list[dict]:
    """The trace minus each heartbeat command and the reply that follows it."""
    out, skip_reply = [], False
    for r in records:
        if r["dir"] == "reply" and skip_reply:
            skip_reply = False
        elif r["name"] == "heartbeat":
            skip_reply = True
        else:
            out.append(r)
    return out


# --- the contract ---------------------------------------------------------------------------
def test_session_starts_with_identify(contract):
    async def scenario(line: Line) -> None:
        identity = await line.table.connect()
        assert [r["name"] for r in line.trace() if r["dir"] == "cmd"][:1] == ["identify"]
        assert (identity["tiles"], identity["stacks"], identity["tile_sets"]) == (136, [17] * 4, 2)
        assert (await line.table.get_status())["boot_id"] == identity["boot_id"]
    contract(scenario)


def test_replies_come_one_per_command_in_order(contract):
    async def scenario(line: Line) -> None:
        table = line.table
        await table.connect()
        status, raised, busy, shown = await asyncio.gather(
            table.command("get_status"), table.command("raise_walls"), table.command("raise_walls"),
            table.command("show_text", seats=0, text="hello"), return_exceptions=True)
        assert (status.name, raised.name, shown.name) == ("status", "ok", "ok")
        assert isinstance(busy, Rejected) and busy.code == Code.BUSY
    contract(scenario)


def test_a_hand_cycle_with_interlocks(contract):
    async def scenario(line: Line) -> None:
        table = line.table
        await table.connect()
        raising = await started(table.raise_walls())
        assert await refused(table.collect_tiles()) == Code.WALLS_RISING
        await raising
        shuffling = await started(table.shuffle())
        assert (await table.get_status())["sets"] == ["on_table", "shuffling"]
        assert len(await table.roll_dice(2)) == 2
        await table.separate_dead_wall(breaker=1, position=7, length=7)
        await table.flip_dora(seat=1, stack=5)
        assert [r["args"] for r in line.trace() if r["name"] == "dora_flipped"] == [{"seat": 1, "stack": 5}]
        assert await shuffling == 136
        collecting = await started(table.collect_tiles())
        assert await refused(table.raise_walls()) == Code.CENTRE_OPEN
        assert await collecting == 136
        await table.raise_walls()
        assert (await table.get_status())["sets"] == ["collected", "on_table"]
    contract(scenario)


def test_stop_and_resume(contract):
    async def scenario(line: Line) -> None:
        table = line.table
        await table.connect()
        raising = await started(table.raise_walls())
        await table.stop()
        with pytest.raises(Interrupted):  # a stopped table ends nothing it was doing
            await raising
        assert await refused(table.raise_walls()) == Code.STOPPED
        await table.resume()
        await table.raise_walls()
    contract(scenario)


def test_noisy_line_executes_every_command_exactly_once(contract):
    async def scenario(line: Line) -> None:
        await line.table.connect()
        rolls = [await line.table.roll_dice(2) for _ in range(20)]
        executed = [r for r in line.trace() if r["dir"] == "cmd" and r["name"] == "roll_dice"]
        assert len(executed) == 20
        assert [r["args"]["values"] for r in line.trace() if r["name"] == "dice_rolled"] == rolls
    contract(scenario, corrupt=0.01, drop=0.02, seed=5)


def test_mcu_reset_announces_a_new_boot(contract):
    async def scenario(line: Line) -> None:
        table = line.table
        first = await table.connect()
        with pytest.raises(McuReset):  # the second command: the MCU resets after it
            await table.raise_walls()
        (rebooted, *_) = line.events.of(TableRebooted)
        booted = rebooted.boot_id
        assert booted != first["boot_id"]
        assert await refused(table.get_status()) == Code.NOT_IDENTIFIED  # a new session starts with identify
        assert (await table.connect())["boot_id"] == booted
        assert (await table.get_status())["sets"] == ["stacked", "collected"]  # the raise was interrupted
    contract(scenario, reset_after=2)


def test_trace_records_commands_replies_and_events(contract):
    async def scenario(line: Line) -> None:
        await line.table.connect()
        dice = await line.table.roll_dice(2)
        records = without_heartbeats(line.trace())
        assert [(r["dir"], r["name"]) for r in records] == [("cmd", "identify"), ("reply", "identity_1_1"),
                                                             ("cmd", "roll_dice"), ("reply", "ok"),
                                                             ("event", "dice_rolled")]
        assert records[2]["args"] == {"count": 2} and records[4]["args"] == {"values": dice}
        # The dice take 2 simulated seconds, whatever the speed (later on a loaded machine, never sooner).
        assert records[4]["t"] - records[2]["t"] >= 1.9
    contract(scenario)
