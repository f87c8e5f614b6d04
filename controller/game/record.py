"""The game's record in the store: the interrupted game taken up at start, each hand
settled into the store, the machine state saved as the resume point, the final standings.

A write the game cannot go on without (a hand, the final) is the fault STORE_FAILED
while the store refuses it; `retry` tries again. The resume point is queued, not awaited:
a lost one means a step done again after a restart, which every step allows.
"""
from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
import json
import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import Future

from controller import rules as R
from controller.language import ENGLISH, Words
from controller.errors import Refusal
from controller.game.faults import StoreFailed
from controller.game.hand import STORED_WALLS
from controller.game.game import Game, InPlay
from controller.club.players import Player
from controller.game.replay import disagreement
from controller.club.time_limit import STORED_KEY
from controller.store.database import StoreError
from controller.game.game import InPlay

log = logging.getLogger("mjtable.controller")


@dataclass(frozen=True)
class Settled:
    """A hand as stored: its record, whether the round wind changed, whether the game is
    over, and whether the store had it already (the store's, adopted)."""

    record: dict
    wind_changed: bool
    game_over: bool
    adopted: bool


class GameRecord:
    """Handed what it uses: what is in play, the store (and its writer thread, or None),
    the machine, a publish function, the table facade, the faults, the work, the results,
    the displays, the stick check and the club sessions; and the game's clock, once it
    exists."""

    def __init__(self, in_play: InPlay, store, db, sm, publish, table, faults, work, results, displays,
                 sticks, sessions) -> None:
        self.in_play, self.store, self.db, self.sm, self.publish, self.table = in_play, store, db, sm, publish, table
        self.faults, self.work, self.results, self.displays = faults, work, results, displays
        self.sticks, self.sessions = sticks, sessions
        self.clock = None  # the game's clock (it holds this room too): set once it exists
        faults.watch(self._log_fault)

    def _log_fault(self, fault) -> None:
        """Each fault in the store's faults log (the maintenance reminders' `faults` counter).
        A courtesy: a store that cannot take it is the store's fault, seen elsewhere."""
        if self.db is not None:
            self.db.submit("record_fault", int(fault.code), getattr(fault, "subsystem", "none"), fault.describe(),
                        self.in_play.game_id)

    # ---- the interrupted game ----
    async def stored_game(self):
        """The interrupted game, with its rules, once it is checked against its hands."""
        if self.db is None:
            return None
        game = await self.db.call("active_game")
        if game is None:
            return None
        self._continue_rules(game)
        hands = await self.db.call("hands", game.id)
        rules = self.in_play.rules
        if rules.match.east_only and (game.rules or {}).get("match", {}).get("rounds") == 1 != rules.match.rounds:
            self.in_play.rules = rules.east_only_form()  # started East only: it goes on so
        if _comparable(dataclasses.asdict(self.in_play.rules)) != _comparable(game.rules):
            log.warning("game %d cannot be checked against its hands: its rule set has changed", game.id)
        else:
            problem = disagreement(self.in_play.rules, game.state, hands)
            if problem:
                raise StoreError(f"the state database {self.store.path} is damaged: game {game.id} {problem}. "
                                 f"Refusing to resume it: keep the file for inspection, restore a backup or "
                                 f"move it aside to start a new one")
        players = await self.db.call("players", game.id)
        return game, hands, {seat: Player.from_dict(p) for seat, p in players.items()}

    def _continue_rules(self, game) -> None:
        """An interrupted game goes on with the rule set it was started with, whatever the
        config names now (the config's rule set is for the next new game)."""
        if game.ruleset != self.in_play.ruleset_name:
            try:
                self.in_play.rules, self.in_play.ruleset_name = R.load_ruleset(game.ruleset), game.ruleset
            except (R.ConfigError, OSError) as exc:
                raise Refusal("not_allowed", f"game {game.id} was started with rule set {game.ruleset!r}, "
                                             f"which cannot be loaded now: {exc}; put it back to carry on") from None
        rules = self.in_play.rules
        if rules.match.east_only and (game.rules or {}).get("match", {}).get("rounds") == 1 != rules.match.rounds:
            self.in_play.rules = rules.east_only_form()  # started East only: it goes on so
        if _comparable(dataclasses.asdict(self.in_play.rules)) != _comparable(game.rules):
            log.warning("rule set %s has changed since game %d began; the game goes on with it as it is now",
                        self.in_play.ruleset_name, game.id)
        log.info("continuing game %d with rule set %s (the config's %s applies to the next new game)",
                 game.id, self.in_play.ruleset_name, self.in_play.default_rules[1])

    def restore(self, stored) -> None:
        game, hands, players = stored
        stored_hand = dict(game.hand)
        clock = stored_hand.pop(STORED_KEY, None)  # a time-limited game's signals
        self.in_play.game = Game.from_store(game, hands, players, stored_hand)
        if self.clock.restore(clock, self.in_play.state.finished):
            self.in_play.game.end_now()  # the hands after the warning are played
        if self.in_play.state.finished:
            # Killed between the last hand and the game's end: play() only records the end,
            # and the machine has no way from a game state to game_over but settling a hand.
            return
        self.sm.fire("start_game")
        self.publish("resumed", hand=R.hand_label(self.in_play.state))

    # ---- the resume point ----
    def save_step(self) -> None:
        """Where the machine is, with the hand: a failure shows in status (`store_error`)."""
        if self.db is not None and self.in_play.game_id is not None and self.sm.resumable():
            self.in_play.game.carry_on_at(self.sm.game)
            self.db.submit("save_step", self.in_play.game_id, self.sm.game, {**self.in_play.hand.to_dict(), **self.clock.stored()})

    def save_clock(self) -> None:
        """A signal of the session's clock: stored with the hand, at the same resume point."""
        if self.db is not None and self.in_play.game_id is not None:
            hand = self.in_play.hand.to_dict() if self.in_play.hand is not None else {}
            self.db.submit("save_step", self.in_play.game_id, self.in_play.resume_at, {**hand, **self.clock.stored()})

    # ---- a hand settled ----
    async def store_hand(self, result: dict) -> "Settled":
        """The hand in play settled by ``result`` and stored (while the store refuses it,
        the fault STORE_FAILED until `retry`); a hand the store had already is the store's."""
        setup = self.in_play.setup()
        before = self.in_play.state
        outcome = R.apply_result(self.in_play.rules, before, result)
        record = self._hand_record(before, setup, result, outcome)
        if self.db is not None and not await self.until_stored(
                "commit_hand", self.in_play.game_id, self.in_play.hand.seq, record, outcome.state.to_dict()):
            return await self._adopt_stored_hand()
        self.in_play.game.settle(outcome.state, result, record)
        self.results.hand_stored(self.in_play.hand.seq)
        return Settled(record, outcome.wind_changed, self._game_over(outcome.game_over), adopted=False)

    async def until_stored(self, method: str, *args):
        """A write that must be stored before the game goes on: while the store refuses
        it, it is the fault, and `retry` (or a seat's OK button) tries it again."""
        try:
            return await self.db.call(method, *args)
        except StoreError as exc:
            failed = self._store_failed(exc)

        async def again():
            if self.results.stored is not None and self.results.stored.done():
                self.results.await_store()  # resends wait for this attempt
            return await self.db.call(method, *args)
        result = await self.faults.until_retried(failed, again, (StoreError,), self._store_failed)
        log.info("the state database took the write again")
        await self.faults.unshow()
        return result

    def _store_failed(self, exc: StoreError) -> StoreFailed:
        """The failed write as the fault (held by `until_retried`); the result waiting is refused."""
        seq = self.in_play.hand.seq if self.in_play.hand is not None else None
        kept = f"; the result of hand {seq} is kept, not stored" if self.results.stored is not None else ""
        self.results.fail_stored(Refusal(
            "store_failed", f"{exc}; hand {seq} is not settled (its result is kept): free space on that disk, "
                            f"then retry, which stores it"))
        return StoreFailed(f"{exc}{kept}")

    async def _adopt_stored_hand(self) -> "Settled":
        """The store had this hand already (written by someone else): the store is right;
        the game goes on from what it holds, and the result waiting is answered from it."""
        game, hands = await self.db.call("active_game"), await self.db.call("hands", self.in_play.game_id)
        log.error("hand %d of game %d was in the state database already; going on from the stored game",
                  self.in_play.hand.seq, self.in_play.game_id)
        self.in_play.game.adopt(R.GameState.from_dict(game.state), hands)
        self.results.hand_stored(self.in_play.hand.seq)
        return Settled(self.in_play.last_record, False, self._game_over(self.in_play.state.finished), adopted=True)

    def _game_over(self, by_rules: bool) -> bool:
        """The rules' end, or the time limit's: the last hand after the warning is played
        (the state kept in the store stays the rules', which its hands replay to)."""
        if not by_rules and self.clock.over():
            self.in_play.game.end_now()
            self.clock.ended = True
            return True
        return by_rules

    def _hand_record(self, before, setup, result, outcome) -> dict:
        walls = self.in_play.hand.walls(self.in_play.rules, setup)
        return {
            "ruleset": self.in_play.ruleset_name,
            "hand": self.in_play.hand.label,
            "honba": before.honba,
            "riichi_sticks": before.riichi_sticks,
            "dealer": before.dealer,
            "dice": [v for throw in self.in_play.hand.throws for v in throw],
            **{key: walls[key] for key in STORED_WALLS},
            "result": result,
            "payments": list(outcome.payments),
            "scores": list(outcome.state.scores),
            "riichi_sticks_after": outcome.riichi_sticks_after,
            **_penalties(before.penalties, outcome.state.penalties),
        }

    # ---- the end ----
    async def finish(self) -> R.Standings:
        """Store the final standings, then show them; the next game waits for both."""
        game = self.in_play.game
        standings = game.final(self.in_play.rules)
        final = {"final": True, "scores": list(standings.scores),
                 "final_scores": list(standings.final_scores), "ranks": list(standings.ranks),
                 **_penalties((0,) * len(standings.scores), self.in_play.state.penalties),
                 **({"ended": "time"} if self.clock.ended else {})}
        if self.db is not None:
            await self.until_stored("finish_game", game.game_id, final)
        totals = await self.sessions.after_game(game.game_id) if game.game_id is not None else []

        async def show_final():
            await self.displays.show_scores(standings.final_scores)
            await self.table.show_text(standings_text(standings.ranks, game.players, self.table.words))
            for seats, text in totals:  # the session's running totals, when it shows them
                await self.table.show_text(text, seats=seats)
        await self.work.run(show_final)
        self.publish("game_over", **final)
        return standings

    def abandon(self) -> Future | None:
        """Record the game given up; the write before any later one (one thread, in order)."""
        if self.db is None or self.in_play.game_id is None or self.in_play.state.finished:
            return None
        return self.db.submit("abandon_game", self.in_play.game_id)

    @staticmethod
    async def recorded(written: Future | None) -> None:
        try:
            if written is not None:
                await asyncio.wrap_future(written)
        except StoreError as exc:
            raise Refusal("store_failed", f"{exc}; the game is given up here, but the database has it in "
                                          f"play still: a restart would resume it") from None


def _penalties(before: Sequence[int], after: Sequence[int]) -> dict:
    """The penalties deducted from the final scores (a tournament chombo), where there are
    any: a chombo's hand pays nothing at the table, so its record says what it will cost."""
    added = [a - b for a, b in zip(after, before)]
    return {"penalties": added} if any(added) else {}


def standings_text(ranks: Sequence[int | None], players: Mapping[int, Player], words: Words = ENGLISH) -> str:
    """The centre's line at game over: each seat's place (``final 0:4 1:1 2:3 3:2``), or
    with named players each player by place (``final 1 Bo 2 Di 3 Cy 4 Ann``)."""
    if not players:
        return words.say("final {places}", places=" ".join(f"{seat}:{rank}" for seat, rank in enumerate(ranks)))
    by_place = sorted((rank, seat) for seat, rank in enumerate(ranks) if seat in players)
    return words.say("final {places}", places=" ".join(f"{rank} {players[seat].name}" for rank, seat in by_place))


def _comparable(rules: dict) -> dict:
    """A rule set as the store keeps it (JSON), without the file it was read from."""
    data = json.loads(json.dumps(rules))
    data.pop("source", None)
    return data
