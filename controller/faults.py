"""Faults and the operator: every piece of table work runs through `TableWork.run`.

A setup step, a display, the wind marker, a kan's dora flip and the background shuffle
all meet the same things: a fault (the machine's ``fault`` until the operator's `retry`),
a pause (the work waits for `resume`, then runs again), a watchdog stop (resumed without
the operator) and a lost link (waited for while the recovery restores it). Each piece of
work is re-entrant, so running it again after any of these is always right.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from firmware_protocol.codes import Code

from controller.table import Interrupted, LinkLost, McuReset, Overdue, Rejected, TableError, TableFault

if TYPE_CHECKING:
    from controller.controller import Controller

log = logging.getLogger("mjtable.controller")


@dataclass(frozen=True)
class Refused:
    """A step the table refused (e.g. the lid is open): it stays the fault until retry."""

    code: int
    text: str

    def describe(self) -> str:
        return self.text


@dataclass(frozen=True)
class StoreFailed:
    """A write the state database refused (disk full, read-only): nothing of it is stored,
    and it stays the fault until a retry stores it."""

    text: str
    code: int = Code.STORE_FAILED

    def describe(self) -> str:
        return self.text


# What the operator does about a fault, before `retry`.
_REMEDIES = {
    Code.LID_OPEN: "close the lid",
    Code.LID_OPENED: "close the lid",
    Code.CENTRE_OPEN: "close the centre plate",
    Code.JAM: "clear the jammed tile",
    Code.TILE_COUNT: "put the missing tile back or take the extra one out",
    Code.LIFT_STUCK: "free the stuck wall lift",
    Code.OPERATION_TIMEOUT: "look for what holds the mechanism up",
    Code.BUILD_TIMEOUT: "look for what holds the shuffler up",
    Code.BAD_REPORT: "if it recurs, have the table's firmware checked (it reported a value that cannot be true)",
    Code.STORE_FAILED: "free space on the state database's disk (or make it writable)",
}

# Faults no retry can clear: what the operator does instead.
_FINAL = {
    Code.GAME_STOPPED: "its hands are kept: `mjtable abandon` it, or restart the controller to carry on "
                       "from the last stored hand",
}


def remedy(code: int, then: str = "retry (`mjtable retry` or a seat's OK button)") -> str:
    """What to do about a fault, for the status reply and the log."""
    if code in _FINAL:
        return _FINAL[code]
    return f"{_REMEDIES.get(code, 'see to the table')}, then {then}"


class FaultOnce:
    """Each fault once, with the subsystem the table names (``"none"``: the host's own, a
    refusal or a store failure, and the watchdog's stops): the table's fault event and the
    work it stopped both publish it. ``seen(event)`` is None for the second telling."""

    def __init__(self, controller) -> None:
        self.c = controller
        self._last = None

    def seen(self, event: dict) -> tuple[int, str] | None:
        fault, code = self.c.fault, event["code"]
        if fault is None or int(fault.code) != code:
            return code, "none"
        if fault is self._last:
            return None
        self._last = fault
        return code, getattr(fault, "subsystem", "none")


class TableWork:
    """Runs table work through faults, pauses, watchdog stops and lost links."""

    def __init__(self, controller: "Controller") -> None:
        self.c = controller
        self.operator = asyncio.Event()  # retry, a seat's OK button
        self.resumed = asyncio.Event()
        self._watchdog_resume: asyncio.Task | None = None
        self._error_shown = False  # an error code is on the displays until the work that faulted runs

    async def run(self, action, *, step: bool = False):
        """Run ``action()`` until it succeeds and return what it returns. A setup ``step``
        waits for `resume` before each try and waits out a table still busy with an
        operation from before a lost link; other work runs while paused unless it moves."""
        busy_since = None
        while True:
            if step:
                await self.hold_while_paused()
            try:
                outcome = await action()
                break
            except Rejected as exc:
                if step and exc.code == Code.BUSY:
                    # Still running from before a lost link: its result shows in the status soon.
                    busy_since = busy_since or asyncio.get_running_loop().time()
                    if (overdue := self._busy_too_long(busy_since, exc)) is None:
                        await asyncio.sleep(1.0)
                        continue
                    busy_since, exc = None, overdue
                await self._stopped(exc)
            except (TableFault, Interrupted) as exc:
                await self._stopped(exc)
            except (LinkLost, McuReset):
                await self.c.recovery.recover()
        await self._clear_error()
        return outcome

    async def _stopped(self, exc: TableError) -> None:
        if self._stopped_by_pause(exc):
            log.info("table work held by the pause: it carries on at `resume`")
            await self.hold_while_paused()
        elif not await self.resumed_after_watchdog(exc):
            await self.await_operator(exc)

    def _busy_too_long(self, since: float, exc: Rejected) -> Overdue | None:
        """A table busy for longer than its longest operation's limit is stuck."""
        busy = asyncio.get_running_loop().time() - since
        if busy <= max(self.c.settings.operation_limits().values()):
            return None
        return Overdue(Code.OPERATION_TIMEOUT, "none", f"still busy after {busy:.0f} s ({exc.detail})")

    def _stopped_by_pause(self, exc: Exception) -> bool:
        """An operation the pause's `stop` aborted, or a motion command after it (held back
        by the facade, controller/table.py `Held`, or refused by the stopped table)."""
        refused_while_paused = isinstance(exc, Rejected) and exc.code == Code.STOPPED and self.c.sm.is_motion_paused()
        return isinstance(exc, Interrupted) or refused_while_paused

    # ---- pause ----
    async def hold_while_paused(self) -> None:
        if self.c.sm.is_motion_paused():
            self.c.publish("waiting", what="resume")
            while self.c.sm.is_motion_paused():
                self.resumed.clear()
                await self.resumed.wait()

    # ---- watchdog ----
    async def resumed_after_watchdog(self, exc: Exception) -> bool:
        """A watchdog stop means the table did not hear this host (heartbeats lost on a
        noisy line): nothing for the operator to clear, so resume and run the work again."""
        if self.c.sm.is_motion_paused() or not await self._watchdog_stopped(exc):
            return False
        if self._watchdog_resume is None or self._watchdog_resume.done():
            log.warning("the table stopped: its watchdog missed this host's heartbeats; resuming")
            self._watchdog_resume = self.c.background.spawn(self.c.table.resume(), "watchdog resume")
        try:
            await asyncio.shield(self._watchdog_resume)
        except TableError as again:  # the work run again meets it again (link lost: reconnect)
            log.warning("resuming after the watchdog stop: %s", again)
        return True

    async def _watchdog_stopped(self, exc: Exception) -> bool:
        if isinstance(exc, TableFault):
            return exc.fault.code == Code.WATCHDOG
        if isinstance(exc, Rejected) and exc.code == Code.STOPPED:  # the watchdog's fault event may be lost
            try:
                return (await self.c.table.get_status())["fault"] == Code.WATCHDOG
            except TableError:
                return False
        return False

    # ---- the operator ----
    async def await_operator(self, exc: TableError) -> None:
        """The machine's `fault`: show the error, keep everything, wait for retry; resume
        the table; back to running."""
        await self.hold_while_paused()  # a fault met as the pause stopped the table: the fault after resume
        if self.c.sm.may_fault():
            self.c.trigger("fault")
        self.note_fault(exc)
        self.operator.clear()  # once: a retry pressed while the link recovers still counts
        while True:
            try:
                await self.c.table.show_error(int(self.c.fault.code))
                self._error_shown = True
                if self.c.fault.code != Code.WATCHDOG:  # this host's own silence: no one need see to it
                    await self.operator.wait()
                await self.c.table.resume()
                break
            except (Rejected, TableFault) as again:  # e.g. resume refused while the lid is still open
                self.note_fault(again)
                self.operator.clear()
            except (LinkLost, McuReset):
                await self.c.recovery.recover()
        self.c.fault = None
        self.c.publish("recovered")
        await self.c.recovery.settled()  # lost meanwhile (background work noticed): restored first
        if self.c.sm.may_retry():
            self.c.trigger("retry")

    def note_fault(self, exc: TableError) -> None:
        """The fault the operator sees to: in status, in the log, to subscribers."""
        code = getattr(exc, "code", Code.STOPPED)
        if isinstance(exc, TableFault):
            self.c.fault = exc.fault
        elif not (code == Code.STOPPED and self.c.fault is not None):
            # A refused command or a stop has no fault event: described from the refusal. A
            # command refused because the table stopped on a fault keeps that fault: the cause.
            self.c.fault = Refused(code, str(exc))
        self.c.publish("fault", code=int(self.c.fault.code), message=self.c.fault.describe())
        log.error("%s; %s", self.c.fault.describe(), remedy(self.c.fault.code))

    async def _clear_error(self) -> None:
        """The work that faulted has run: take its error off the displays (unless another
        fault, e.g. of the background shuffle, still waits for the operator)."""
        if not self._error_shown or self.c.fault is not None:
            return
        try:
            await self.c.table.show_error(0)
            self._error_shown = False
        except TableError as exc:  # the next work that runs tries again
            log.warning("could not clear the error on the displays: %s", exc)
