"""Run the checks in order against one table and print one line per check as it runs.

The checks of a section share the table's state, so they run in the order below; a
failed check is followed by a new link session (with the kit's epoch) so that the next
one starts on a synchronised link. Whatever happens, the kit leaves the table at rest.
"""
from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from ..transport import ByteTransport
from . import commands, data_frames, frames, mcu_reset, motion, protocol_1_1, sessions, watchdog
from .check import Check, NotApplicable, check
from .kit import Kit
from .probe import CheckFailed, Probe


@check("§State rules", "left_at_rest", "the kit leaves the table idle, not stopped")
async def left_at_rest(kit: Kit) -> None:
    await kit.settle()
    status = await kit.status()
    if status["operation"] or status["stopped"]:
        raise CheckFailed(f"the table is not at rest: {kit.stopped_reason(status)}")


CHECKS: tuple[Check, ...] = (*sessions.CHECKS, *frames.CHECKS, *data_frames.CHECKS, *commands.CHECKS,
                             *motion.CHECKS, *watchdog.CHECKS, *protocol_1_1.CHECKS, *mcu_reset.CHECKS,
                             left_at_rest)
PASS, FAIL, NA = "pass", "FAIL", "n/a"


@dataclass(frozen=True)
class Result:
    check: Check
    verdict: str
    note: str = ""

    def line(self) -> str:
        text = f"{self.verdict:<4}  {self.check.name:<32} {self.check.section:<25} {self.check.title}"
        return f"{text} — {self.note}" if self.note else text


@dataclass
class Report:
    results: list[Result] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.results)

    @property
    def failed(self) -> list[str]:
        return [r.check.name for r in self.results if r.verdict == FAIL]

    def summary(self) -> str:
        verdict = "FAIL" if self.failed else "PASS"
        return (f"conformance {verdict}: {self.count(PASS)} passed, {self.count(FAIL)} failed, "
                f"{self.count(NA)} not applicable in {self.seconds:.1f} s")


async def run_checks(line: ByteTransport, emit: Callable[[str], None] = print, *, op_timeout: float = 120.0,
                     reset: Callable[[], Awaitable[None]] | None = None,
                     checks: tuple[Check, ...] = CHECKS) -> Report:
    """Test the table on `line`; `reset` resets its MCU (None: the reset checks are n/a)."""
    loop = asyncio.get_running_loop()
    probe = Probe(line, int.from_bytes(os.urandom(4), "little"), loop)
    kit = Kit(probe, op_timeout=op_timeout, reset=reset)
    report = Report()
    started = loop.time()
    try:
        for item in checks:
            result = await _run_one(kit, item, 3 * op_timeout + 30)
            report.results.append(result)
            emit(result.line())
    except asyncio.CancelledError:  # interrupted (Ctrl-C): stop the motors now
        await _halt(kit)
        raise
    finally:
        await _leave_at_rest(kit)
        probe.close()
    report.seconds = loop.time() - started
    emit(report.summary())
    return report


async def _run_one(kit: Kit, item: Check, limit: float) -> Result:
    if kit.probe.closed:
        return Result(item, NA, "not run: the line closed")
    if item.needs is not None:
        if not kit.identity:
            return Result(item, NA, "not run: the table gave no identity")
        reason = item.needs(kit.identity)
        if reason:
            return Result(item, NA, reason)
    try:
        note = await asyncio.wait_for(item.run(kit), limit)
        return Result(item, PASS, note or "")
    except NotApplicable as why:
        return Result(item, NA, str(why))
    except CheckFailed as failed:
        await _resynchronise(kit)
        return Result(item, FAIL, str(failed))
    except asyncio.TimeoutError:
        await _resynchronise(kit)
        return Result(item, FAIL, f"not done within {limit:g} s")
    except (KeyError, TypeError, IndexError) as odd:  # a message of another kind than the rule says
        await _resynchronise(kit)
        return Result(item, FAIL, f"unexpected answer ({type(odd).__name__}: {odd})")


async def _resynchronise(kit: Kit) -> None:
    """After a failure the two ends may disagree on sequence numbers: a new session."""
    kit.probe.deaf = False
    try:
        await kit.probe.session()
    except CheckFailed:
        pass


async def _halt(kit: Kit) -> None:
    kit.probe.deaf = False
    try:
        await kit.ok("stop")
        await kit.ok("resume")
        await _leave_maintenance(kit)
    except CheckFailed:
        pass


async def _leave_at_rest(kit: Kit) -> None:
    if kit.identity and not kit.probe.closed:
        try:
            await kit.settle()
            await _leave_maintenance(kit)
        except CheckFailed:
            pass


async def _leave_maintenance(kit: Kit) -> None:
    """Back to game mode if a check failed in the sensor test mode; a subsystem test still
    running (leave_maintenance BUSY) is stopped first."""
    if kit.maintenance:
        if (await kit.probe.command("leave_maintenance")).name == "rejected":
            await kit.ok("stop")
            await kit.ok("resume")
            await kit.ok("leave_maintenance")
        kit.maintenance = False
