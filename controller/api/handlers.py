"""The running controller: table link, game, SQLite store and control API on one loop.

`Service` is the control API's handler: it runs each op's handler from the op table
(controller/api/ops.py) on the controller, whose refusals (`Refusal`, answered as error
replies) change nothing. It also owns the game task, so a game started over the API, by a
seat's start button, or resumed from the store after a restart runs the same way.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_protocol.codes import Code

from controller import rules as R
from controller.errors import Refusal
from controller.table.capabilities import cannot_play
from controller.game.controller import Controller
from controller.game.record import standings_text
from controller.maintenance.control import Maintenance
from controller.api.ops import BY_NAME

log = logging.getLogger("mjtable.service")


def _unplayable(caps, name: str, folder: Path | None) -> bool:
    try:
        return cannot_play(caps, R.load_ruleset(R.find_ruleset(name, folder))) is not None
    except R.ConfigError:
        return False

# A game over stores its final, then shows it: `start` waits this long for that, then says why not.
FINAL_SHOWN_WITHIN = 5.0  # well within a client's patience (`mjtable`: 10 s)


class Service:
    def __init__(self, controller: Controller, *, starting_dealer: int | str = 0, rulesets: Path | None = None,
                 table_number: int | None = None, maintenance: Maintenance | None = None) -> None:
        self.controller = controller
        self.starting_dealer = starting_dealer
        self.rulesets = rulesets  # the folder `start` may name rule sets of (besides the presets)
        self.table_number = table_number  # in a tournament's schedule (table.number); None: not in one
        self.page_url: str | None = None  # the web page's address once it is served (the `qr` op draws it)
        self.starting = asyncio.Lock()  # one start at a time: the next finds the first's game running
        self.maintenance = maintenance or Maintenance(controller.table, controller.sm, controller.reminders)
        controller.subscribe(self._on_event)

    # ---- lifecycle ----
    async def start(self) -> None:
        """Connect to the table; continue a game the store says was interrupted."""
        await self.controller.sessions.load()
        await self.controller.start()
        if self.controller.state is not None:  # finished too: killed before its end was recorded
            self.run_game()

    def run_game(self) -> None:
        self.controller.game.play(self._play())

    async def _play(self) -> None:
        try:
            standings = await self.controller.play()
            log.info("game over: final scores %s; %s", list(standings.final_scores),
                     standings_text(standings.ranks, self.controller.players))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # Logged here, once, with the traceback; then a fault the operator sees to.
            log.exception("the game stopped on an internal error; its hands are kept in the store")
            self.controller.stop_on_error(exc)
            await self._show_stop()

    async def _show_stop(self) -> None:
        try:
            await self.controller.table.show_error(Code.GAME_STOPPED)
        except Exception as exc:  # the displays are a courtesy here: status and the log say it
            log.warning("could not show E%d on the displays: %s", Code.GAME_STOPPED, exc)

    @property
    def game_task(self) -> asyncio.Task | None:
        return self.controller.game.task

    async def last_game_ended(self) -> None:
        """At game over the last game's task is still storing and showing its final: the
        next game begins once it is done, or is refused, saying why, if that takes too long."""
        if not await self.controller.game.ended(FINAL_SHOWN_WITHIN):
            raise Refusal("not_allowed", f"the last game's final standings are still being stored and shown "
                                         f"(more than {FINAL_SHOWN_WITHIN:g} s so far); the table's status says "
                                         f"why; start again once it is done")

    def _on_event(self, event: dict) -> None:
        if event["event"] == "button" and event["name"] == "start" and self.controller.sm.may_start_game():
            self.controller.background.spawn(self._start_quietly(), "start button")

    async def _start_quietly(self) -> None:
        try:
            await self.handle("start", {})
        except Refusal as exc:
            log.warning("start button: %s", exc)

    def playable_rulesets(self, folder: Path | None) -> list[str]:
        """The rule sets `start` may name (the presets and ``folder``'s) that this table can
        play: a 136-tile table is offered neither MCR's 144 tiles nor sanma's 108. One that
        cannot be read is offered still: `start` says what is wrong with it."""
        caps = self.controller.table.capabilities
        names = sorted(set(R.preset_names()) | set(R.folder_rulesets(folder)))
        if caps is None:  # not connected yet: nothing to judge by
            return names
        return [name for name in names if not _unplayable(caps, name, folder)]

    # ---- the control API ----
    def subscribe(self, listener: Callable[[dict], None]) -> Callable[[], None]:
        return self.controller.subscribe(listener)

    async def handle(self, op: str, args: dict) -> dict[str, Any]:
        handler = BY_NAME[op].handler if op in BY_NAME else None
        if handler is None:
            raise Refusal("unknown_op", f"unknown op {op!r}")
        return await handler(self, **args) or {}
