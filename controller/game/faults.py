"""Faults and the operator: `Faults` owns the fault (sets, shows, tells and clears it, and
moves the machine); every piece of table work runs through `TableWork.run`.

A setup step, a display, the wind marker, a kan's dora flip and the background shuffle
all meet the same things: a fault (the machine's ``fault`` until the operator's `retry`),
a pause (the work waits for `resume`, then runs again), a watchdog stop (resumed without
the operator) and a lost link (waited for while the recovery restores it). Each piece of
work is re-entrant, so running it again after any of these is always right.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from firmware_protocol.codes import Code

from controller.table.facade import Fault, Interrupted, LinkLost, McuReset, Overdue, Rejected, TableError, TableFault

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
    Code.GAME_STOPPED: "its hands are kept: abandon the game, or restart the controller to carry on "
                       "from the last stored hand",
}

# The retry in words for wherever the status is read (the table's page, the floor view,
# the CLI); the log names the CLI's command, read by whoever looks after the controller.
RETRY = "press a seat's OK button (or Retry on the table's page)"
RETRY_AT_THE_CONSOLE = "retry (`mjtable retry` or a seat's OK button)"


def remedy(code: int, then: str = RETRY) -> str:
    """What to do about a fault, for the status reply and the log."""
    if code in _FINAL:
        return _FINAL[code]
    return f"{_REMEDIES.get(code, 'see to the table')}, then {then}"


class Faults:
    """The fault the table is held on, and its one owner: it alone sets and clears it,
    moves the machine to `fault` and back (`retry`), shows it on the displays and tells
    it: one `fault` event per fault, sent once the machine has moved (so with the state the
    fault left the table in), and one `recovered`. Everyone else reads ``current`` or
    ``watch``es the faults as they are told (the metrics, the store's faults log)."""

    def __init__(self, table, sm, publish: Callable[..., None]) -> None:
        self.table, self.sm, self.publish = table, sm, publish
        self.recovery = None  # the recovery, which holds this room too: set once both exist
        self.current: Fault | Refused | StoreFailed | None = None
        self.operator = asyncio.Event()  # retry, a seat's OK button
        self._watchers: list[Callable[[Fault | Refused | StoreFailed], None]] = []
        self._told = None  # the last fault told: each is told once, whoever meets it again
        self._moved = False  # this fault moved the machine to `fault`: `retry` moves it back
        self._shown = False  # its code is on the displays until the work that met it has run

    def status(self) -> dict[str, Any]:
        """`status`'s part: the fault the table is held on, with what to do about it."""
        fault = self.current
        return {"fault": f"{fault.describe()}; {remedy(fault.code)}" if fault else None,
                "fault_code": int(fault.code) if fault else None,
                "fault_retries": fault is not None and fault.code not in _FINAL}

    def watch(self, listener: Callable[[Fault | Refused | StoreFailed], None]) -> None:
        self._watchers.append(listener)

    def hold(self, fault, move: str = "fault") -> None:
        """``fault`` is what the table is held on: the machine moved (by ``move``, where it
        may now: not while paused, not before the table is configured), then told once."""
        self.current = fault
        if getattr(self.sm, f"may_{move}")():
            self.sm.fire(move)
            self._moved = True
        if fault is not self._told:
            log.error("%s; %s", fault.describe(), remedy(fault.code, RETRY_AT_THE_CONSOLE))
        self.tell(fault)

    def tell(self, fault) -> None:
        """Publish ``fault`` unless told already (a watchdog stop is told, never held)."""
        if fault is self._told:
            return
        self._told = fault
        self.publish("fault", code=int(fault.code), message=fault.describe())
        for listener in list(self._watchers):
            listener(fault)

    def cause(self, exc: TableError):
        """The fault a table error is: the table's own. A refused command or a stop has no
        fault event: described from the refusal; but a command refused because the table
        stopped on a fault keeps that fault: the cause."""
        if isinstance(exc, TableFault):
            return exc.fault
        code = getattr(exc, "code", Code.STOPPED)
        if code == Code.STOPPED and self.current is not None:
            return self.current
        return Refused(code, str(exc))

    async def until_retried(self, fault, attempt: Callable[[], Awaitable[Any]], fails: tuple[type, ...] = (),
                            fault_of: Callable[[Exception], Any] | None = None):
        """The one wait for the operator: ``fault`` is held and shown until the operator's
        retry, then ``attempt()``. A failure of it (``fails``, the fault ``fault_of`` says)
        or of the table (e.g. resume refused while the lid is still open) is held and waited
        for again; a lost link is restored, and the same retry goes on."""
        self.hold(fault)
        self.operator.clear()  # once: a retry pressed while the link recovers still counts
        while True:
            try:
                await self.table.show_error(int(self.current.code))
                self._shown = True
                if self.current.code != Code.WATCHDOG:  # this host's own silence: no one need see to it
                    await self.operator.wait()
                outcome = await attempt()
                break
            except fails as again:
                self.hold(fault_of(again))
                self.operator.clear()
            except (Rejected, TableFault) as again:
                self.hold(self.cause(again))
                self.operator.clear()
            except (LinkLost, McuReset):
                await self.recovery.recover()
        await self._recovered()
        return outcome

    async def _recovered(self) -> None:
        self.current = None
        self.publish("recovered")
        await self.recovery.settled()  # lost meanwhile (background work noticed): restored first
        if self._moved and self.sm.may_retry():
            self.sm.fire("retry")
        self._moved = False

    def dismiss(self) -> None:
        """The game the fault held is given up (`abandon`): nothing is retried."""
        self.current, self._moved = None, False

    async def unshow(self) -> None:
        """The work that met the fault has run: take its code off the displays (unless
        another fault, e.g. of the background shuffle, is held still)."""
        if not self._shown or self.current is not None:
            return
        try:
            await self.table.show_error(0)
            self._shown = False
        except TableError as exc:  # the next work that runs tries again
            log.warning("could not clear the error on the displays: %s", exc)


class TableWork:
    """Runs table work through faults, pauses, watchdog stops and lost links. Handed what it
    uses: the table facade, the machine, a publish function, a spawner of background
    tasks, the faults, the operation deadlines; and the recovery, once it exists."""

    def __init__(self, table, sm, publish: Callable[..., None], spawn, faults: Faults,
                 operation_limits: Callable[[], dict[str, float]]) -> None:
        self.table, self.sm, self.publish, self.spawn = table, sm, publish, spawn
        self.faults, self.operation_limits = faults, operation_limits
        self.recovery = None  # set once it exists (it holds this room too)
        self.resumed = asyncio.Event()
        self._watchdog_resume: asyncio.Task | None = None
        self._held: asyncio.Task | None = None  # the one wait for the operator's retry of a table fault

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
                await self.recovery.recover()
        await self.faults.unshow()
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
        if busy <= max(self.operation_limits().values()):
            return None
        return Overdue(Code.OPERATION_TIMEOUT, "none", f"still busy after {busy:.0f} s ({exc.detail})")

    def _stopped_by_pause(self, exc: Exception) -> bool:
        """An operation the pause's `stop` aborted, or a motion command after it (held back
        by the facade, controller/table/facade.py `Held`, or refused by the stopped table)."""
        refused_while_paused = isinstance(exc, Rejected) and exc.code == Code.STOPPED and self.sm.is_motion_paused()
        return isinstance(exc, Interrupted) or refused_while_paused

    async def advance(self, trigger: str) -> None:
        """Fire a trigger of the game's own course; while paused, it waits for `resume`."""
        await self.hold_while_paused()
        self.sm.fire(trigger)

    # ---- pause ----
    async def hold_while_paused(self) -> None:
        if self.sm.is_motion_paused():
            self.publish("waiting", what="resume")
            while self.sm.is_motion_paused():
                self.resumed.clear()
                await self.resumed.wait()

    # ---- watchdog ----
    async def resumed_after_watchdog(self, exc: Exception) -> bool:
        """A watchdog stop means the table did not hear this host (heartbeats lost on a
        noisy line): nothing for the operator to clear, so resume and run the work again."""
        if self.sm.is_motion_paused() or not await self._watchdog_stopped(exc):
            return False
        if self._watchdog_resume is None or self._watchdog_resume.done():
            log.warning("the table stopped: its watchdog missed this host's heartbeats; resuming")
            self._watchdog_resume = self.spawn(self.table.resume(), "watchdog resume")
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
                return (await self.table.get_status())["fault"] == Code.WATCHDOG
            except TableError:
                return False
        return False

    # ---- the operator ----
    def held_by(self, fault: Fault) -> None:
        """The table says it stopped on ``fault`` (its fault event, or its status after a
        reconnect): held at once, and seen to whether or not any work waits on the table."""
        faults = self.faults
        if faults.current is None or faults.current.code != fault.code:  # else: the one held, found again
            faults.hold(fault)
        self._see_to(faults.current)

    async def await_operator(self, exc: TableError) -> None:
        """The machine's `fault`: shown, everything kept, until the operator's retry resumes
        the table; one wait however many pieces of work met the fault."""
        fault = self.faults.cause(exc)
        if self._held is not None and not self._held.done():
            self.faults.hold(fault)  # the machine moved, if it could not when the fault came
        await asyncio.shield(self._see_to(fault))

    def _see_to(self, fault) -> asyncio.Task:
        if self._held is None or self._held.done():
            self._held = self.spawn(self._until_resumed(fault), "fault")
        return self._held

    async def _until_resumed(self, fault) -> None:
        await self.hold_while_paused()  # a fault met as the pause stopped the table: the fault after resume
        await self.faults.until_retried(fault, self.table.resume)

    def let_go(self) -> None:
        """The game is abandoned: no retry resumes the table (the next game's opening does)."""
        if self._held is not None:
            self._held.cancel()
        self.faults.dismiss()
