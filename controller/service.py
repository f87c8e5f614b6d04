"""The running controller: table link, game, SQLite store and control API on one loop.

`Service` is the control API's handler: it maps each op to the controller, whose
refusals (`Refusal`, answered as error replies) change nothing. It also owns the game
task, so a game started over the API, by a seat's start button, or resumed from the
store after a restart runs the same way.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import players as P
from controller import rules as R
from firmware_protocol.codes import Code

from controller.errors import Refusal
from controller.controller import Controller
from controller.faults import remedy
from controller.journal import game_journal
from controller.store import StoreError
from controller.maintenance import Maintenance

log = logging.getLogger("mjtable.service")


class Service:
    def __init__(self, controller: Controller, *, starting_dealer: int | str = 0, rulesets: Path | None = None) -> None:
        self.controller = controller
        self.starting_dealer = starting_dealer
        self.rulesets = rulesets  # the folder `start` may name rule sets of (besides the presets)
        self._game: asyncio.Task | None = None
        self.maintenance = Maintenance(controller)
        controller.subscribe(self._on_event)

    # ---- lifecycle ----
    async def start(self) -> None:
        """Connect to the table; continue a game the store says was interrupted."""
        await self.controller.start()
        if self.controller.state is not None:  # finished too: killed before its end was recorded
            self._run_game()

    def _run_game(self) -> None:
        self._game = asyncio.ensure_future(self._play())

    async def _play(self) -> None:
        try:
            standings = await self.controller.play()
            log.info("game over: final scores %s", list(standings.final_scores))
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
        return self._game

    def _on_event(self, event: dict) -> None:
        if event["event"] == "button" and event["name"] == "start" and self.controller.sm.may_start_game():
            self.controller.background.spawn(self._start_quietly(), "start button")

    async def _start_quietly(self) -> None:
        try:
            await self.handle("start", {})
        except Refusal as exc:
            log.warning("start button: %s", exc)

    # ---- the control API ----
    def subscribe(self, listener: Callable[[dict], None]) -> Callable[[], None]:
        return self.controller.subscribe(listener)

    async def handle(self, op: str, args: dict) -> dict[str, Any]:
        handler = getattr(self, f"_op_{op}", None)
        if handler is None:
            raise Refusal("unknown_op", f"unknown op {op!r}")
        return await handler(**args) or {}

    async def _op_status(self) -> dict:
        return {**self.controller.snapshot(), "sticks": self.controller.sticks.status()}

    async def _op_start(self, ruleset: str | None = None, dealer: int | str | None = None,
                        players: list | None = None, seating: str = "as-given") -> dict:
        c = self.controller
        c.check_start()
        self.maintenance.refuse_game()
        if ruleset is None:
            rules = c.default_rules  # the config's, even after a game that named another
        else:
            rules = (c.rules, c.ruleset_name) if ruleset == c.ruleset_name else self._named_ruleset(ruleset)
        # checked before the rule set changes: a refused start changes nothing
        seated = P.check_players(players, rules[0].seats) if players is not None else []
        if seating == "draw" and not seated:
            raise Refusal("bad_request", "seating draw needs the players: name them with players")
        if ruleset is None or ruleset != c.ruleset_name:
            c.use_rules(*rules)
        chosen = self.starting_dealer if dealer is None else dealer
        if chosen != "draw" and chosen not in c.rules.seats:
            raise Refusal("bad_request", f"dealer must be one of {list(c.rules.seats)} or 'draw'")
        await c.new_game(chosen, seated, seating)
        self._run_game()
        return c.snapshot()

    def _named_ruleset(self, name: str) -> tuple[R.RuleSet, str]:
        try:
            ref = R.find_ruleset(name, self.rulesets)
        except R.ConfigError as exc:
            raise Refusal("bad_request", exc.issues[0].message) from None
        try:
            return R.load_ruleset(ref), ref  # on the loop, but bounded: at most 64 KB
        except R.ConfigError as exc:  # where, not what: the reply never quotes a file
            raise Refusal("bad_request", f"the rule set {name!r} is not valid: {exc.places()}; "
                           f"see `mjtable check-config {ref}`") from None

    async def _op_result(self, hand: int, result: dict) -> dict:
        return await self.controller.enter_result(hand, result)

    async def _op_riichi(self, seat: int) -> dict:
        await self.controller.declare_riichi(seat)
        return {}

    async def _op_kan(self) -> dict:
        await self.controller.declare_kan()
        return {}

    async def _op_pause(self) -> dict:
        await self.controller.pause()
        return {}

    async def _op_resume(self) -> dict:
        await self.controller.resume()
        return {}

    async def _op_retry(self) -> dict:
        fault = self.controller.fault
        if fault is not None and fault.code == Code.GAME_STOPPED:
            raise Refusal("not_allowed", f"{fault.describe()}: nothing to retry; {remedy(fault.code)}")
        self.controller.retry()
        return {}

    async def _op_counters(self) -> dict:
        return await self.maintenance.counters()

    async def _op_record_service(self) -> dict:
        return await self.maintenance.reset_service_counter()

    async def _op_sensor_test(self, subsystem: str | None = None, seat: int | None = None) -> dict:
        return await self.maintenance.sensor_test(subsystem, seat)

    # ---- the web page's reads ----
    async def _op_journal(self, game: int | None = None) -> dict:
        if self.controller.db is None:
            raise Refusal("not_allowed", "this controller keeps no state database, so no journal")
        try:
            return await self.controller.db.read(lambda store: game_journal(store, game))
        except StoreError as exc:
            raise Refusal("not_allowed", str(exc)) from None

    async def _op_preview(self, hand: int, result: dict) -> dict:
        return self.controller.results.preview(hand, result)

    async def _op_abandon(self) -> dict:
        recorded = self.controller.abandon()  # refuses (changing nothing) when there is nothing to abandon now
        if self._game is not None and not self._game.done():
            self._game.cancel()
        await recorded  # ok once the store has it
        return {}
