"""The controller: runs the table through whole games.

The game loop walks the hand cycle of the state machine (controller/game/machine.py); the
operator verbs are checked against it. The work is done in rooms, one job each:

- recovery.py: start-up (connect, self-test) and restoring a lost link or a reset table;
- setup.py: the hand's setup steps, in the machine's order, and the background shuffle;
- faults.py: the fault's one owner (`Faults`); every piece of table work through faults, pauses and watchdog stops;
- displays.py: scores, round, lamps, wind marker, the centre's text;
- game.py: the game itself (scores, hand, settled hands, standings, players, its task),
  one object per game, which alone changes it;
- game_record.py: the game in the store: resume, each hand settled, the final;
- results.py: hand results as entered; snapshot.py: the status reply;
- session_clock.py: a time-limited session's start and warning signals, its time left;
- table_news.py: what the table reports by itself (faults, a lost link, the buttons).
"""
from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from firmware_protocol.codes import Code

from controller import rules as R
from controller.background import Background
from controller.table.capabilities import cannot_play
from controller.club.sessions import ClubSessions
from controller.game.displays import Displays
from controller.errors import Refusal
from controller.language import words
from controller.game.faults import Faults, Refused, StoreFailed, TableWork, remedy
from controller.game.record import GameRecord
from controller.game.game import Game, InPlay, OfTheGame
from controller.game.machine import TableMachine
from controller.club.players import Player, as_list, seat_players
from controller.game.recovery import Recovery
from controller.maintenance.reminders import Reminders
from controller.game.results import Results
from controller.club.schedule import RoundTable
from controller.game.cycle import HandCycle
from controller.game.clock import GameClock, check_time_limit
from controller.game.settings import Settings
from controller.game.steps import Setup
from controller.game import status
from controller.maintenance.sticks import StickCheck
from controller.store.database import StoreError
from controller.store.writer import StoreThread
from controller.table.facade import Fault, LinkLost, McuReset, Overdue, Rejected, Table, TableError
from controller.game.news import TableNews

log = logging.getLogger("mjtable.controller")


