"""Hand results as the operator and the players enter them: taken once per hand, answered
once stored (a client told "ok" never loses the result to a crash right after)."""
from __future__ import annotations

import asyncio
import json

from controller import rules as R
from controller.errors import Refusal
from controller.rules.tiles import score_hand
from controller.game.game import InPlay


class Results:
    """Handed what it uses: what is in play (the game and its rules), the machine, and
    whether the session's clock ends the game with the hand in play (True for a chombo
    that ends it: a chombo is a re-deal, not a hand played)."""

    def __init__(self, play: InPlay, sm, time_ends_it) -> None:
        self.play, self.sm, self.time_ends_it = play, sm, time_ends_it
        self.waiting: asyncio.Future | None = None
        # From taking a result until its hand is stored: resolved then, or failed with store_failed.
        self.stored: asyncio.Future | None = None

    async def wait(self) -> dict:
        self.waiting = asyncio.get_running_loop().create_future()
        self.play.waiting_for = "result"
        try:
            return await self.waiting
        finally:
            self.waiting = None
            self.play.waiting_for = None

    def submit(self, seq: int, result: dict) -> dict:
        """Take a hand result; a result for a hand already taken is a no-op (``duplicate``).
        The result is stored a moment later: `enter` answers once it is."""
        if self.taken(seq):
            return {"duplicate": True}
        # Paused too: settling stores the hand and shows scores, which moves nothing.
        if not self.sm.takes_result() or self.waiting is None or self.waiting.done():
            raise Refusal("not_allowed", f"no hand is waiting for a result (state {self.sm.state})")
        result = self.checked(seq, result)
        self.waiting.set_result(result)
        self.await_store()
        return {"duplicate": False}

    def checked(self, seq: int, result: dict) -> dict:
        """The result for the hand in play as the rules take it (riichi left out: the hand's
        declarations), or Refusal with the rules' reason."""
        g, rules = self.play.game, self.play.rules
        if seq != g.hand.seq:
            raise Refusal("wrong_hand", f"result is for hand {seq}, the hand in play is {g.hand.seq}")
        result = dict(result)
        result.setdefault("riichi", list(g.hand.riichi)) if result.get("kind") != "chombo" else None
        try:
            R.validate_result(rules, g.state, result, self.play.who())
        except R.ResultError as exc:
            raise Refusal("invalid_result", str(exc)) from None
        return result

    def preview(self, seq: int, result: dict) -> dict:
        """What the result would give (payments, scores), applying nothing."""
        g, rules = self.play.game, self.play.rules
        self._awaited(seq)
        result = self.checked(seq, result)
        outcome = R.apply_result(rules, g.state, result)
        shown = self.play.displayed().scores  # the hand's riichi bets are taken from these already
        return {"result": result, "payments": list(outcome.payments), "scores": list(outcome.state.scores),
                "from_shown": [after - now for after, now in zip(outcome.state.scores, shown)],
                "riichi_sticks_after": outcome.riichi_sticks_after,
                "game_over": outcome.game_over or self.time_ends_it(result["kind"] == "chombo")}

    def _awaited(self, seq: int) -> None:
        g = self.play.game
        if g.hand is None or g.hand.seq <= g.settled:
            raise Refusal("not_allowed", f"no hand is waiting for a result (state {self.sm.state})")
        if self.taken(seq):
            raise Refusal("not_allowed", f"hand {seq} has its result already")

    def by_tiles(self, seq: int, result: dict) -> dict:
        """The preview of a win whose winners give their tiles (``"tiles"``) for han and fu:
        each such hand scored by the rules (controller/rules/tiles.py), the result as it would
        be entered (`result`), the breakdowns (`hands`, one a winner by tiles)."""
        g, rules = self.play.game, self.play.rules
        self._awaited(seq)
        if seq != g.hand.seq:
            raise Refusal("wrong_hand", f"result is for hand {seq}, the hand in play is {g.hand.seq}")
        riichi = result.get("riichi", g.hand.riichi)
        winners, hands = [], []
        for w in result.get("winners") or []:
            if not (isinstance(w, dict) and "tiles" in w):
                winners.append(w)
                continue
            seat = w.get("seat")
            if seat not in rules.seats or set(w) != {"seat", "tiles"}:
                raise Refusal("invalid_result", f"a winner by tiles is {{\"seat\": a seat in play, \"tiles\": "
                                                f"{{...}}}}, got {w!r}")
            try:
                scored = score_hand(rules, g.state, seat, tsumo=result["kind"] == "tsumo",
                                    riichi=isinstance(riichi, list) and seat in riichi, hand=w["tiles"],
                                    dora_shown=g.hand.dora_shown)
            except R.ResultError as exc:
                several = sum(isinstance(x, dict) and "tiles" in x for x in result["winners"]) > 1
                raise Refusal("invalid_result", f"seat {seat}: {exc}" if several else str(exc)) from None
            winners.append(scored.win(seat))
            hands.append({"seat": seat, **scored.breakdown()})
        return {**self.preview(seq, {**result, "winners": winners}), "hands": hands}

    def taken(self, seq: int) -> bool:
        """Hand ``seq`` of this game has its result: settled, or taken and being stored."""
        g = self.play.game
        if g.state is None or seq < 1:  # hands count from 1
            return False
        return seq <= g.settled or (self.stored is not None and not self.stored.cancelled() and seq == g.hand.seq)

    def await_store(self) -> None:
        """From now until the hand is stored, a result for it waits for the store."""
        self.stored = asyncio.get_running_loop().create_future()
        # Answered with store_failed to whoever waits; nobody may (in-process players).
        self.stored.add_done_callback(lambda f: f.cancelled() or f.exception())

    def hand_stored(self, seq: int) -> None:
        if self.stored is not None and not self.stored.done():
            self.stored.set_result(seq)
        self.stored = None  # the next hand's result is not taken yet

    def fail_stored(self, error: Refusal) -> None:
        if self.stored is not None and not self.stored.done():
            self.stored.set_exception(error)

    def cancel(self) -> None:
        for future in (self.waiting, self.stored):
            if future is not None and not future.done():
                future.cancel()

    async def enter(self, seq: int, result: dict) -> dict:
        """Like `submit`, but answer only once the hand is in the store. A different
        result for a hand already taken is refused (``conflict``) with the one kept."""
        g = self.play.game
        duplicate = self.taken(seq)
        if self._after_game_over(seq, result):
            raise Refusal("not_allowed", f"the game is over (after hand {g.settled}): no hand waits for a result; "
                                         f"nothing changed; start the next game")
        if not duplicate:
            self.submit(seq, result)
        if seq > g.settled:  # taken, not stored yet
            try:
                await asyncio.shield(self.stored)
            except asyncio.CancelledError:
                raise Refusal("not_allowed", "the game was abandoned before the result was stored") from None
        kept = g.results_so_far[seq - 1]
        if not _same_result(result, kept):  # the store had another one (see GameRecord.adopt_stored_hand)
            raise Refusal("conflict", f"hand {seq} already has another result, kept: "
                                      f"{json.dumps(kept)}; nothing changed", kept=kept)
        return {"duplicate": duplicate}

    def _after_game_over(self, seq: int, result: dict) -> bool:
        """A result sent once the game is over, but for a resend of one of its hands' (a
        lost reply's, answered as a duplicate again)."""
        g = self.play.game
        if g.state is None or not g.state.finished:
            return False
        return not (1 <= seq <= g.settled and _same_result(result, g.results_so_far[seq - 1]))


def _same_result(sent: dict, kept: dict) -> bool:
    """``sent`` is a resend of ``kept``: riichi left out means the declarations, as kept."""
    if "riichi" in kept and "riichi" not in sent:
        sent = {**sent, "riichi": kept["riichi"]}
    return sent == kept
