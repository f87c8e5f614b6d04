"""One contract, every line: the same scenarios against the table in process (virtual
time), and against `mjtable sim` in a subprocess on a pseudo-terminal and on TCP (real
time, --speed 50). A host sees only the protocol, so only the protocol is asserted."""
from __future__ import annotations

import asyncio
import json
import sys
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from firmware_protocol.catalog import PROTOCOL_VERSION, REPLIES, SET_LOCATIONS, Message
from firmware_protocol.codes import Code
from firmware_protocol.endpoint import LinkEndpoint
from firmware_protocol.link import Link, SessionStart
from firmware_protocol.transport import ByteTransport, Impairment, SerialTransport
from firmware_protocol.virtual_time import VirtualTimeLoop
from sim import DEFAULT_PROFILE, FaultPlan, SimulatedTable, connect_in_process

SPEED = 50.0  # real-time transports: a 30 s shuffle takes 0.6 s


class TableRebooted(Exception):
    pass


class Host:
    """A minimal host: replies matched to commands in order, events queued, heartbeats."""

    def __init__(self, line: ByteTransport, speed: float, trace: Callable[[], list[dict]]) -> None:
        self.speed = speed
        self.trace = trace
        self.events: asyncio.Queue[Message] = asyncio.Queue()
        self._waiting: deque[asyncio.Future] = deque()
        self._peer: int | None = None
        self.endpoint = LinkEndpoint(Link(role="host"), line, on_message=self._received, on_session=self._session)
        self._beat: asyncio.Task | None = None

    def _received(self, msg: Message) -> None:
        if msg.name in REPLIES:
            self._waiting.popleft().set_result(msg)
        else:
            self.events.put_nowait(msg)

    def _session(self, start: SessionStart) -> None:
        rebooted = self._peer is not None and not start.resumed
        self._peer = start.peer_epoch
        if rebooted:  # commands of the old session get no reply
            while self._waiting:
                self._waiting.popleft().set_exception(TableRebooted())

    async def command(self, name: str, **args) -> Message:
        return await self.send(name, **args)

    def send(self, name: str, **args) -> asyncio.Future:
        reply = asyncio.get_running_loop().create_future()
        self._waiting.append(reply)
        self.endpoint.send(Message(name, args))
        return reply

    async def ok(self, name: str, **args) -> Message:
        reply = await asyncio.wait_for(self.command(name, **args), 10)
        assert reply.name != "rejected", (name, reply)
        return reply

    async def identify(self) -> Message:
        identity = await self.ok("identify", protocol_version=PROTOCOL_VERSION)
        if self._beat is None:
            self._beat = asyncio.get_running_loop().create_task(self._heartbeats())
        return identity

    async def _heartbeats(self) -> None:
        while True:  # as the controller does: keep the table's watchdog fed
            await asyncio.sleep(1.0)
            try:
                await self.command("heartbeat")
            except TableRebooted:
                pass

    async def event(self, within: float = 100.0) -> Message:
        """The next event, waiting up to `within` simulated seconds."""
        return await asyncio.wait_for(self.events.get(), within / self.speed + 5)

    async def run(self, name: str, **args) -> Message:
        await self.ok(name, **args)
        return await self.event()

    async def locations(self) -> list[str]:
        return [SET_LOCATIONS[i] for i in (await self.ok("get_status"))["sets"]]

    def close(self) -> None:
        if self._beat:
            self._beat.cancel()
        self.endpoint.close()


@dataclass
class Options:
    seed: int = 0
    corrupt: float = 0.0
    drop: float = 0.0
    reset_after: int | None = None


Scenario = Callable[[Host], Awaitable[None]]


def run_in_process(scenario: Scenario, opts: Options, tmp_path) -> None:
    async def main() -> None:
        noise = Impairment(corrupt=opts.corrupt, drop=opts.drop) if opts.corrupt or opts.drop else None
        plan = FaultPlan(link=noise, reset_after_command={opts.reset_after} if opts.reset_after else set())
        table = SimulatedTable(DEFAULT_PROFILE, seed=opts.seed, faults=plan)
        line = connect_in_process(asyncio.get_running_loop(), table)
        host = Host(line, 1.0, lambda: [r.as_dict() for r in table.trace.records])
        try:
            await scenario(host)
        finally:
            host.close()
            table.close()

    loop = VirtualTimeLoop()
    try:
        loop.run_until_complete(main())
    finally:
        loop.close()


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
            host = Host(SerialTransport.open(device), SPEED, trace)
            try:
                await scenario(host)
            finally:
                host.close()
        finally:
            proc.terminate()
            assert await proc.wait() == 0

    asyncio.run(main())


