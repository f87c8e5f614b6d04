"""The controller: runs the table through whole games.

One coroutine walks the hand cycle; the state machine (`machine.py`) says which step may
follow which. Each hardware step is re-entrant: before running it, the controller asks
the table where things are (`get_status`) and skips what is already done, so the same
code serves a clean run, a retry after a fault, a reconnect after a lost link, an MCU
reset and a restart after the host was killed.

Tile sets are pipelined: as soon as a set's walls are up, the other set is shuffled in
the background, so a hand change costs collect + raise + dice + separate.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from firmware_protocol.catalog import DISPLAY_MODES
from firmware_protocol.codes import Code

from controller import rules as R
from controller.errors import Refusal
from controller.capabilities import cannot_play
from controller.centre_text import break_text, dora_text, round_text, scores_text
from controller.machine import BACK_FROM_PAUSE, TableMachine
from controller.replay import disagreement
from controller.store import StoreError
from controller.store_thread import StoreThread
from controller.table import Fault, Interrupted, LinkLost, McuReset, Overdue, Rejected, Table, TableError, TableFault

log = logging.getLogger("mjtable.controller")

# Where the machine goes back to after a reconnect; setup steps re-enter their own step.
_RETURN_AFTER_RECONNECT = {"playing": "play", "paused": "pause", "fault": "fault",
                           "idle": "back_to_idle", "game_over": "end_game"}


@dataclass
class Hand:
    """The hand in progress: what has been done at the table so far."""

    seq: int
    label: str
    phase: str = "setup"       # setup -> raising -> raised -> playing
    throws: list[list[int]] = field(default_factory=list)
    separated: bool = False
    dora_shown: int = 0        # indicators flipped or shown so far
    kans: int = 0
    riichi: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # a copy: the store's thread writes it later

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Hand":
        return cls(**data)


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


# Seconds each long operation takes on a table, before the margin; a shuffle's is the build
# limit. A table's identity does not say: the table config's profile does (`durations_from`),
# else the host assumes these (docs/ARCHITECTURE.md "Deadlines").
NOMINAL_DURATIONS = {"collect_tiles": 6.0, "raise_walls": 6.0, "roll_dice": 2.0, "separate_dead_wall": 2.0,
                     "flip_dora": 1.0, "set_wind_marker": 1.0, "shuffle": 80.0}
_TIMING_OF = {"collect_tiles": "collect", "raise_walls": "raise_walls", "roll_dice": "dice",
              "separate_dead_wall": "separate", "flip_dora": "dora_flip", "set_wind_marker": "marker",
              "shuffle": "build_limit"}


def durations_from(timings) -> dict[str, float]:
    """The operations' durations from a table profile's `timings` (config/tables/*.yaml)."""
    return {operation: float(getattr(timings, name)) for operation, name in _TIMING_OF.items()}


@dataclass
class Settings:
    display_mode: str = "difference"
    backoff_max: float = 10.0
    operation_margin: float = 2.0  # an operation's deadline: its nominal duration times this
    durations: dict[str, float] = field(default_factory=lambda: dict(NOMINAL_DURATIONS))

    def operation_limits(self) -> dict[str, float]:
        return {name: seconds * self.operation_margin for name, seconds in self.durations.items()}


class Controller:
    def __init__(self, table_connector, rules: R.RuleSet, *, store=None, settings: Settings | None = None,
                 ruleset_name: str | None = None, seed: int | None = None) -> None:
        self.settings = settings or Settings()
        self.table = Table(table_connector, on_event=self._on_table_event,
                           operation_limits=self.settings.operation_limits())
        self.rules = rules
        self.ruleset_name = ruleset_name or rules.name
        self.default_rules = (rules, self.ruleset_name)  # the config's: for a new game that names none
        self.store = store
        self.db = StoreThread(store) if store is not None else None  # every store call, off the loop
        self.sm = TableMachine()
        self.state: R.GameState | None = None
        self.hand: Hand | None = None
        self.game_id: int | None = None
        # Hands settled in this game, chombo re-deals included (the rules do not count those
        # as played): the seq of the hand in play is settled + 1, so every deal has its own.
        self.settled = 0
        self._results: list[dict] = []  # the results of the settled hands, by seq - 1
        self.fault: Fault | Refused | StoreFailed | None = None
        self.waiting_for: str | None = None
        self.standings: R.Standings | None = None
        self.last_record: dict | None = None
        self._rng = random.Random(seed)
        self._listeners: list[Callable[[dict], None]] = []
        self._result: asyncio.Future | None = None
        # From taking a result until its hand is stored: resolved then, or failed with store_failed.
        self._stored: asyncio.Future | None = None
        self._operator: asyncio.Event = asyncio.Event()  # retry, a seat's OK button
        self._resumed: asyncio.Event = asyncio.Event()
        self._paused_from: str | None = None  # the state a pause holds, until resume
        self._opening_text: str | None = None  # shown as a new game opens (a drawn dealer)
        self._shuffle_task: asyncio.Task | None = None
        self._recovery: asyncio.Task | None = None
        self._watchdog_resume: asyncio.Future | None = None
        self._error_shown = False  # an error code is on the displays until the step that faulted runs

    # ------------------------------------------------------------------ events out
    def subscribe(self, listener: Callable[[dict], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _publish(self, event: str, **data: Any) -> None:
        record = {"event": event, "state": self.sm.state, **data}
        for listener in list(self._listeners):
            listener(record)

    def _trigger(self, name: str) -> None:
        getattr(self.sm, name)()
        self._publish("state")

    # ------------------------------------------------------------------ start-up
    async def start(self) -> None:
        """Connect, identify, self-test; resume an interrupted game if the store has one."""
        game = await self._stored_game()  # its rules before the self-test: it configures the table for them
        self._trigger("power_on")
        await self._connect_with_backoff()
        self._trigger("identified")
        while True:
            try:
                await self._self_test()
                break
            except (LinkLost, McuReset, Overdue) as exc:  # a noisy line: connect again and test again
                log.warning("self-test interrupted (%s); connecting again", exc)
                await self._connect_with_backoff()
        self._trigger("ready")
        if game is not None:
            self._restore(game)

    async def _connect_with_backoff(self) -> None:
        delay = 0.25
        while True:
            try:
                await self.table.connect()
                return
            except (OSError, TableError) as exc:
                log.warning("table not reachable (%s); retrying in %.1f s", exc, delay)
                self._publish("link", status="retrying", error=str(exc), retry_in=delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.settings.backoff_max)

    async def _self_test(self) -> None:
        ident, caps = self.table.identity, self.table.capabilities
        refusal = cannot_play(caps, self.rules)
        if refusal:
            raise Refusal("not_allowed", refusal)
        try:
            await self.table.configure(self.rules.players, self.rules.tiles, list(self.rules.stacks_per_side))
        except Rejected as exc:
            raise Refusal("not_allowed", f"this table ({ident['model']}, {ident['tiles']} tiles) cannot play "
                                              f"{self.ruleset_name}: {exc}") from None
        status = await self.table.get_status()
        absent = caps.absent()
        log.info("table %s ready: sets %s%s", ident["model"], status["sets"],
                 f"; without {', '.join(absent)} (shown another way)" if absent else "")
        await self._reconcile_stop(status)

    async def _reconcile_stop(self, status: dict, paused: bool = False) -> None:
        """A table found stopped after a (re)connect: its fault event may never have reached us."""
        if not status["stopped"]:
            if paused:
                await self.table.stop()  # the pause's stop was lost with the link
            return
        if status["fault"] in (0, Code.WATCHDOG):
            # Stopped because this host was gone (watchdog) or paused by a host since killed;
            # while paused, `resume` restarts it.
            if not paused:
                await self.table.resume()
            return
        self.fault = Fault(status["fault"], "none", "none", 0, 0)
        self._publish("fault", code=int(status["fault"]), message=self.fault.describe())

    def close(self) -> None:
        """Stop background work and hang up; the store keeps the game."""
        for task in (self._shuffle_task, self._recovery):
            if task is not None and not task.done():
                task.cancel()
        self.table.close()
        if self.db is not None:
            self.db.close()

    # ------------------------------------------------------------------ game
    def _continue_rules(self, game) -> None:
        """An interrupted game goes on with the rule set it was started with, whatever the
        config names now (the config's rule set is for the next new game)."""
        if game.ruleset != self.ruleset_name:
            try:
                self.rules, self.ruleset_name = R.load_ruleset(game.ruleset), game.ruleset
            except (R.ConfigError, OSError) as exc:
                raise Refusal("not_allowed", f"game {game.id} was started with rule set {game.ruleset!r}, "
                                                  f"which cannot be loaded now: {exc}; put it back to carry on") from None
        if _comparable(dataclasses.asdict(self.rules)) != _comparable(game.rules):
            log.warning("rule set %s has changed since game %d began; the game goes on with it as it is now",
                        self.ruleset_name, game.id)
        log.info("continuing game %d with rule set %s (the config's %s applies to the next new game)",
                 game.id, self.ruleset_name, self.default_rules[1])

    async def _stored_game(self):
        """The interrupted game, with its rules, once it is checked against its hands."""
        if self.db is None:
            return None
        game = await self.db.call("active_game")
        if game is None:
            return None
        self._continue_rules(game)
        hands = await self.db.call("hands", game.id)
        if _comparable(dataclasses.asdict(self.rules)) != _comparable(game.rules):
            log.warning("game %d cannot be checked against its hands: its rule set has changed", game.id)
        else:
            problem = disagreement(self.rules, game.state, hands)
            if problem:
                raise StoreError(f"the state database {self.store.path} is damaged: game {game.id} {problem}. "
                                 f"Refusing to resume it: keep the file for inspection, restore a backup or "
                                 f"move it aside to start a new one")
        return game, hands

    def _restore(self, stored) -> None:
        game, hands = stored
        self.game_id = game.id
        self.state = R.GameState.from_dict(game.state)
        self.settled = len(hands)
        self._results = [h["result"] for h in hands]
        self.hand = Hand.from_dict(game.hand) if game.hand else None
        if self.state.finished:
            # Killed between the last hand and the game's end: play() only records the end,
            # and the machine has no way from a game state to game_over but settling a hand.
            return
        self._trigger("start_game")
        self._publish("resumed", hand=R.hand_label(self.state))

    def check_start(self) -> None:
        """Refuse a new game unless the machine may start one, saying why."""
        if self.sm.may_start_game():
            return
        if self.state is not None and not self.state.finished:
            raise Refusal("not_allowed", f"a game is running (state {self.sm.state}); abandon it first")
        if self.sm.state == "paused":
            raise Refusal("not_allowed", "the table is paused; `resume` first, then start")
        raise Refusal("not_allowed", f"the controller is still connecting to the table (state {self.sm.state}); "
                                          "try again when it is ready")

    async def new_game(self, dealer: int | str = 0) -> None:
        """Begin a game. Its table work (a drawn dealer's text, the wind marker) runs in
        `play`, so that whoever starts the game is answered without waiting on the table."""
        self.check_start()
        self._opening_text = None
        if dealer == "draw":
            dealer = self._rng.choice(self.rules.seats)
            self._opening_text = f"East: seat {dealer}"
        state = R.new_game(self.rules, dealer=dealer)
        if self.db is not None:  # first: a game the store refused is not started at all
            try:
                self.game_id = await self.db.call("new_game", self.ruleset_name, dataclasses.asdict(self.rules),
                                                   state.to_dict())
            except StoreError as exc:
                raise Refusal("store_failed", f"{exc}; no game was started") from None
        self.state = state
        self.settled = 0
        self._results, self._stored = [], None
        self.hand = None
        self.standings = None
        self._trigger("start_game")
        self._publish("game_started", dealer=dealer)

    async def play(self) -> R.Standings:
        """Run hands until the game is over; return the final standings."""
        if self.hand is None and self.settled == 0:
            await self._open_game()
        while not self.state.finished:
            await self._play_hand()
        return await self._finish()

    async def _open_game(self) -> None:
        """The table's part of a new game: a stop that happened while idle (its watchdog
        while this host was stalled, its event lost with the link) is cleared first."""
        async def reconcile():
            await self._reconcile_stop(await self.table.get_status(), paused=self._paused_from is not None)
            if self.fault is not None:  # stopped on a fault of its own: the operator sees to it
                raise TableFault(self.fault)
        await self._step_free(reconcile)
        if self._opening_text:
            await self._step_free(lambda: self.table.show_text(self._opening_text))
        await self._show_wind_marker()

    async def _play_hand(self) -> None:
        if self.hand is None or self.hand.seq != self.settled + 1:
            self.hand = Hand(seq=self.settled + 1, label=R.hand_label(self.state))
            self._save_step("preparing")
        if self.hand.phase in ("setup", "raising"):
            await self._setup_walls()
        elif self.hand.phase == "raised":
            await self._finish_setup()
        await self._step_free(self._show_hand)
        self.hand.phase = "playing"
        self._save_step("playing")
        await self._advance("play")
        self._publish("hand_started", hand=self.hand.label, seq=self.hand.seq)
        result = await self._wait_result()
        await self._settle(result)

    # ------------------------------------------------------------------ setup
    async def _setup_walls(self) -> None:
        await self._step("collect", self._collect)
        await self._step("wait_shuffle", self._wait_for_stacked_set)
        self.hand.phase = "raising"
        self._save_step("raising")
        await self._step("raise_walls", self._raise)
        self.hand.phase = "raised"
        self._save_step("raised")
        await self._finish_setup()

    async def _finish_setup(self) -> None:
        self._start_background_shuffle()
        for _ in range(len(self.hand.throws), self.rules.dice.throws):
            await self._step("roll", self._roll)
        await self._step("separate", self._separate)
        if self.rules.has_dora:
            await self._step("reveal_dora", lambda: self._reveal_dora(0))

    async def _collect(self) -> None:
        status = await self.table.get_status()
        # Once raising has begun, a set on the table is this hand's new walls.
        if "on_table" not in status["sets"] or self.hand.phase != "setup":
            return
        await self._empty_hopper(status)
        count = await self.table.collect_tiles()
        if count != self.rules.tiles:
            # A lost or extra tile would corrupt every later wall: stop before raising.
            await self.table.stop()
            raise TableFault(Fault(Code.TILE_COUNT, "centre", "hopper", self.rules.tiles, count))

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
            await self._waiting("shuffle", self.table.shuffle)

    async def _await_shuffle(self, status: dict) -> None:
        """Wait for the background shuffle, visibly, if it is still running."""
        task = self._shuffle_task
        if task is not None and not task.done():
            await self._waiting("shuffle", lambda: asyncio.shield(task))
        elif "shuffling" in status["sets"]:
            # Started before a reconnect or restart: its completion may be gone, so ask again.
            await self._waiting("shuffle", self._poll_until_stacked)

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

    async def _waiting(self, what: str, work) -> None:
        """Run ``work()`` (a coroutine function: nothing starts if the text cannot be shown)
        with "waiting for ..." shown and in status."""
        self.waiting_for = what
        self._publish("waiting", what=what)
        await self.table.show_text(f"waiting for {what}")
        try:
            await work()
        finally:
            self.waiting_for = None

    async def _raise(self) -> None:
        status = await self.table.get_status()
        if status["walls_up"] and "on_table" in status["sets"]:
            return  # raised before a reconnect or restart
        await self.table.raise_walls()

    async def _roll(self) -> None:
        values = await self.table.roll_dice(self.rules.dice.per_throw)
        self.hand.throws.append(values)
        self._save_step("rolling")
        if len(self.hand.throws) == 1 and self.rules.dice.throws > 1:
            breaker = R.breaker_seat(self.rules, self.state.dealer, sum(values))
            await self.table.show_text(f"seat {breaker} throws")

    def setup(self) -> R.HandSetup:
        return R.setup_hand(self.rules, self.state.dealer, self.hand.throws)

    async def _separate(self) -> None:
        if self.hand.separated:
            return
        setup = self.setup()
        if self._separates(setup):
            # It may have finished while the link was down.
            if not (await self.table.get_status())["dead_wall_separated"]:
                await self.table.separate_dead_wall(*setup.break_after, len(setup.dead_wall))
        else:
            await self.table.show_text(break_text(setup.break_after))
        self.hand.separated = True
        self._save_step("separated")

    def _separates(self, setup: R.HandSetup) -> bool:
        """Whether the table's separator sets the dead wall apart (else the players do)."""
        return self.table.capabilities.dead_wall_separator and bool(setup.dead_wall)

    async def _reveal_dora(self, index: int) -> None:
        if self.hand.dora_shown > index:
            return
        at = self.setup().dora_indicators[index]
        if self.table.capabilities.dora_flipper:
            if (await self.table.get_status())["dora_flipped"] <= index:  # not flipped while the link was down
                await self.table.flip_dora(*at)
        else:
            await self.table.show_text(dora_text(index, at))
        self.hand.dora_shown = index + 1
        self._save_step("dora")

    def _start_background_shuffle(self) -> None:
        if self._shuffle_task is None or self._shuffle_task.done():
            self._shuffle_task = asyncio.ensure_future(self._background_shuffle())

    async def _background_shuffle(self) -> None:
        """Shuffle the collected set while the hand is played; faults wait for the operator."""
        async def shuffle_collected_set():
            status = await self.table.get_status()
            if "collected" in status["sets"] and "stacked" not in status["sets"]:
                await self.table.shuffle()
        await self._step_free(shuffle_collected_set)

    # ------------------------------------------------------------------ steps & faults
    async def _step(self, trigger: str, action) -> None:
        """Run one hardware step until it succeeds, through faults, pauses and link loss."""
        busy_since = None
        while True:
            await self._advance(trigger)
            try:
                await action()
                break
            except Rejected as exc:
                if exc.code != Code.BUSY:
                    if not await self._resumed_after_watchdog(exc):  # refused as stopped: by the watchdog?
                        await self._fault_step(exc)
                    continue
                # Still running from before a lost link: its result shows in the status soon.
                busy_since = busy_since or asyncio.get_running_loop().time()
                overdue = self._busy_too_long(busy_since, exc)
                if overdue:
                    busy_since = None
                    await self._fault_step(overdue)
                else:
                    await asyncio.sleep(1.0)
            except (TableFault, Interrupted) as exc:
                if not await self._resumed_after_watchdog(exc):
                    await self._fault_step(exc)
            except (LinkLost, McuReset):
                await self._recover_link()
        await self._clear_error()

    async def _resumed_after_watchdog(self, exc: Exception) -> bool:
        """A watchdog stop means the table did not hear this host (heartbeats lost on a
        noisy line): nothing for the operator to clear, so resume and re-run the step."""
        if self.sm.state == "paused" or not await self._watchdog_stopped(exc):
            return False
        if self._watchdog_resume is None or self._watchdog_resume.done():
            log.warning("the table stopped: its watchdog missed this host's heartbeats; resuming")
            self._watchdog_resume = asyncio.ensure_future(self.table.resume())
        try:
            await asyncio.shield(self._watchdog_resume)
        except TableError as again:  # the re-run step meets it again (link lost: reconnect)
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

    def _busy_too_long(self, since: float, exc: Rejected) -> Overdue | None:
        """A table busy for longer than its longest operation's limit is stuck."""
        busy = asyncio.get_running_loop().time() - since
        if busy <= max(self.settings.operation_limits().values()):
            return None
        return Overdue(Code.OPERATION_TIMEOUT, "none", f"still busy after {busy:.0f} s ({exc.detail})")

    async def _fault_step(self, exc: Exception) -> None:
        if self._stopped_by_pause(exc):
            return  # no fault: the step runs again once resumed (`_advance` holds it till then)
        await self._advance("fault")
        await self._await_operator(exc)
        if self._recovery is not None and not self._recovery.done():
            await asyncio.shield(self._recovery)  # lost meanwhile (background work noticed): back to "fault"
        self._trigger("retry")

    def _stopped_by_pause(self, exc: Exception) -> bool:
        """An operation the pause's `stop` aborted, or a motion command sent after it."""
        refused_while_paused = isinstance(exc, Rejected) and exc.code == Code.STOPPED and self._paused_from is not None
        return isinstance(exc, Interrupted) or refused_while_paused

    async def _advance(self, trigger: str) -> None:
        """Fire a trigger of the game's own course; while paused, it waits for `resume`."""
        await self._hold_while_paused()
        self._trigger(trigger)

    async def _hold_while_paused(self) -> None:
        if self.sm.state == "paused":
            self._publish("waiting", what="resume")
            await self._until_resumed()

    async def _await_operator(self, exc: TableError) -> None:
        """Show the error, keep everything, wait for retry; resume the table."""
        self._note_fault(exc)
        self._operator.clear()  # once: a retry pressed while the link recovers still counts
        while True:
            try:
                await self.table.show_error(int(self.fault.code))
                self._error_shown = True
                if self.fault.code != Code.WATCHDOG:  # this host's own silence: no one need see to it
                    await self._operator.wait()
                await self._hold_while_paused()  # a retry just before a pause
                await self.table.resume()
                break
            except (Rejected, TableFault) as again:  # e.g. resume refused while the lid is still open
                self._note_fault(again)
                self._operator.clear()
            except (LinkLost, McuReset):
                await self._recover_link()
        self.fault = None
        self._publish("recovered")

    def _note_fault(self, exc: TableError) -> None:
        """The fault the operator sees to: in status, in the log, to subscribers."""
        code = getattr(exc, "code", Code.STOPPED)
        if isinstance(exc, TableFault):
            self.fault = exc.fault
        elif not (code == Code.STOPPED and self.fault is not None):
            # A refused command or a stop has no fault event: described from the refusal. A
            # command refused because the table stopped on a fault keeps that fault: the cause.
            self.fault = Refused(code, str(exc))
        self._publish("fault", code=int(self.fault.code), message=self.fault.describe())
        log.error("%s; %s", self.fault.describe(), remedy(self.fault.code))

    async def _clear_error(self) -> None:
        """The work that faulted has run: take its error off the displays (unless another
        fault, e.g. of the background shuffle, still waits for the operator)."""
        if not self._error_shown or self.fault is not None:
            return
        try:
            await self.table.show_error(0)
            self._error_shown = False
        except TableError as exc:  # the next step that runs tries again
            log.warning("could not clear the error on the displays: %s", exc)

    async def _until_resumed(self) -> None:
        """Wait for the operator's `resume` (which restarts the table)."""
        while self.sm.state == "paused":
            self._resumed.clear()
            await self._resumed.wait()

    async def _recover_link(self) -> None:
        """One recovery at a time, shared by every coroutine that noticed the loss."""
        if self._recovery is None or self._recovery.done():
            self._recovery = asyncio.ensure_future(self._reconnect())
        await asyncio.shield(self._recovery)

    async def _reconnect(self) -> None:
        before = self.sm.state
        if before != "reconnecting":
            self._trigger("link_lost")
        while True:
            self.table.close()
            await self._connect_with_backoff()
            try:
                await self.table.configure(self.rules.players, self.rules.tiles, list(self.rules.stacks_per_side))
                await self._restore_displays(paused=before == "paused")
                break
            except Rejected as exc:
                # e.g. the table is still busy with an operation from before the loss
                log.warning("restoring the table after reconnect: %s; trying again", exc)
                await asyncio.sleep(1.0)
            except TableError as exc:
                log.warning("link lost again while restoring the table: %s", exc)
        self._trigger("reconnected")
        if before in _RETURN_AFTER_RECONNECT:
            self._trigger(_RETURN_AFTER_RECONNECT[before])
        self._publish("reconnected")

    async def _restore_displays(self, paused: bool = False) -> None:
        if self.state is None:
            return
        await self._show_scores()
        await self._show_round()
        await self.table.set_dealer_lamp(self.state.dealer)
        status = await self.table.get_status()
        await self._reconcile_stop(status, paused)
        if (status["wind"], status["wind_seat"]) != (self.state.round_wind, self.state.starting_dealer):
            await self._show_wind_marker()
        if self.fault:
            await self.table.show_error(int(self.fault.code))

    def _on_table_event(self, kind: str, value: Any) -> None:
        if kind == "fault" and value.code == Code.WATCHDOG:
            # This host was silent, not the mechanism at fault: whatever waits on the table
            # resumes it (_resumed_after_watchdog); with nothing waiting, now.
            self._publish("fault", code=int(value.code), message=value.describe())
            if self._paused_from is not None:
                log.warning("the table's watchdog stopped it while paused (this host was silent too long); "
                            "`resume` restarts it")
            elif self.sm.state in ("playing", "idle", "game_over"):
                asyncio.ensure_future(self._resumed_after_watchdog(TableFault(value)))
        elif kind == "fault":
            self.fault = value
            self._publish("fault", code=int(value.code), message=value.describe())
        elif kind in ("link_lost", "mcu_reset"):
            self._publish(kind)
            if self.sm.state in ("playing", "paused", "idle", "game_over"):
                # No step is waiting on the table: recover in the background.
                asyncio.ensure_future(self._recover_link())
        elif kind == "button":
            self._on_button(*value)

    def _on_button(self, seat: int, name: str) -> None:
        self._publish("button", seat=seat, name=name)
        if name == "pause":
            asyncio.ensure_future(self._button(name, self.pause))
        elif name == "ok" and self.fault is not None:
            self._operator.set()
        elif name == "riichi" and self.sm.state == "playing":
            asyncio.ensure_future(self._button(name, lambda: self.declare_riichi(seat)))

    async def _button(self, name: str, action) -> None:
        try:
            await action()
        except Refusal as exc:
            log.warning("%s button: %s", name, exc)

    # ------------------------------------------------------------------ play
    async def _show_hand(self) -> None:
        await self._show_scores()
        await self.table.set_dealer_lamp(self.state.dealer)
        await self._show_round()  # last: its text is the one the centre keeps during play

    async def _show_bets(self) -> None:
        """A declared bet leaves its declarer's score and lies on the table at once."""
        await self._show_scores()
        await self._show_round()

    async def _show_round(self) -> None:
        s = self.state
        await self.table.show_round(s.round_wind, s.hand_in_round, s.honba, self._displayed().riichi_sticks)
        text = self._play_text()
        if text:
            await self.table.show_text(text)

    def _play_text(self) -> str | None:
        """The centre's text while a hand is played, for the devices this table lacks: the
        dora position, else the break, else the round (without a marker or seat displays)."""
        caps, hand = self.table.capabilities, self.hand
        if hand is not None and hand.seq > self.settled and hand.separated:  # the walls of this hand are set
            setup, last = self.setup(), hand.dora_shown - 1
            if hand.dora_shown and not caps.dora_flipper:
                return dora_text(last, setup.dora_indicators[last])
            if not self._separates(setup):
                return break_text(setup.break_after)
        if not (caps.has_wind_marker and caps.seat_displays):
            return round_text(self._displayed())
        return None

    async def _show_scores(self, scores=None) -> None:
        scores = scores or self._displayed().scores
        if not self.table.capabilities.seat_displays:
            await self.table.show_text(scores_text(scores))
            return
        mode = DISPLAY_MODES.index(self.settings.display_mode)
        shown = [s or 0 for s in scores]  # an empty side (sanma) shows 0
        await self.table.show_scores(shown, mode, self.state.dealer)

    def _displayed(self) -> R.GameState:
        """The game as the table shows it: the bets declared in the hand in play are on the
        table already (the settlement takes them; they are not taken twice)."""
        s, hand = self.state, self.hand
        if hand is None or hand.seq <= self.settled or not hand.riichi:
            return s
        scores = tuple(v - self.rules.deposit if seat in hand.riichi else v for seat, v in enumerate(s.scores))
        return dataclasses.replace(s, scores=scores, riichi_sticks=s.riichi_sticks + len(hand.riichi))

    async def _show_wind_marker(self) -> None:
        if not self.table.capabilities.has_wind_marker:
            return  # the round's text at the next hand says the wind
        async def mark():
            await self.table.set_wind_marker(self.state.round_wind, self.state.starting_dealer)
        await self._step_free(mark)

    async def _step_free(self, action) -> None:
        """Table work outside the setup steps (displays, marker, background shuffle): same
        fault handling, no state change; work stopped by a pause carries on at resume."""
        while True:
            try:
                outcome = await action()
                break
            except (Interrupted, TableFault, Rejected) as exc:
                if self._stopped_by_pause(exc):
                    log.info("table work held by the pause: it carries on at `resume`")
                    await self._hold_while_paused()
                elif not await self._resumed_after_watchdog(exc):
                    await self._await_operator(exc)
            except (LinkLost, McuReset):
                await self._recover_link()
        await self._clear_error()
        return outcome

    async def _wait_result(self) -> dict:
        self._result = asyncio.get_running_loop().create_future()
        self.waiting_for = "result"
        try:
            return await self._result
        finally:
            self._result = None
            self.waiting_for = None

    def submit_result(self, seq: int, result: dict) -> dict:
        """Take a hand result; a result for a hand already taken is a no-op (``duplicate``).
        The result is stored a moment later: `enter_result` answers once it is."""
        if self._taken(seq):
            return {"duplicate": True}
        # Paused too: settling stores the hand and shows scores, which moves nothing (see _settle).
        if self.sm.state not in ("playing", "paused") or self._result is None or self._result.done():
            raise Refusal("not_allowed", f"no hand is waiting for a result (state {self.sm.state})")
        if seq != self.hand.seq:
            raise Refusal("wrong_hand", f"result is for hand {seq}, the hand in play is {self.hand.seq}")
        result = dict(result)
        result.setdefault("riichi", list(self.hand.riichi)) if result.get("kind") != "chombo" else None
        try:
            R.validate_result(self.rules, self.state, result)
        except R.ResultError as exc:
            raise Refusal("invalid_result", str(exc)) from None
        self._result.set_result(result)
        self._await_store()
        return {"duplicate": False}

    def _taken(self, seq: int) -> bool:
        """Hand ``seq`` of this game has its result: settled, or taken and being stored."""
        if self.state is None or seq < 1:  # hands count from 1
            return False
        return seq <= self.settled or (self._stored is not None and not self._stored.cancelled()
                                       and seq == self.hand.seq)

    def _await_store(self) -> None:
        """From now until the hand is stored, a result for it waits for the store."""
        self._stored = asyncio.get_running_loop().create_future()
        # Answered with store_failed to whoever waits; nobody may (in-process players).
        self._stored.add_done_callback(lambda f: f.cancelled() or f.exception())

    async def enter_result(self, seq: int, result: dict) -> dict:
        """Like submit_result, but answer only once the hand is in the store: a client told
        "ok" (a duplicate too) never loses the result to a crash right after. A different
        result for a hand already taken is refused (``conflict``) with the one kept."""
        duplicate = self._taken(seq)
        if not duplicate:
            self.submit_result(seq, result)
        if seq > self.settled:  # taken, not stored yet
            try:
                await asyncio.shield(self._stored)
            except asyncio.CancelledError:
                raise Refusal("not_allowed", "the game was abandoned before the result was stored") from None
        kept = self._results[seq - 1]
        if not _same_result(result, kept):  # the store had another one (see _adopt_stored_hand)
            raise Refusal("conflict", f"hand {seq} already has another result, kept: "
                                           f"{json.dumps(kept)}; nothing changed", kept=kept)
        return {"duplicate": duplicate}

    async def declare_riichi(self, seat: int) -> None:
        if self.sm.state != "playing":
            raise Refusal("not_allowed", "riichi is declared during play")
        if not self.rules.has_riichi:
            raise Refusal("not_allowed", f"{self.rules.name} has no riichi")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in self.rules.seats:
            raise Refusal("bad_request", f"seat must be one of {list(self.rules.seats)}")
        if seat in self.hand.riichi:
            raise Refusal("not_allowed", f"seat {seat} already declared riichi")
        try:
            R.check_riichi(self.rules, self.state.scores, (seat,))
        except R.ResultError as exc:
            raise Refusal("not_allowed", str(exc)) from None
        self.hand.riichi.append(seat)
        self._save_step("playing")
        self._publish("riichi", seat=seat)
        await self._step_free(self._show_bets)

    async def declare_kan(self) -> None:
        if self.sm.state != "playing":
            raise Refusal("not_allowed", "a kan is declared during play")
        if not self.rules.has_dora:
            self.hand.kans += 1
            return
        most = len(self.setup().dora_indicators) - 1  # the first indicator, then one per kan
        if self.hand.kans >= most:
            raise Refusal("not_allowed", f"at most {most} kans a hand in {self.rules.name}")
        self.hand.kans += 1
        self._save_step("playing")
        await self._step_free(lambda: self._reveal_dora(self.hand.kans))
        self._publish("kan", kans=self.hand.kans)

    async def pause(self) -> None:
        """Stop all motion, wherever the table is; `resume` carries on from there."""
        if not self.sm.may_pause():
            raise Refusal("not_allowed", self._why_no_pause())
        self._paused_from = self.sm.state
        # The state first: a step woken by the stop must find itself held, not faulted.
        self._trigger("pause")
        try:
            await self.table.stop()
        except LinkLost:
            # Still paused: the table's watchdog stops it, and the reconnect stops it again.
            log.warning("paused, but the table did not confirm the stop: the link is lost")
        log.info("paused in %s: motion stopped; `mjtable resume` carries on", self._paused_from)

    def _why_no_pause(self) -> str:
        if self.sm.state == "paused":
            return "cannot pause while paused: the table is stopped already; `resume` carries on"
        if self.sm.state == "fault":
            # The fault stopped all motion; only `retry` (after seeing to it) moves anything.
            return (f"the table is stopped already by its fault ({self.fault.describe()}); nothing moves until "
                    f"`retry`: {remedy(self.fault.code)}")
        return (f"cannot pause while {self.sm.state}: the table cannot be reached; its watchdog stops all "
                f"motion once the controller is silent")

    async def resume(self) -> None:
        if self.sm.state != "paused":
            raise Refusal("not_allowed", "the table is not paused")
        try:
            await self.table.resume()
        except Rejected as exc:
            raise Refusal("not_allowed", f"the table refuses to resume ({exc}): "
                                              f"{remedy(exc.code, 'resume again')}") from None
        held, self._paused_from = self._paused_from, None
        self._trigger("resume")
        if held in BACK_FROM_PAUSE:
            self._trigger(BACK_FROM_PAUSE[held])
        log.info("resumed in %s", self.sm.state)
        self._resumed.set()

    def retry(self) -> None:
        if self.sm.state == "paused":
            raise Refusal("not_allowed", "the table is paused, which is no fault; `resume` carries on"
                                              + (" (then `retry` for the fault)" if self.fault else ""))
        if self.fault is None and self.sm.state != "fault":
            raise Refusal("not_allowed", f"there is no fault to retry (state {self.sm.state}); nothing to do")
        self._operator.set()

    # ------------------------------------------------------------------ settle
    async def _settle(self, result: dict) -> None:
        held = self.sm.state == "paused"  # taken while paused: settled now, the machine follows at resume
        if not held:
            self._trigger("settle")
        setup = self.setup()
        before = self.state
        outcome = R.apply_result(self.rules, before, result)
        record = self._hand_record(before, setup, result, outcome)
        if self.db is not None and not await self._until_stored(
                "commit_hand", self.game_id, self.hand.seq, record, outcome.state.to_dict()):
            await self._adopt_stored_hand()
            return
        self.state = outcome.state
        self.settled = self.hand.seq
        self._results.append(result)
        self._hand_stored()
        self.last_record = record
        self._publish("hand_ended", record=record)
        await self._step_free(self._show_scores)
        # Storing the hand and showing the scores move nothing; what follows (wind marker,
        # the next walls) moves tiles, so it waits for resume.
        if held:
            await self._advance("settle")
        if outcome.wind_changed and not outcome.game_over:
            await self._show_wind_marker()
        await self._advance("end_game" if outcome.game_over else "next_hand")

    def _hand_stored(self) -> None:
        if self._stored is not None and not self._stored.done():
            self._stored.set_result(self.hand.seq)
        self._stored = None  # the next hand's result is not taken yet

    async def _until_stored(self, method: str, *args):
        """A write that must be stored before the game goes on: while the store refuses
        it, it is the fault, and `retry` (or a seat's OK button) tries it again."""
        faulted = False
        while True:
            try:
                result = await self.db.call(method, *args)
                break
            except StoreError as exc:
                faulted = self._store_failed(exc) or faulted
            self._operator.clear()
            await self._operator.wait()
            if self._stored is not None and self._stored.done():
                self._await_store()  # resends wait for this attempt
        if faulted:
            self._trigger("retry")
        if isinstance(self.fault, StoreFailed):
            self.fault = None
            log.info("the state database took the write again")
            self._publish("recovered")
        return result

    def _store_failed(self, exc: StoreError) -> bool:
        """Show the failed write as the fault; True when the machine went to `fault`."""
        seq = self.hand.seq if self.hand is not None else None
        kept = f"; the result of hand {seq} is kept, not stored" if self._stored is not None else ""
        self.fault = StoreFailed(f"{exc}{kept}")
        if self._stored is not None and not self._stored.done():
            self._stored.set_exception(Refusal(
                "store_failed", f"{exc}; hand {seq} is not settled (its result is kept): free space on that disk, "
                                f"then `mjtable retry` stores it"))
        self._publish("fault", code=int(self.fault.code), message=self.fault.describe())
        if self.sm.state != "fault" and self.sm.may_fault():
            self._trigger("fault")
            return True
        return False

    async def _adopt_stored_hand(self) -> None:
        """The store had this hand already (written by someone else): the store is right;
        the game goes on from what it holds, and the result waiting is answered from it."""
        game, hands = await self.db.call("active_game"), await self.db.call("hands", self.game_id)
        log.error("hand %d of game %d was in the state database already; going on from the stored game",
                  self.hand.seq, self.game_id)
        self.state = R.GameState.from_dict(game.state)
        self.settled = len(hands)
        self._results = [h["result"] for h in hands]
        self.last_record = hands[-1]
        self._hand_stored()
        self._publish("hand_ended", record=self.last_record)
        await self._step_free(self._show_scores)
        self._trigger("end_game" if self.state.finished else "next_hand")

    def _hand_record(self, before, setup, result, outcome) -> dict:
        return {
            "ruleset": self.ruleset_name,
            "hand": self.hand.label,
            "honba": before.honba,
            "riichi_sticks": before.riichi_sticks,
            "dealer": before.dealer,
            "dice": [v for throw in self.hand.throws for v in throw],
            "breaker": setup.breaker,
            "broken_wall": setup.broken_wall,
            "dead_wall": [list(p) for p in setup.dead_wall],
            "dora_indicators": [list(p) for p in setup.dora_indicators[: self.hand.dora_shown]],
            "result": result,
            "payments": list(outcome.payments),
            "scores": list(outcome.state.scores),
            "riichi_sticks_after": outcome.riichi_sticks_after,
        }

    async def _finish(self) -> R.Standings:
        self.standings = R.final_standings(self.rules, self.state)
        final = {"final": True, "scores": list(self.standings.scores),
                 "final_scores": list(self.standings.final_scores), "ranks": list(self.standings.ranks)}
        if self.db is not None:
            await self._until_stored("finish_game", self.game_id, final)
        ranks = " ".join(f"{seat}:{rank}" for seat, rank in enumerate(self.standings.ranks))

        async def show_final():
            await self._show_scores(self.standings.final_scores)
            await self.table.show_text(f"final {ranks}")
        await self._step_free(show_final)
        self._publish("game_over", **final)
        return self.standings

    def _save_step(self, step: str) -> None:
        """Where the machine is: queued, not awaited (a lost step is done again after a
        restart, as every step is re-entrant); a failure shows in status (`store_error`)."""
        if self.db is not None and self.game_id is not None:
            self.db.submit("save_step", self.game_id, step, self.hand.to_dict())

    # ------------------------------------------------------------------ operator
    def use_rules(self, rules: R.RuleSet, name: str) -> None:
        if self.sm.state not in ("idle", "game_over"):
            raise Refusal("not_allowed", "the rule set changes between games only")
        refusal = self.table.capabilities and cannot_play(self.table.capabilities, rules)
        if refusal:
            raise Refusal("not_allowed", refusal)
        self.rules, self.ruleset_name = rules, name

    def stop_on_error(self, exc: Exception) -> None:
        """The game task failed on a bug: a described fault (never a silent `settling`) that
        only `abandon` or a restart clears; the store keeps the game as it was."""
        self.fault = Refused(Code.GAME_STOPPED, f"the game stopped on an internal error "
                                                f"({type(exc).__name__}: {exc})")
        self.waiting_for = None
        if self._stored is not None and not self._stored.done():
            self._stored.set_exception(Refusal("internal", f"{self.fault.text}; the result was not stored"))
        if self.sm.may_game_stopped():  # not from game_over: the game's end is stored already
            self._trigger("game_stopped")
        self._publish("fault", code=int(self.fault.code), message=self.fault.text)

    def abandon(self) -> Awaitable[None]:
        """Give up the game in progress; its hands stay in the store as played. Await the
        returned object before saying so: it ends once the store has recorded it."""
        if self.state is None or not self.sm.may_abandon():
            raise Refusal("not_allowed", f"there is no game to abandon now (state {self.sm.state})")
        written = None
        if self.db is not None and self.game_id is not None and not self.state.finished:
            written = self.db.submit("abandon_game", self.game_id)  # before any later write: one thread, in order
        for future in (self._result, self._stored):
            if future is not None and not future.done():
                future.cancel()
        self.state, self.hand, self.game_id, self.fault = None, None, None, None
        self._paused_from = None  # the table stays stopped; the next game's opening resumes it
        if self._shuffle_task is not None:
            self._shuffle_task.cancel()  # it may wait for a resume or retry that is no longer due; the
            # next hand's setup shuffles whatever set is left in the hopper
        self._trigger("abandon")
        return self._recorded(written)

    async def _recorded(self, written: Future | None) -> None:
        try:
            if written is not None:
                await asyncio.wrap_future(written)
        except StoreError as exc:
            raise Refusal("store_failed", f"{exc}; the game is given up here, but the database has it in "
                                               f"play still: a restart would resume it") from None

    # ------------------------------------------------------------------ status
    def snapshot(self) -> dict[str, Any]:
        """Everything a view or API client shows: machine, game, hand, walls, link."""
        out: dict[str, Any] = {"state": self.sm.state, "ruleset": self.ruleset_name, "players": self.rules.players,
                               "seats": list(self.rules.seats),
                               "display_mode": self.settings.display_mode,
                               "fault": f"{self.fault.describe()}; {remedy(self.fault.code)}" if self.fault else None,
                               "fault_code": int(self.fault.code) if self.fault else None,
                               "waiting_for": self._waiting_for(),
                               "store_error": self.db.error if self.db is not None else None}
        if self.state is not None:
            s = self._displayed()
            out.update(scores=list(s.scores), dealer=s.dealer, starting_dealer=s.starting_dealer, honba=s.honba,
                       riichi_sticks=s.riichi_sticks, round_wind=s.round_wind, hand=R.hand_label(s),
                       hands_played=s.hands_played, finished=s.finished,
                       wind_marker={"wind": s.round_wind, "seat": s.starting_dealer})
        if self.hand is not None:
            out["hand_in_play"] = {"seq": self.hand.seq, "label": self.hand.label, "riichi": self.hand.riichi,
                                   "dice": [v for t in self.hand.throws for v in t], "kans": self.hand.kans}
            if len(self.hand.throws) == self.rules.dice.throws:
                out["walls"] = self._walls()
        if self.last_record is not None:
            out["last_result"] = self.last_record
        if self.standings is not None:
            out["final_scores"] = list(self.standings.final_scores)
            out["ranks"] = list(self.standings.ranks)
        if self.table.stats is not None:
            out["link"] = {**_stats_dict(self.table.stats), **self.table.quality.as_dict()}
        return out

    def _waiting_for(self) -> str | None:
        # While paused all motion waits for the operator, whatever the step waited for; a
        # result is still taken.
        if self.sm.state == "paused" and self.waiting_for != "result":
            return "resume"
        return self.waiting_for

    def _walls(self) -> dict[str, Any]:
        setup = self.setup()
        return {"stacks_per_side": list(self.rules.stacks_per_side), "breaker": setup.breaker,
                "broken_wall": setup.broken_wall, "break_after": list(setup.break_after),
                "dead_wall": [list(p) for p in setup.dead_wall],
                "dora_indicators": [list(p) for p in setup.dora_indicators[:self.hand.dora_shown]],
                "live_start": list(R.clockwise(self.rules, setup.break_after, 1))}


def _same_result(sent: dict, kept: dict) -> bool:
    """``sent`` is a resend of ``kept``: riichi left out means the declarations, as kept."""
    if "riichi" in kept and "riichi" not in sent:
        sent = {**sent, "riichi": kept["riichi"]}
    return sent == kept


def _comparable(rules: dict) -> dict:
    """A rule set as the store keeps it (JSON), without the file it was read from."""
    data = json.loads(json.dumps(rules))
    data.pop("source", None)
    return data


def _stats_dict(stats) -> dict[str, Any]:
    return {k: v for k, v in vars(stats).items() if isinstance(v, (int, float))}
