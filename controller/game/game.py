"""The game at the table: its scores (the rules' state), the hand in play, the hands
settled and their results, the last hand's record, the final standings, its players and
their seats, its id in the store, and the task that plays it.

One `Game` per game: a new game (or one resumed from the store, or none after `abandon`)
is a new object, so nothing of the last game shows in the next. It changes only through
its own methods, called in its task's order (controller/game/record.py, the Controller's
play); everything else reads it (`Controller.game`). The next game waits for the last
one's task (`Game.ended`): its final is stored and shown before anything of the next.
"""
from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Coroutine
from dataclasses import dataclass, field

from controller import rules as R
from controller.game.hand import Hand
from controller.club.players import Player
from controller.club.schedule import RoundTable


@dataclass(eq=False)
class Game:
    state: R.GameState | None = None  # None: no game (idle)
    game_id: int | None = None  # in the store; None without one
    players: dict[int, Player] = field(default_factory=dict)  # seat -> player; {} while anonymous
    seating: str = "as-given"  # or "draw": the table drew the seats; "schedule": a tournament round's
    place: RoundTable | None = None  # the round and table of a scheduled game
    hand: Hand | None = None
    resume_at: str = "preparing"  # where the hand in play carries on (the stored machine state)
    # Hands settled, chombo re-deals included (the rules do not count those as played): the
    # seq of the hand in play is settled + 1, so every deal has its own.
    settled: int = 0
    results_so_far: list[dict] = field(default_factory=list)  # the settled hands' results, by seq - 1
    last_record: dict | None = None  # the last hand settled, as stored
    standings: R.Standings | None = None  # once the game is over
    task: asyncio.Task | None = None  # the one that plays it (controller/api/handlers.py)

    @classmethod
    def from_store(cls, game, hands: list[dict], players: dict[int, Player], hand: dict) -> "Game":
        """The interrupted game ``game`` (the store's record) with its hands settled and
        the ``hand`` in play as stored ({} before its first step was)."""
        taken_up = cls(state=R.GameState.from_dict(game.state), game_id=game.id, players=players,
                       seating=game.seating, place=RoundTable(game.round, game.table) if game.round is not None else None,
                       settled=len(hands), results_so_far=[h["result"] for h in hands])
        if hand:
            taken_up.hand, taken_up.resume_at = Hand.from_stored(hand, game.step)
        return taken_up

    # ---- changed in the game's own task ----
    def hand_to_play(self) -> Hand:
        """The hand in play, or the next one, from its start, once the last is settled."""
        if self.hand is None or self.hand.seq != self.settled + 1:
            self.hand = Hand(seq=self.settled + 1, label=R.hand_label(self.state))
            self.resume_at = "preparing"
        return self.hand

    def carry_on_at(self, step: str) -> None:
        self.resume_at = step

    def settle(self, state: R.GameState, result: dict, record: dict) -> None:
        """The hand in play is stored: the game goes on from ``state``."""
        self.state = state
        self.settled = self.hand.seq
        self.results_so_far.append(result)
        self.last_record = record

    def adopt(self, state: R.GameState, hands: list[dict]) -> None:
        """The store's game is the game: its state and its hands."""
        self.state = state
        self.settled = len(hands)
        self.results_so_far = [h["result"] for h in hands]
        self.last_record = hands[-1]

    def end_now(self) -> None:
        """Over by the time limit, not by its rules (the store keeps the rules' state)."""
        self.state = dataclasses.replace(self.state, finished=True)

    def final(self, rules: R.RuleSet) -> R.Standings:
        self.standings = R.final_standings(rules, self.state)
        return self.standings

    def play(self, playing: Coroutine) -> None:
        """Run the task that plays this game (and ends it)."""
        self.task = asyncio.ensure_future(playing)

    # ---- asked by the next game ----
    async def ended(self, within: float) -> bool:
        """Wait (at most ``within`` seconds) for the task playing this game to end: False
        if it has not by then. The task is never cancelled by the wait."""
        if self.task is None or self.task.done():
            return True
        done, _ = await asyncio.wait({self.task}, timeout=within)
        return bool(done)


class OfTheGame:
    """An attribute that reads the game's own (``owner.game``, on `InPlay` and the
    Controller): only the game changes it, so setting it here is an error."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, controller, owner=None):
        return self if controller is None else getattr(controller.game, self.name)

    def __set__(self, controller, value) -> None:
        raise AttributeError(f"{self.name} is the game's own: a new game is a new Game, changed by its methods")


class InPlay:
    """What is in play at the table: the game (a new `Game` for each) and the rule set it is
    played by, and what it waits for. The rooms are handed this, never the Controller:
    they read the game; the Controller alone replaces it, and the game's own methods
    change it."""

    def __init__(self, rules: R.RuleSet, ruleset_name: str) -> None:
        self.game = Game()  # none yet
        self.rules, self.ruleset_name = rules, ruleset_name
        self.default_rules = (rules, ruleset_name)  # the config's: for a new game that names none
        self.waiting_for: str | None = None  # what the hand in play waits for: a result, a shuffle, ...
        self.opening_text: str | None = None  # shown as a new game opens (a drawn dealer, a round's seats)

    # The game's own, read here.
    (state, hand, resume_at, game_id, settled, results_so_far, last_record, standings, players, seating,
     place) = (OfTheGame() for _ in range(11))

    def setup(self) -> R.HandSetup:
        """The hand in play's walls, break and dead wall, from its dice."""
        return R.setup_hand(self.rules, self.game.state.dealer, self.game.hand.throws)

    def who(self):
        """Each seat in a message to people: its player's name, seat and wind."""
        return R.seat_words(self.rules, self.state.dealer, {s: p.name for s, p in self.players.items()})

    def displayed(self) -> R.GameState:
        """The game as the table shows it: the bets declared in the hand in play are on the
        table already (the settlement takes them; they are not taken twice)."""
        s, hand = self.state, self.hand
        if hand is None or hand.seq <= self.settled or not hand.riichi:
            return s
        scores = tuple(v - self.rules.deposit if seat in hand.riichi else v for seat, v in enumerate(s.scores))
        return dataclasses.replace(s, scores=scores, riichi_sticks=s.riichi_sticks + len(hand.riichi))