@pytest.fixture(params=["in_process", "pty", "tcp"])
def contract(request, tmp_path):
    def run(scenario: Scenario, **options) -> None:
        opts = Options(**options)
        if request.param == "in_process":
            run_in_process(scenario, opts, tmp_path)
        else:
            where = ["--pty"] if request.param == "pty" else ["--tcp", "127.0.0.1:0"]
            run_in_subprocess(where, scenario, opts, tmp_path)
    return run


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
    async def scenario(host: Host) -> None:
        reply = await host.command("get_status")
        assert (reply.name, reply["code"]) == ("rejected", Code.NOT_IDENTIFIED)
        identity = await host.identify()
        assert (identity["tiles"], identity["stacks"], identity["tile_sets"]) == (136, [17] * 4, 2)
        assert (await host.ok("get_status"))["boot_id"] == identity["boot_id"]
    contract(scenario)


def test_replies_come_one_per_command_in_order(contract):
    async def scenario(host: Host) -> None:
        await host.identify()
        replies = await asyncio.gather(host.send("get_status"), host.send("raise_walls"), host.send("raise_walls"),
                                       host.send("show_text", seats=0, text="hello"))
        assert [r.name for r in replies] == ["status", "ok", "rejected", "ok"]
        assert replies[2]["code"] == Code.BUSY
    contract(scenario)


def test_a_hand_cycle_with_interlocks(contract):
    async def scenario(host: Host) -> None:
        await host.identify()
        await host.ok("raise_walls")
        assert (await host.command("collect_tiles"))["code"] == Code.WALLS_RISING
        assert (await host.event()).name == "walls_raised"
        await host.ok("shuffle")
        assert await host.locations() == ["on_table", "shuffling"]
        dice = await host.run("roll_dice", count=2)
        assert len(dice["values"]) == 2
        assert (await host.run("separate_dead_wall", breaker=1, position=7, length=7)).name == "dead_wall_separated"
        assert (await host.run("flip_dora", seat=1, stack=5)).args == {"seat": 1, "stack": 5}
        assert (await host.event()).args == {"count": 136}  # shuffle_done
        await host.ok("collect_tiles")
        assert (await host.command("raise_walls"))["code"] == Code.CENTRE_OPEN
        assert (await host.event()).args == {"count": 136}  # tiles_collected
        assert (await host.run("raise_walls")).name == "walls_raised"
        assert await host.locations() == ["collected", "on_table"]
    contract(scenario)


def test_stop_and_resume(contract):
    async def scenario(host: Host) -> None:
        await host.identify()
        await host.ok("raise_walls")
        await host.ok("stop")
        assert (await host.command("raise_walls"))["code"] == Code.STOPPED
        await host.ok("resume")
        assert (await host.run("raise_walls")).name == "walls_raised"
    contract(scenario)


def test_noisy_line_executes_every_command_exactly_once(contract):
    async def scenario(host: Host) -> None:
        await host.identify()
        rolls = [(await host.run("roll_dice", count=2))["values"] for _ in range(20)]
        executed = [r for r in host.trace() if r["dir"] == "cmd" and r["name"] == "roll_dice"]
        assert len(executed) == 20
        assert [r["args"]["values"] for r in host.trace() if r["name"] == "dice_rolled"] == rolls
    contract(scenario, corrupt=0.01, drop=0.02, seed=5)


def test_mcu_reset_announces_a_new_boot(contract):
    async def scenario(host: Host) -> None:
        first = await host.identify()
        await host.ok("raise_walls")  # the second command: the MCU resets after it
        booted = await host.event()
        assert booted.name == "booted" and booted["boot_id"] != first["boot_id"]
        assert (await host.identify())["boot_id"] == booted["boot_id"]
        assert await host.locations() == ["stacked", "collected"]  # the raise was interrupted
    contract(scenario, reset_after=2)


def test_trace_records_commands_replies_and_events(contract):
    async def scenario(host: Host) -> None:
        await host.identify()
        dice = await host.run("roll_dice", count=2)
        records = without_heartbeats(host.trace())
        assert [(r["dir"], r["name"]) for r in records] == [("cmd", "identify"), ("reply", "identity"),
                                                             ("cmd", "roll_dice"), ("reply", "ok"),
                                                             ("event", "dice_rolled")]
        assert records[2]["args"] == {"count": 2} and records[4]["args"] == dice.args
        assert 1.9 < records[4]["t"] - records[2]["t"] < 2.5  # simulated seconds, whatever the speed
    contract(scenario)
