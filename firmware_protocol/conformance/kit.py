"""The state the checks share and the host moves they are made of: command and expect,
run an operation to its completion, read the status, bring the table to rest."""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ..catalog import OPERATIONS, SET_LOCATIONS, Message
from ..codes import Code, describe
from .check import Check, NotApplicable
from .probe import CheckFailed, Probe

QUIET = 0.3  # how long the kit listens to be sure that something does not arrive


class Kit:
    def __init__(self, probe: Probe, *, op_timeout: float, reset: Callable[[], Awaitable[None]] | None) -> None:
        self.probe = probe
        self.op_timeout = op_timeout  # the longest a mechanical operation may take
        self.reset = reset            # resets the MCU, if the table maker gave a way
        self.identity: dict[str, Any] = {}
        self.booted: Message | None = None   # seen in the kit's first session
        self.durations: dict[str, float] = {}  # operation -> seconds it took here
        self.before_reset: dict[str, Any] = {}  # what the MCU reset checks compare with
        self.observed: dict[str, Exception | None] = {}  # refusals tried during an operation, by check
        self.maintenance = False  # the kit put the table in the 1.1 sensor test mode
        self.watchdog_fires = False  # watchdog.fault saw it fire
        self.inconsistent: str | None = None  # the invariant the table's status broke (status.invariants)

    # ---- commands ----
    async def ok(self, name: str, /, **args: Any) -> Message:
        reply = await self.probe.command(name, **args)
        if reply.name == "rejected":
            raise CheckFailed(f"{_call(name, args)} was rejected {_code(reply)}")
        return reply

    async def refused(self, expected: Code, name: str, /, **args: Any) -> None:
        """The command must be rejected `expected`; an accepted one is undone as a host would."""
        reply = await self.probe.command(name, **args)
        if reply.name != "rejected":
            await self.settle()
            raise CheckFailed(f"{_call(name, args)} was accepted ({reply.name}), not rejected {expected.name}")
        if reply["code"] != expected:
            raise CheckFailed(f"{_call(name, args)} was rejected {_code(reply)}, not {expected.name} ({int(expected)})")

    async def status(self) -> dict[str, Any]:
        reply = await self.probe.command("get_status")
        if reply.name != "status":
            raise CheckFailed(f"get_status was answered {reply.name} {_code(reply)}")
        return reply.args

    async def locations(self) -> list[str]:
        return [_name(SET_LOCATIONS, code) for code in (await self.status())["sets"]]

    # ---- operations ----
    async def operate(self, name: str, completion: str, during: Callable[[], Awaitable[None]] | None = None,
                      **args: Any) -> Message:
        """Start a long operation, run `during` while it moves, return its completion event."""
        mark = len(self.probe.delivered)
        started = self.probe.loop.time()
        await self.ok(name, **args)
        if during is not None:
            await during()
        event = await self.until(lambda: self._outcome(mark, completion), self.op_timeout,
                                 f"{completion} after {name}")
        if event.name == "fault":
            raise CheckFailed(f"{name} ended with fault {describe(event['code'])} ({event['code']})")
        self.durations[name] = self.probe.loop.time() - started
        return event

    async def until(self, condition: Callable[[], Any], timeout: float, what: str) -> Any:
        """Probe.until, feeding the watchdog meanwhile as a host does (every timeout / 3)."""
        deadline = self.probe.loop.time() + timeout
        while True:
            left = deadline - self.probe.loop.time()
            try:
                return await self.probe.until(condition, min(left, self._feed_every()), what)
            except CheckFailed:
                if left <= self._feed_every() or self.probe.closed:
                    raise CheckFailed(f"no {what} within {timeout:g} s") from None
                await self.ok("heartbeat")

    async def pause(self, seconds: float) -> None:
        """Let `seconds` pass, feeding the watchdog."""
        deadline = self.probe.loop.time() + seconds
        while (left := deadline - self.probe.loop.time()) > 0:
            await self.probe.quiet(min(left, self._feed_every()))
            if left > self._feed_every():
                await self.ok("heartbeat")

    def _feed_every(self) -> float:
        return self.identity.get("heartbeat_timeout_ms", 3000) / 3000

    def _outcome(self, mark: int, completion: str) -> Message | None:
        return next((m for m in self.probe.events_after(mark) if m.name in (completion, "fault")), None)

    async def settle(self) -> None:
        """Bring the table to rest as a host would: let an operation end, else stop it;
        clear a stop or fault with resume."""
        deadline = self.probe.loop.time() + self.op_timeout
        status = await self.status()
        while status["operation"] and self.probe.loop.time() < deadline:
            await self.pause(QUIET)
            status = await self.status()
        if status["operation"]:
            await self.ok("stop")
        if status["operation"] or status["stopped"]:
            await self.ok("resume")

    def stopped_reason(self, status: dict[str, Any]) -> str:
        return f"operation {_name(OPERATIONS, status['operation'])}, stopped={status['stopped']}, " \
               f"fault={status['fault']}"

    # ---- the table's geometry ----
    def stacks(self) -> list[int]:
        """Four walls holding exactly one set within the lifts' capacity (for configure)."""
        stacks = list(self.identity["stacks"])
        while 2 * sum(stacks) > self.identity["tiles"]:
            stacks[stacks.index(max(stacks))] -= 1
        return stacks

    def has(self, field: str) -> bool:
        return bool(self.identity.get(field))


def broken_invariant(status: dict[str, Any]) -> str | None:
    """The first invariant of the tile sets' state (docs/FIRMWARE.md) that `status` breaks."""
    where = [_name(SET_LOCATIONS, code) for code in status["sets"]]
    moving = status["operation"] != 0
    rest = [w for w in where if w in ("on_table", "collected", "stacked")]
    for bad, text in (
        (status["walls_up"] != ("on_table" in where), "walls_up ⇔ a set on_table"),
        (len(rest) != len(set(rest)), "at most one set on_table, collected and stacked each"),
        (status["dead_wall_separated"] and not status["walls_up"], "dead_wall_separated ⇒ walls_up"),
        (status["dora_flipped"] and not status["walls_up"], "dora_flipped > 0 ⇒ walls_up"),
        (status["centre_open"] and not moving, "centre_open ⇒ an operation (collect_tiles) runs"),
        ({"shuffling", "raising"} & set(where) and not moving, "a set shuffling or raising ⇒ an operation runs"),
        ("shuffling" in where and "stacked" in where, "a set shuffling ⇒ none stacked"),
        ("raising" in where and "on_table" in where, "a set raising ⇒ none on_table"),
    ):
        if bad:
            return f"{text} (sets {where}, walls_up={status['walls_up']}, dead_wall_separated=" \
                   f"{status['dead_wall_separated']}, dora_flipped={status['dora_flipped']}, " \
                   f"centre_open={status['centre_open']}, operation {_name(OPERATIONS, status['operation'])})"
    return None


def consistent(item: Check) -> Check:
    """`item`, n/a when the table's status broke an invariant: its state rules cannot be
    judged from a status that contradicts itself (status.invariants names the fault)."""
    async def run(kit: Kit) -> str | None:
        if kit.inconsistent is not None:
            raise NotApplicable("not run: the table's status breaks an invariant (see status.invariants)")
        return await item.run(kit)
    return replace(item, run=run)


def _call(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={v}' for k, v in args.items())})"


def _code(reply: Message) -> str:
    return f"{describe(reply['code']).upper()} ({reply['code']})" if reply.name == "rejected" else ""


def _name(names: tuple[str, ...], index: int) -> str:
    return names[index] if 0 <= index < len(names) else f"#{index}"
