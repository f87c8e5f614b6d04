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
from controller import schedule as S
from firmware_protocol.codes import Code

from controller.errors import Refusal
from controller.controller import Controller
from controller.faults import remedy
from controller.game_record import standings_text
from controller.journal import game_journal
from controller.store import StoreError
from controller.maintenance import Maintenance
from controller.store import StoreError
from controller.session_clock import check_time_limit

log = logging.getLogger("mjtable.service")

# A game over stores its final, then shows it: `start` waits this long for that, then says why not.
FINAL_SHOWN_WITHIN = 5.0  # well within a client's patience (`mjtable`: 10 s)


class Service:
    def __init__(self, controller: Controller, *, starting_dealer: int | str = 0, rulesets: Path | None = None,
                 table_number: int | None = None) -> None:
        self.controller = controller
        self.starting_dealer = starting_dealer
        self.rulesets = rulesets  # the folder `start` may name rule sets of (besides the presets)
        self.table_number = table_number  # in a tournament's schedule (table.number); None: not in one
        self._starting = asyncio.Lock()  # one start at a time: the next finds the first's game running
        self.maintenance = Maintenance(controller)
        controller.subscribe(self._on_event)

    # ---- lifecycle ----
    async def start(self) -> None:
        """Connect to the table; continue a game the store says was interrupted."""
        await self.controller.sessions.load()
        await self.controller.start()
        if self.controller.state is not None:  # finished too: killed before its end was recorded
            self._run_game()

    def _run_game(self) -> None:
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
                        players: list | None = None, seating: str | None = None, round: int | None = None,
                        time_limit: bool = False) -> dict:
        async with self._starting:
            return await self._start(ruleset, dealer, players, seating, round, time_limit)

    async def _start(self, ruleset, dealer, players, seating, round_, time_limit) -> dict:
        c = self.controller
        c.check_start()
        await self._last_game_ended()
        c.check_start()  # as the last game left the table
        self.maintenance.refuse_game()
        if ruleset is None:
            rules = c.default_rules  # the config's, even after a game that named another
        else:
            rules = (c.rules, c.ruleset_name) if ruleset == c.ruleset_name else self._named_ruleset(ruleset)
        # checked before the rule set changes: a refused start changes nothing
        place = None
        if round_ is not None:
            seated, dealer, seating, place = await self._round_seating(round_, rules[0], players, seating, dealer)
            time_limit = time_limit or rules[0].time_limit is not None  # a round runs on the rule set's clock
        else:
            seated = P.check_players(players, rules[0].seats) if players is not None else []
        seating = seating or "as-given"
        if seating == "draw" and not seated:
            raise Refusal("bad_request", "seating draw needs the players: name them with players")
        if time_limit:
            check_time_limit(*rules)
        if ruleset is None or ruleset != c.ruleset_name:
            c.use_rules(*rules)
        chosen = self.starting_dealer if dealer is None else dealer
        if chosen != "draw" and chosen not in c.rules.seats:
            raise Refusal("bad_request", f"dealer must be one of {list(c.rules.seats)} or 'draw'")
        await c.new_game(chosen, seated, seating, place, time_limit=time_limit)
        self._run_game()
        return c.snapshot()

    async def _last_game_ended(self) -> None:
        """At game over the last game's task is still storing and showing its final: the
        next game begins once it is done, or is refused, saying why, if that takes too long."""
        if not await self.controller.game.ended(FINAL_SHOWN_WITHIN):
            raise Refusal("not_allowed", f"the last game's final standings are still being stored and shown "
                                         f"(more than {FINAL_SHOWN_WITHIN:g} s so far); `mjtable status` shows "
                                         f"why, then start again")

    # ---- a tournament's schedule ----
    async def _round_seating(self, round_: int, rules: R.RuleSet, players, seating, dealer):
        """The players of this table in ``round_``, East first at the first seat (its
        starting dealer), as the schedule seats them: (players, dealer, seating, place)."""
        given = [name for name, value in (("players", players), ("seating", seating), ("dealer", dealer))
                 if value is not None]
        if given:
            raise Refusal("bad_request", f"a round takes its seats and its East from the schedule: "
                                         f"start it without {' and '.join(given)}")
        if self.table_number is None:
            raise Refusal("not_allowed", "this table has no number: set table.number in the table config "
                                         "to take its seats from the schedule")
        db = self._database()
        try:
            found = await db.call("schedule", round_, self.table_number)
            rounds = {} if found else await db.call("schedule_rounds")
        except StoreError as exc:
            raise Refusal("store_failed", f"{exc}; no game was started") from None
        if not found:
            raise Refusal("not_allowed", S.not_scheduled(rounds, round_, self.table_number))
        if sorted(found) != list(range(len(rules.seats))):
            raise Refusal("not_allowed", f"the schedule seats {len(found)} players at table {self.table_number} in "
                                         f"round {round_}; rule set {rules.name} seats {len(rules.seats)}")
        seated = [P.Player.from_dict(found[wind]) for wind in sorted(found)]
        return seated, rules.seats[0], "schedule", S.RoundTable(round_, self.table_number)

    def _database(self):
        if self.controller.db is None:
            raise Refusal("not_allowed", "this controller keeps no state database, so it has no schedule")
        return self.controller.db

    async def _op_schedule_import(self, players: list, tables: list) -> dict:
        """Replace the roster and the schedule as a whole; warns when this table is not in it."""
        try:
            schedule = S.from_request(players, tables)
        except S.ScheduleError as exc:
            raise Refusal("bad_request", "the schedule is refused:\n" + "\n".join(exc.problems)) from None
        roster = {number: p.to_dict() for number, p in schedule.roster.items()}
        try:
            await self._database().call("import_schedule", roster, schedule.rows())
        except StoreError as exc:
            raise Refusal("store_failed", f"{exc}; the schedule stored before is kept") from None
        return {"players": len(roster), "rounds": sorted({t.round for t in schedule.tables}),
                "table": self.table_number, "rounds_here": schedule.rounds_at(self.table_number) if self.table_number else [],
                "warnings": S.import_warnings(schedule, self.table_number)}

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

    # club sessions (docs/SESSIONS.md)
    async def _op_session_start(self, name: str = "", show_totals: bool = False) -> dict:
        return await self.controller.sessions.start(name, show_totals)

    async def _op_session_end(self) -> dict:
        return await self.controller.sessions.end()

    async def _op_session_show(self, session: int | None = None, on_table: bool = False) -> dict:
        return await self.controller.sessions.show(session, on_table)

    # a session on the clock (docs/API.md "Time limit")
    async def _op_signal(self, signal: str) -> dict:
        return {"time_limit": self.controller.signal(signal)}

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
        task = self.controller.game.task
        recorded = self.controller.abandon()  # refuses (changing nothing) when there is nothing to abandon now
        if task is not None:
            task.cancel()
        await recorded  # ok once the store has it
        return {}