class Controller:
    # The game's own (controller/game/game.py), read here: only the Game changes them.
    (state, hand, resume_at, game_id, settled, results_so_far, last_record, standings, players, seating,
     place) = (OfTheGame() for _ in range(11))

    def __init__(self, table_connector, rules: R.RuleSet, *, store=None, settings: Settings | None = None,
                 ruleset_name: str | None = None, seed: int | None = None) -> None:
        self.settings = settings or Settings()
        self.table = Table(table_connector, on_event=lambda event: self.news.on_event(event),
                           operation_limits=self.settings.operation_limits(),
                           paused=lambda: self.sm.is_motion_paused(), words=words(self.settings.language))
        self.in_play = InPlay(rules, ruleset_name or rules.name)
        self.store = store
        self.db = StoreThread(store) if store is not None else None  # every store call, off the loop
        self._rng = random.Random(seed)
        self._listeners: list[Callable[[dict], None]] = []
        self.background = Background()
        self.sm = TableMachine(has_dora=lambda: self.rules.has_dora, restoring=lambda: self.recovery.active,
                               awaits_start=lambda: self.clock.awaits_start(), moved=lambda: self.publish("state"))
        spawn, publish = self.background.spawn, self.publish
        # The rooms, each handed the parts it uses (never this Controller).
        self.recovery = Recovery(self.table, self.sm, self.in_play, publish, spawn, self.settings.backoff_max)
        self.faults = Faults(self.table, self.sm, publish)  # the one owner of the fault: others read `fault`
        self.work = TableWork(self.table, self.sm, publish, spawn, self.faults, self.settings.operation_limits)
        self.displays = Displays(self.table, self.in_play, self.settings, self.work)
        self.results = Results(self.in_play, self.sm, time_ends_it=lambda chombo: self.clock.ends_with(chombo))
        self.sticks = StickCheck(self.table, publish)  # protocol 1.1: the trays against the ledger
        self.reminders = Reminders(self.table, self.db, publish, spawn, self.settings.maintenance,
                                   self.settings.service_file)
        self.subscribe(self.reminders.on_event)
        # club nights: the open session, the running totals
        self.sessions = ClubSessions(self.db, self.table, self.sm, publish, self.subscribe)
        self.record = GameRecord(self.in_play, store, self.db, self.sm, publish, self.table, self.faults, self.work,
                                 self.results, self.displays, self.sticks, self.sessions)
        self.clock = GameClock(self.in_play, self.table, self.sm, publish, spawn, self.settings, self.work,
                                  self.displays, self.record)
        self.hand_setup = Setup(self.table, self.sm, self.in_play, publish, spawn, self.settings, self.work,
                                self.faults, self.recovery, self.displays, self.record, self.clock)
        self.cycle = HandCycle(self.in_play, self.sm, publish, self.work, self.hand_setup, self.displays,
                               self.results, self.record, self.clock, self.sticks)
        self.news = TableNews(self.sm, publish, spawn, self.faults, self.work, self.recovery,
                              pause=self.pause, riichi=self.declare_riichi)
        # The rooms' cycles, closed once every room exists.
        self.faults.recovery = self.work.recovery = self.recovery
        self.recovery.work, self.recovery.faults, self.recovery.displays = self.work, self.faults, self.displays
        self.displays.clock = self.record.clock = self.clock

    # What is in play (controller/game/game.py's InPlay), read and replaced here; rooms hold `in_play`.
    game = property(lambda self: self.in_play.game, lambda self, game: setattr(self.in_play, "game", game))
    rules = property(lambda self: self.in_play.rules, lambda self, rules: setattr(self.in_play, "rules", rules))
    ruleset_name = property(lambda self: self.in_play.ruleset_name,
                            lambda self, name: setattr(self.in_play, "ruleset_name", name))
    waiting_for = property(lambda self: self.in_play.waiting_for,
                           lambda self, what: setattr(self.in_play, "waiting_for", what))
    opening_text = property(lambda self: self.in_play.opening_text,
                            lambda self, text: setattr(self.in_play, "opening_text", text))
    default_rules = property(lambda self: self.in_play.default_rules)

    @property
    def fault(self) -> Fault | Refused | StoreFailed | None:
        """The fault the table is held on (controller/game/faults.py's `Faults` sets and clears it)."""
        return self.faults.current

    # ------------------------------------------------------------------ events out
    def subscribe(self, listener: Callable[[dict], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def publish(self, event: str, **data: Any) -> None:
        record = {"event": event, "state": self.sm.state, **data}
        for listener in list(self._listeners):
            listener(record)

    def trigger(self, name: str) -> None:
        self.sm.fire(name)

    async def advance(self, trigger: str) -> None:
        await self.work.advance(trigger)

    # ------------------------------------------------------------------ start-up
    async def start(self) -> None:
        """Connect, identify, self-test; resume an interrupted game if the store has one."""
        game = await self.record.stored_game()  # its rules before the self-test: it configures the table for them
        paused_in = await self.db.call("paused_in") if self.db is not None else None
        held = await self.recovery.start_up(paused=paused_in is not None)
        if game is not None:
            self.record.restore(game)
        if held:
            self._hold_after_restart(paused_in)

    def _hold_after_restart(self, paused_in: str | None) -> None:
        """A pause from before this start (stored, or found as a host's stop on the table)
        holds the table: nothing moves until the operator's `resume`."""
        self.trigger("pause")
        if paused_in is None:
            self._store_pause(self.sm.game)
        log.warning("the table was paused before this start (in %s): it stays still until `mjtable resume`",
                    paused_in or "a state this host did not store")

    def close(self) -> None:
        """Stop background work and hang up; the store keeps the game."""
        self.background.close()
        self.table.close()
        if self.db is not None:
            self.db.close()

    # ------------------------------------------------------------------ game
    def check_start(self) -> None:
        """Refuse a new game unless the machine may start one, saying why."""
        if self.fault is not None and self.fault.code == Code.GAME_STOPPED:  # at game over too: its end unshown
            raise Refusal("not_allowed", f"{self.fault.describe()}: {remedy(self.fault.code)}")
        if self.sm.may_start_game():
            return
        if self.state is not None and not self.state.finished:
            raise Refusal("not_allowed", f"a game is running (state {self.sm.state}); abandon it first")
        if self.sm.is_motion_paused():
            raise Refusal("not_allowed", "the table is paused; resume it first, then start")
        if self.sm.is_motion_fault():  # the last game's end not stored yet, or a bug stopped it
            raise Refusal("not_allowed", f"the table is stopped by its fault ({self.fault.describe()}): "
                                         f"{remedy(self.fault.code)}")
        raise Refusal("not_allowed", f"the controller is still connecting to the table (state {self.sm.state}); "
                                     "try again when it is ready")

    async def new_game(self, dealer: int | str = 0, players: Sequence[Player] = (), seating: str = "as-given",
                       place: RoundTable | None = None, time_limit: bool = False) -> None:
        """Begin a game, with its players (checked, in seat order) seated as given or drawn,
        or as a tournament round's schedule seats them (``place``), on the rule set's clock
        or not. Its table work (a drawn dealer's text, the players' seats, the wind marker)
        runs in `play`, so that whoever starts the game is answered without waiting on the
        table."""
        self.check_start()
        if time_limit:
            check_time_limit(self.rules, self.ruleset_name)
        self.opening_text = None
        if dealer == "draw":
            dealer = self._rng.choice(self.rules.seats)
            self.opening_text = self.table.words.say("East: seat {dealer}", dealer=dealer)
        elif place is not None:  # with each seat's player and wind: the wrong-seat check
            self.opening_text = place.text(self.table.words)
        seated = seat_players(players, self.rules.seats, seating, self._rng)
        state = R.new_game(self.rules, dealer=dealer)
        self.clock.begin(self.rules.time_limit if time_limit else None)
        game_id = None
        if self.db is not None:  # first: a game the store refused is not started at all
            clock = self.clock.stored()  # with the (empty) hand: a game on the clock is one from the start
            try:
                game_id = await self.db.call(
                    "new_game", self.ruleset_name, dataclasses.asdict(self.rules), state.to_dict(),
                    players={seat: p.to_dict() for seat, p in seated.items()}, seating=seating,
                    round=place.round if place else None, table=place.table if place else None,
                    **({"hand": clock} if clock else {}))
            except StoreError as exc:
                raise Refusal("store_failed", f"{exc}; no game was started") from None
        if seating == "draw":
            log.info("seats drawn: %s", ", ".join(f"seat {s} {p.name}" for s, p in seated.items()))
        self.game = Game(state=state, game_id=game_id, players=seated, seating=seating, place=place)
        self.results.stored = None
        self.trigger("start_game")
        clock = self.clock.status()
        self.publish("game_started", dealer=dealer, seating=seating, players=as_list(seated),
                     **({"round": place.round, "table": place.table} if place else {}),
                     **({"time_limit": clock} if clock else {}))

    async def play(self) -> R.Standings:
        """Run hands until the game is over (controller/game/cycle.py); the final standings."""
        return await self.cycle.play()

    def setup(self) -> R.HandSetup:
        return self.in_play.setup()

    def save_step(self) -> None:
        self.record.save_step()

    # ------------------------------------------------------------------ operator verbs
    def submit_result(self, seq: int, result: dict) -> dict:
        return self.results.submit(seq, result)

    async def enter_result(self, seq: int, result: dict) -> dict:
        return await self.results.enter(seq, result)

    async def declare_riichi(self, seat: int) -> None:
        if not self.sm.in_play():
            raise Refusal("not_allowed", "riichi is declared during play")
        if not self.rules.has_riichi:
            raise Refusal("not_allowed", f"{self.rules.name} has no riichi")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in self.rules.seats:
            raise Refusal("bad_request", f"seat must be one of {list(self.rules.seats)}")
        if seat in self.hand.riichi:
            raise Refusal("not_allowed", f"{self.in_play.who()(seat)} already declared riichi")
        try:
            R.check_riichi(self.rules, self.state.scores, (seat,), self.in_play.who())
        except R.ResultError as exc:
            raise Refusal("not_allowed", str(exc)) from None
        self.hand.riichi.append(seat)
        self.save_step()
        self.publish("riichi", seat=seat)
        await self.work.run(self.displays.show_bets)

    async def declare_kan(self) -> None:
        if not self.sm.in_play():
            raise Refusal("not_allowed", "a kan is declared during play")
        if not self.rules.has_dora:
            self.hand.kans += 1
            return
        most = len(self.setup().dora_indicators) - 1  # the first indicator, then one per kan
        if self.hand.kans >= most:
            raise Refusal("not_allowed", f"at most {most} kans a hand in {self.rules.name}")
        self.hand.kans += 1
        self.save_step()
        await self.work.run(lambda: self.hand_setup.reveal_dora(self.hand.kans))
        self.publish("kan", kans=self.hand.kans)

    async def pause(self) -> None:
        """Stop all motion, wherever the table is; `resume` carries on from there."""
        if not self.sm.may_pause():
            raise Refusal("not_allowed", self._why_no_pause())
        held = self.sm.game
        # The state first: work woken by the stop must find itself held, not faulted.
        self.trigger("pause")
        # Beside the stop, not awaited (a frozen disk must not hold the safety stop's answer):
        # a write that fails is logged and in status (`store_error`).
        self._store_pause(held)
        try:
            await self.table.stop()
        except (LinkLost, McuReset) as exc:
            # Still paused: a rebooted table is stopped, a silent one its watchdog stops, and
            # the reconnect stops it again.
            log.warning("paused, but the table did not confirm the stop (%s): the reconnect stops it again", exc)
        except Overdue as exc:  # a table that acknowledges but does not answer: its fault says so
            log.warning("paused, but the table did not confirm the stop: %s", exc)
        log.info("paused in %s: motion stopped; `mjtable resume` carries on", held)

    def _store_pause(self, paused_in: str | None) -> None:
        """The pause in the store (None: resumed), read at the next start: a restart keeps
        the table still."""
        if self.db is not None:
            self.db.submit("save_pause", paused_in)

    def _why_no_pause(self) -> str:
        if self.sm.is_motion_paused():
            return "cannot pause while paused: the table is stopped already; resume carries on"
        if self.sm.is_motion_fault():
            # The fault stopped all motion; only a retry (after seeing to it) moves anything.
            return (f"the table is stopped already by its fault ({self.fault.describe()}); nothing moves until "
                    f"it is retried: {remedy(self.fault.code)}")
        return (f"cannot pause while {self.sm.state}: the table cannot be reached; its watchdog stops all "
                f"motion once the controller is silent")

    async def resume(self) -> None:
        if not self.sm.is_motion_paused():
            raise Refusal("not_allowed", "the table is not paused")
        again = "resume again once the table answers (its status no longer says reconnecting)"
        if self.recovery.active:
            raise Refusal("not_allowed", f"the link to the table is being restored: it stays paused; {again}")
        try:
            await self.table.end_pause()
        except Rejected as exc:
            raise Refusal("not_allowed", f"the table refuses to resume ({exc}): "
                                         f"{remedy(exc.code, 'resume again')}") from None
        except TableError as exc:  # the link lost, the table reset, or no answer: the stop holds
            raise Refusal("not_allowed", f"the table did not confirm the resume ({exc}): it stays paused "
                                         f"(a reconnect stops it again); {again}") from None
        self.trigger("resume")
        self._store_pause(None)
        log.info("resumed in %s", self.sm.state)
        self.work.resumed.set()

    def signal(self, signal: str) -> dict[str, Any]:
        """The director's start or warning signal of a time-limited session."""
        return self.clock.give(signal)

    def retry(self) -> None:
        if self.sm.is_motion_paused():
            raise Refusal("not_allowed", "the table is paused, which is no fault; resume carries on"
                                         + (" (then retry for the fault)" if self.fault else ""))
        if self.fault is None and not self.sm.is_motion_fault():
            raise Refusal("not_allowed", f"there is no fault to retry (state {self.sm.state}); nothing to do")
        self.faults.operator.set()

    def use_rules(self, rules: R.RuleSet, name: str) -> None:
        if not self.sm.between_games():
            raise Refusal("not_allowed", "the rule set changes between games only")
        refusal = self.table.capabilities and cannot_play(self.table.capabilities, rules)
        if refusal:
            raise Refusal("not_allowed", refusal)
        self.rules, self.ruleset_name = rules, name

    def stop_on_error(self, exc: Exception) -> None:
        """The game task failed on a bug: a described fault (never a silent `settling`) that
        only `abandon` or a restart clears; the store keeps the game as it was."""
        fault = Refused(Code.GAME_STOPPED, f"the game stopped on an internal error ({type(exc).__name__}: {exc})")
        self.waiting_for = None
        self.results.fail_stored(Refusal("internal", f"{fault.text}; the result was not stored"))
        # Not from game_over (the game's end is stored already): the machine stays there.
        self.faults.hold(fault, move="game_stopped")

    def abandon(self) -> Awaitable[None]:
        """Give up the game in progress; its hands stay in the store as played. Await the
        returned object before saying so: it ends once the store has recorded it."""
        if self.state is None or not self.sm.may_abandon():
            raise Refusal("not_allowed", f"there is no game to abandon now (state {self.sm.state})")
        written = self.record.abandon()
        self.results.cancel()
        self.game = Game()  # no game: nothing of it shows (status, the next game)
        self.work.let_go()
        self.clock.begin(None)
        self.hand_setup.cancel_background_shuffle()
        if self.sm.is_motion_paused():
            self._store_pause(None)
        if self.sm.may_release():
            self.sm.release()  # the table stays stopped; the next game's opening resumes it
        self.trigger("abandon")
        return self.record.recorded(written)

    # ------------------------------------------------------------------ status
    def snapshot(self) -> dict[str, Any]:
        """The status reply, composed from each part's own."""
        return status.compose(self.sm, self.in_play, self.faults, self.table, self.clock, self.db, self.sessions,
                              self.reminders, self.settings.display_mode)
