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

from firmware_protocol.codes import Code

from controller import rules as R
from controller.game.centre_text import break_text, dora_text
from controller.table.facade import Fault, Overdue, TableFault
from controller.game.game import InPlay
from controller.language import N_

# The centre's text while the table waits (the status says `waiting_for`: the key).
WAITING_TEXTS = {"shuffle": N_("waiting for shuffle"), "the start signal": N_("waiting for the start signal")}

log = logging.getLogger("mjtable.controller")


class Setup:
    """Handed what it uses: the table facade, the machine, what is in play, a publish
    function, a spawner, the settings (the operation deadlines), the work, the faults, the
    recovery, the displays, the record and the game's clock."""

    def __init__(self, table, sm, in_play: InPlay, publish, spawn, settings, work, faults, recovery, displays,
                 record, clock) -> None:
        self.table, self.sm, self.in_play, self.publish, self.spawn = table, sm, in_play, publish, spawn
        self.settings, self.work, self.faults, self.recovery = settings, work, faults, recovery
        self.displays, self.record, self.clock = displays, record, clock
        self._shuffle_task: asyncio.Task | None = None
        # The step of each machine state (``preparing`` has none: the hand's record is made).
        self.steps = {
            "collecting": lambda: self._run(self._collect),
            "waiting_shuffle": lambda: self._run(self._wait_for_stacked_set),
            "raising": lambda: self._run(self._raise),
            "awaiting_start": lambda: self._run(lambda: self.waiting("the start signal", self.clock.wait_for_start)),
            "rolling": self._roll_all,
            "separating": lambda: self._run(self._separate),
            "revealing_dora": lambda: self._run(lambda: self.reveal_dora(0)),
        }

    async def open_game(self) -> None:
        """The table's part of a new game: a stop that happened while idle (its watchdog
        while this host was stalled, its event lost with the link) is cleared first."""

        async def reconcile():
            await self.recovery.reconcile_stop(await self.table.get_status(), paused=self.sm.is_motion_paused())
            if self.faults.current is not None:  # stopped on a fault of its own: the operator sees to it
                raise TableFault(self.faults.current)
        await self.work.run(reconcile)
        await self.work.run(self.displays.show_opening)
        await self.displays.show_wind_marker()

    async def waiting(self, what: str, work) -> None:
        """Run ``work()`` (a coroutine function: nothing starts if the text cannot be shown)
        with "waiting for ..." shown and in status."""
        self.in_play.waiting_for = what
        self.publish("waiting", what=what)
        await self.table.show_text(self.table.words.say(WAITING_TEXTS[what]))
        try:
            await work()
        finally:
            self.in_play.waiting_for = None

    async def _run(self, step) -> None:
        await self.work.run(step, step=True)

    # ---- the steps ----
    async def _collect(self) -> None:
        status = await self.table.get_status()
        if "on_table" not in status["sets"]:
            return
        await self._empty_hopper(status)
        count = await self.table.collect_tiles()
        if count != self.in_play.rules.tiles:
            # A lost or extra tile would corrupt every later wall: stop before raising.
            await self.table.stop()
            raise TableFault(Fault(Code.TILE_COUNT, "centre", "hopper", self.in_play.rules.tiles, count))

    async def _wait_for_stacked_set(self) -> None:
        status = await self.table.get_status()
        if "stacked" in status["sets"] or "on_table" in status["sets"]:
            return
        await self._empty_hopper(status)

    async def _empty_hopper(self, status: dict) -> None:
        """Make sure no set waits in the hopper: let a running shuffle finish, and shuffle a
        set left collected (its shuffle died with a killed host or a watchdog stop)."""
        await self._await_shuffle(status)
        if "collected" in (await self.table.get_status())["sets"]:
            await self.waiting("shuffle", self.table.shuffle)

    async def _await_shuffle(self, status: dict) -> None:
        """Wait for the background shuffle, visibly, if it is still running."""
        task = self._shuffle_task
        if task is not None and not task.done():
            await self.waiting("shuffle", lambda: asyncio.shield(task))
        elif "shuffling" in status["sets"]:
            # Started before a reconnect or restart: its completion may be gone, so ask again.
            await self.waiting("shuffle", self._poll_until_stacked)

    async def _poll_until_stacked(self) -> None:
        loop = asyncio.get_running_loop()
        limit = self.settings.operation_limits()["shuffle"]
        deadline = loop.time() + limit
        while "shuffling" in (await self.table.get_status())["sets"]:
            if loop.time() > deadline:
                log.warning("the shuffle begun before the reconnect has run %.0f s; stopping the table", limit)
                await self.table.stop()
                raise Overdue(Code.BUILD_TIMEOUT, "shuffler", f"shuffle still running after {limit:.0f} s; stopped")
            await asyncio.sleep(2.0)

    async def _raise(self) -> None:
        status = await self.table.get_status()
        if status["walls_up"] and "on_table" in status["sets"]:
            return  # raised before a reconnect or restart
        await self.table.raise_walls()

    async def _roll_all(self) -> None:
        self.clock.dice_thrown()  # the hand begins (a time-limited session counts it from here)
        for _ in range(len(self.in_play.hand.throws), self.in_play.rules.dice.throws):
            await self._run(self._roll)

    async def _roll(self) -> None:
        values = await self.table.roll_dice(self.in_play.rules.dice.per_throw)
        self.in_play.hand.throws.append(values)
        self.record.save_step()
        if len(self.in_play.hand.throws) == 1 and self.in_play.rules.dice.throws > 1:
            breaker = R.breaker_seat(self.in_play.rules, self.in_play.state.dealer, sum(values))
            await self.table.show_text(self.table.words.say("seat {seat} throws", seat=breaker))

    async def _separate(self) -> None:
        if self.in_play.hand.separated:
            return
        setup = self.in_play.setup()
        if self.displays.separates(setup):
            # It may have finished while the link was down.
            if not (await self.table.get_status())["dead_wall_separated"]:
                await self.table.separate_dead_wall(*setup.break_after, len(setup.dead_wall))
        else:
            await self.table.show_text(break_text(setup.break_after, self.table.words))
        self.in_play.hand.separated = True
        self.record.save_step()

    async def reveal_dora(self, index: int) -> None:
        """Indicator `index`: the first at setup, one more at each kan."""
        if self.in_play.hand.dora_shown > index:
            return
        at = self.in_play.setup().dora_indicators[index]
        if self.table.capabilities.dora_flipper:
            if (await self.table.get_status())["dora_flipped"] <= index:  # not flipped while the link was down
                await self.table.flip_dora(*at)
        else:
            await self.table.show_text(dora_text(index, at, self.table.words))
        self.in_play.hand.dora_shown = index + 1
        self.record.save_step()

    # ---- the other tile set ----
    def start_background_shuffle(self) -> None:
        if self._shuffle_task is None or self._shuffle_task.done():
            self._shuffle_task = self.spawn(self._background_shuffle(), "background shuffle")

    async def _background_shuffle(self) -> None:
        """Shuffle the collected set while the hand is played; faults wait for the operator."""
        async def shuffle_collected_set():
            status = await self.table.get_status()
            if "collected" in status["sets"] and "stacked" not in status["sets"]:
                await self.table.shuffle()
        await self.work.run(shuffle_collected_set)

    def cancel_background_shuffle(self) -> None:
        """It may wait for a resume or retry no longer due (the game was abandoned); the next
        hand's setup shuffles whatever set is left in the hopper."""
        if self._shuffle_task is not None:
            self._shuffle_task.cancel()
