"""Connection and recovery: the start-up (connect, identify, self-test) and the restoring
of a lost link or a reset table.

The link itself (connect with backoff, its down / connecting / up) is the table facade's.
This room makes a reconnected table the one the game left: configured for the rules,
the displays and the dealer lamp as they were, the wind marker set, a pause's stop
repeated, a stop found on the table reconciled. One recovery runs at a time, shared by
every piece of work that noticed the loss; meanwhile `state` says ``reconnecting`` and
the game waits where it is.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from firmware_protocol.codes import Code

from controller.table.capabilities import cannot_play
from controller.errors import Refusal
from controller.game.faults import Refused
from controller.game.game import InPlay
from controller.table.facade import Fault, LinkLost, McuReset, Overdue, Rejected, TableError

log = logging.getLogger("mjtable.controller")


class Recovery:
    """Handed what it uses: the table facade, the machine, what is in play, a publish
    function, a spawner, the reconnect backoff's ceiling; the work, the faults and the
    displays once they exist (each holds this room too)."""

    def __init__(self, table, sm, in_play: InPlay, publish: Callable[..., None], spawn, backoff_max: float) -> None:
        self.table, self.sm, self.in_play, self.publish, self.spawn = table, sm, in_play, publish, spawn
        self.backoff_max = backoff_max
        self.work = self.faults = self.displays = None  # set once they exist
        self._task: asyncio.Task | None = None

    @property
    def active(self) -> bool:
        return self._task is not None and not self._task.done()

    # ---- start-up ----
    async def start_up(self, paused: bool = False) -> bool:
        """Connect, identify, self-test: from ``boot`` to ``idle``. Whether the table stays
        held by a pause: one stored before this start (`paused`), or one found on the table."""
        self.sm.fire("power_on")
        await self._connect()
        self.sm.fire("identified")
        while True:
            try:
                held = await self._self_test(paused)
                break
            except (LinkLost, McuReset, Overdue) as exc:  # a noisy line: connect again and test again
                log.warning("self-test interrupted (%s); connecting again", exc)
                await self._connect()
        self.sm.fire("ready")
        return held

    async def _connect(self) -> None:
        def retrying(exc: Exception, delay: float) -> None:
            self.publish("link", status="retrying", error=str(exc), retry_in=delay)
        await self.table.connect_with_backoff(self.backoff_max, on_retry=retrying)

    async def _self_test(self, paused: bool) -> bool:
        ident, caps = self.table.identity, self.table.capabilities
        refusal = cannot_play(caps, self.in_play.rules)
        if refusal:
            raise Refusal("not_allowed", refusal)
        try:
            await self._configure()
        except Rejected as exc:
            raise Refusal("not_allowed", f"this table ({ident['model']}, {ident['tiles']} tiles) cannot play "
                                         f"{self.in_play.ruleset_name}: {exc}") from None
        status = await self.table.get_status()
        absent = caps.absent()
        log.info("table %s ready: sets %s%s", ident["model"], status["sets"],
                 f"; without {', '.join(absent)} (shown another way)" if absent else "")
        # Only its watchdog's stop is this host's own to resume; a stop with no fault is a
        # host's pause (this one's, killed before it could store it): both are shown, held.
        held = paused or (status["stopped"] and status["fault"] == 0)
        await self.reconcile_stop(status, held)
        return held

    async def _configure(self) -> None:
        rules = self.in_play.rules
        await self.table.configure(rules.players, rules.tiles, list(rules.stacks_per_side))

    async def reconcile_stop(self, status: dict, paused: bool = False) -> None:
        """A table found stopped after a (re)connect: its fault event may never have reached us.
        While paused it stays stopped (stopped again if not) until the operator's `resume`."""
        if not status["stopped"]:
            if paused:
                await self.table.stop()  # the pause's stop was lost with the link, or the table reset
            return
        if status["fault"] in (0, Code.WATCHDOG):
            # Stopped because this host was silent (watchdog) or by this host itself (a game
            # given up while paused); while paused, only the operator's `resume` restarts it.
            if not paused:
                await self._resume_found_stopped()
            return
        self.work.held_by(Fault(status["fault"], "none", "none", 0, 0))

    async def _resume_found_stopped(self) -> None:
        try:
            await self.table.resume()
        except Rejected as exc:  # e.g. its lid opened while this host was away: the operator sees to it
            self.work.held_by(Refused(exc.code, f"the table cannot resume ({exc})"))

    # ---- a lost link, a reset table ----
    def lost(self, kind: str) -> None:
        """The facade's news of a lost link or a reset: with no work waiting on the table
        (which would start the recovery itself), restore it in the background."""
        self.publish(kind)
        if self.sm.nothing_waits_on_table() and not self.active:
            self.spawn(self.recover(), "link recovery")

    async def recover(self) -> None:
        """Restore the link; one recovery at a time, shared by every coroutine that noticed."""
        if not self.active:
            self._task = self.spawn(self._reconnect(), "reconnect")
        await asyncio.shield(self._task)

    async def settled(self) -> None:
        """Return once no recovery is running."""
        if self.active:
            await asyncio.shield(self._task)

    async def _reconnect(self) -> None:
        self.publish("state")  # reconnecting
        while True:
            self.table.close()
            await self._connect()
            try:
                await self._configure()
                await self._restore()
                break
            except Rejected as exc:
                # e.g. the table is still busy with an operation from before the loss
                log.warning("restoring the table after reconnect: %s; trying again", exc)
                await asyncio.sleep(1.0)
            except TableError as exc:
                log.warning("link lost again while restoring the table: %s", exc)
        self._task = None  # restored: `state` is the game's again
        self.publish("reconnected")
        self.publish("state")

    async def _restore(self) -> None:
        """The table as the game left it. Between games only a pause's stop: the next
        game's opening reconciles any other stop."""
        game = self.in_play.game
        paused = self.sm.is_motion_paused()
        if game.state is None:
            if paused:
                await self.reconcile_stop(await self.table.get_status(), paused)
            return
        await self.displays.show_scores()
        await self.displays.show_round()
        await self.table.set_dealer_lamp(game.state.dealer)
        await self.reconcile_stop(await self.table.get_status(), paused)
        if paused:  # the marker moves: set (where it is not) once the operator resumes, the recovery done
            self.spawn(self.displays.show_wind_marker(), "wind marker after the pause")
        else:
            await self.displays.show_wind_marker()
        if self.faults.current:
            await self.table.show_error(int(self.faults.current.code))
