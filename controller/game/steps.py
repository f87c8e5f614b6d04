"""The hand's setup steps, walked in the machine's order.

Each step is the hardware work of one machine state (`STEPS`). Each is re-entrant:
before acting it asks the table where things are (`get_status`) and skips what is done,
so the same code serves a clean run, a retry after a fault, a reconnect, an MCU reset and
a restart. Tile sets are pipelined: once a set's walls are up, the other set is shuffled
in the background, so a hand change costs collect + raise + dice + separate.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from firmware_protocol.codes import Code

from controller import rules as R
from controller.game.centre_text import break_text, dora_text
from controller.table.facade import Fault, Overdue, TableFault

if TYPE_CHECKING:
    from controller.game.controller import Controller

log = logging.getLogger("mjtable.controller")

class Setup:
    def __init__(self, controller: "Controller") -> None:
        self.c = controller
        self._shuffle_task: asyncio.Task | None = None
        # The step of each machine state (``preparing`` has none: the hand's record is made).
        self.steps = {
            "collecting": lambda: self._run(self._collect),
            "waiting_shuffle": lambda: self._run(self._wait_for_stacked_set),
            "raising": lambda: self._run(self._raise),
            "awaiting_start": lambda: self._run(lambda: self.waiting("the start signal", self.c.clock.wait_for_start)),
            "rolling": self._roll_all,
            "separating": lambda: self._run(self._separate),
            "revealing_dora": lambda: self._run(lambda: self.reveal_dora(0)),
        }

    async def walk(self, resume_at: str) -> None:
        """From ``preparing`` through the setup steps, up to the last before ``playing``.
        A state before `resume_at` was done at the table already: passed, not run."""
        c, sm = self.c, self.c.sm
        shuffling = False
        while True:
            if not sm.passed(resume_at):
                c.save_step()
                if sm.walls_up() and not shuffling:
                    self._start_background_shuffle()
                    shuffling = True
                if sm.game in self.steps:
                    await self.steps[sm.game]()
            if sm.next_in_cycle() == "playing":
                return
            await c.advance("done")

    async def open_game(self) -> None:
        """The table's part of a new game: a stop that happened while idle (its watchdog
        while this host was stalled, its event lost with the link) is cleared first."""
        c = self.c

        async def reconcile():
            await c.recovery.reconcile_stop(await c.table.get_status(), paused=c.sm.is_motion_paused())
            if c.fault is not None:  # stopped on a fault of its own: the operator sees to it
                raise TableFault(c.fault)
        await c.work.run(reconcile)
        await c.work.run(c.displays.show_opening)
        await c.displays.show_wind_marker()

    async def waiting(self, what: str, work) -> None:
        """Run ``work()`` (a coroutine function: nothing starts if the text cannot be shown)
        with "waiting for ..." shown and in status."""
        self.c.waiting_for = what
        self.c.publish("waiting", what=what)
        await self.c.table.show_text(f"waiting for {what}")
        try:
            await work()
        finally:
            self.c.waiting_for = None

    async def _run(self, step) -> None:
        await self.c.work.run(step, step=True)

    # ---- the steps ----
    async def _collect(self) -> None:
        c = self.c
        status = await c.table.get_status()
        if "on_table" not in status["sets"]:
            return
        await self._empty_hopper(status)
        count = await c.table.collect_tiles()
        if count != c.rules.tiles:
            # A lost or extra tile would corrupt every later wall: stop before raising.
            await c.table.stop()
            raise TableFault(Fault(Code.TILE_COUNT, "centre", "hopper", c.rules.tiles, count))

    async def _wait_for_stacked_set(self) -> None:
        status = await self.c.table.get_status()
        if "stacked" in status["sets"] or "on_table" in status["sets"]:
            return
        await self._empty_hopper(status)

    async def _empty_hopper(self, status: dict) -> None:
        """Make sure no set waits in the hopper: let a running shuffle finish, and shuffle a
        set left collected (its shuffle died with a killed host or a watchdog stop)."""
        await self._await_shuffle(status)
        if "collected" in (await self.c.table.get_status())["sets"]:
            await self.waiting("shuffle", self.c.table.shuffle)

    async def _await_shuffle(self, status: dict) -> None:
        """Wait for the background shuffle, visibly, if it is still running."""
        task = self._shuffle_task
        if task is not None and not task.done():
            await self.waiting("shuffle", lambda: asyncio.shield(task))
        elif "shuffling" in status["sets"]:
            # Started before a reconnect or restart: its completion may be gone, so ask again.
            await self.waiting("shuffle", self._poll_until_stacked)

    async def _poll_until_stacked(self) -> None:
        c = self.c
        loop = asyncio.get_running_loop()
        limit = c.settings.operation_limits()["shuffle"]
        deadline = loop.time() + limit
        while "shuffling" in (await c.table.get_status())["sets"]:
            if loop.time() > deadline:
                log.warning("the shuffle begun before the reconnect has run %.0f s; stopping the table", limit)
                await c.table.stop()
                raise Overdue(Code.BUILD_TIMEOUT, "shuffler", f"shuffle still running after {limit:.0f} s; stopped")
            await asyncio.sleep(2.0)

    async def _raise(self) -> None:
        status = await self.c.table.get_status()
        if status["walls_up"] and "on_table" in status["sets"]:
            return  # raised before a reconnect or restart
        await self.c.table.raise_walls()

    async def _roll_all(self) -> None:
        self.c.clock.dice_thrown()  # the hand begins (a time-limited session counts it from here)
        for _ in range(len(self.c.hand.throws), self.c.rules.dice.throws):
            await self._run(self._roll)

    async def _roll(self) -> None:
        c = self.c
        values = await c.table.roll_dice(c.rules.dice.per_throw)
        c.hand.throws.append(values)
        c.save_step()
        if len(c.hand.throws) == 1 and c.rules.dice.throws > 1:
            breaker = R.breaker_seat(c.rules, c.state.dealer, sum(values))
            await c.table.show_text(f"seat {breaker} throws")

    async def _separate(self) -> None:
        c = self.c
        if c.hand.separated:
            return
        setup = c.setup()
        if c.displays.separates(setup):
            # It may have finished while the link was down.
            if not (await c.table.get_status())["dead_wall_separated"]:
                await c.table.separate_dead_wall(*setup.break_after, len(setup.dead_wall))
        else:
            await c.table.show_text(break_text(setup.break_after))
        c.hand.separated = True
        c.save_step()

    async def reveal_dora(self, index: int) -> None:
        """Indicator `index`: the first at setup, one more at each kan."""
        c = self.c
        if c.hand.dora_shown > index:
            return
        at = c.setup().dora_indicators[index]
        if c.table.capabilities.dora_flipper:
            if (await c.table.get_status())["dora_flipped"] <= index:  # not flipped while the link was down
                await c.table.flip_dora(*at)
        else:
            await c.table.show_text(dora_text(index, at))
        c.hand.dora_shown = index + 1
        c.save_step()

    # ---- the other tile set ----
    def _start_background_shuffle(self) -> None:
        if self._shuffle_task is None or self._shuffle_task.done():
            self._shuffle_task = self.c.background.spawn(self._background_shuffle(), "background shuffle")

    async def _background_shuffle(self) -> None:
        """Shuffle the collected set while the hand is played; faults wait for the operator."""
        async def shuffle_collected_set():
            status = await self.c.table.get_status()
            if "collected" in status["sets"] and "stacked" not in status["sets"]:
                await self.c.table.shuffle()
        await self.c.work.run(shuffle_collected_set)

    def cancel_background_shuffle(self) -> None:
        """It may wait for a resume or retry no longer due (the game was abandoned); the next
        hand's setup shuffles whatever set is left in the hopper."""
        if self._shuffle_task is not None:
            self._shuffle_task.cancel()
