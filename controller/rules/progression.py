"""The game between hands: scores, dealer, prevailing wind, counters, sticks, game end.

``apply_result`` is pure: it returns a new GameState and what the table must do (dealer
lamp, wind marker) without touching the old one. Physical seats are 0-3 throughout; a
three-player set keeps a zero score for the empty side.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from controller.rules.geometry import turn_order
from controller.rules.result import Result, ResultError, Who, parse_result
from controller.rules.ruleset import SEATS, WINDS, RuleSet
from controller.rules.settlement import settle

# Scores travel to the seat displays as 32-bit signed numbers (show_scores): a result that
# would take one beyond is refused, whatever a hand-made rule set allows.
SCORE_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class GameState:
    ruleset: str
    scores: tuple[int, ...]
    dealer: int
    starting_dealer: int
    round_wind: int = 0       # 0 East, 1 South, ...
    hand_in_round: int = 1    # 1-based: E1 ... E4
    honba: int = 0
    riichi_sticks: int = 0
    hands_played: int = 0     # chombo re-deals do not count
    finished: bool = False
    penalties: tuple[int, ...] = (0,) * SEATS  # deducted from the final scores (tournament chombo)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GameState":
        names = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or set(data) - names or not {"ruleset", "scores", "dealer"} <= set(data):
            raise ValueError(f"not a saved game state: {data!r}")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        state = cls(**values)
        if len(state.scores) != SEATS or len(state.penalties) != SEATS:
            raise ValueError(f"a saved game state needs {SEATS} scores and penalties: {data!r}")
        return state


@dataclass(frozen=True)
class HandOutcome:
    payments: tuple[int, ...]  # whole score change of the hand per seat
    state: GameState
    riichi_sticks_after: int
    dealer_repeats: bool
    wind_changed: bool         # the wind marker must flip before the next hand
    game_over: bool


def new_game(rules: RuleSet, dealer: int = 0) -> GameState:
    turn_order(rules, dealer)  # rejects a seat not in play
    scores = tuple(rules.starting_points if s in rules.seats else 0 for s in range(SEATS))
    return GameState(ruleset=rules.name, scores=scores, dealer=dealer, starting_dealer=dealer)


def hand_label(state: GameState) -> str:
    return f"{WINDS[state.round_wind]}{state.hand_in_round}"


WIND_WORDS = ("East", "South", "West", "North")


def seat_words(rules: RuleSet, dealer: int, names: dict[int, str] | None = None) -> Who:
    """Each seat as the players know it: its player's name (if given), seat and wind."""
    winds = {seat: WIND_WORDS[i] for i, seat in enumerate(turn_order(rules, dealer))}
    names = names or {}
    def who(seat: int) -> str:
        wind = winds.get(seat, "not in play")
        return f"{names[seat]} (seat {seat}, {wind})" if seat in names else f"seat {seat} ({wind})"
    return who


def validate_result(rules: RuleSet, state: GameState, result: Any, who: Who | None = None) -> Result:
    """The parsed result, or ResultError naming seats as ``who`` does (default: seat and
    wind); changes nothing."""
    if state.ruleset != rules.name:
        raise ResultError(f"the game is played with {state.ruleset!r}, not {rules.name!r}")
    if state.finished:
        raise ResultError("the game is over: no more results")
    parsed = parse_result(rules, state.scores, result, who or seat_words(rules, state.dealer))
    changes = settle(rules, state.dealer, state.honba, state.riichi_sticks, parsed).changes
    beyond = [seat for seat, (score, change) in enumerate(zip(state.scores, changes))
              if abs(score + change) > SCORE_LIMIT]
    if beyond:
        raise ResultError(f"this result takes seat {beyond[0]} to {state.scores[beyond[0]] + changes[beyond[0]]:,} "
                          f"points; scores stay within ±{SCORE_LIMIT:,}")
    return parsed


def _dealer_won(result: Result, dealer: int) -> bool:
    return any(w.seat == dealer for w in result.winners)


def dealer_repeats(rules: RuleSet, dealer: int, result: Result) -> bool:
    r = rules.dealer_repeat
    if result.kind == "draw":
        return r.on_abortive_draw if result.abortive else (
            r.on_tenpai_draw if dealer in result.tenpai else r.on_noten_draw)
    return r.on_win if _dealer_won(result, dealer) else False


def next_honba(rules: RuleSet, honba: int, dealer: int, result: Result) -> int:
    c = rules.counters
    rule = c.after_draw if result.kind == "draw" else (
        c.after_dealer_win if _dealer_won(result, dealer) else c.after_other_win)
    return {"add": honba + 1, "keep": honba, "reset": 0}[rule]


def _rotate(rules: RuleSet, state: GameState) -> GameState:
    """The next dealer; the prevailing wind advances when the deal returns to the starting dealer."""
    dealer = turn_order(rules, state.dealer)[1]
    if dealer == state.starting_dealer:
        return replace(state, dealer=dealer, round_wind=state.round_wind + 1, hand_in_round=1)
    return replace(state, dealer=dealer, hand_in_round=state.hand_in_round + 1)


def _top_seat(rules: RuleSet, state: GameState) -> int:
    """First place, ties going to the seat nearest the starting dealer."""
    order = turn_order(rules, state.starting_dealer)
    return max(order, key=lambda s: (state.scores[s], -order.index(s)))


def _anyone_reached(rules: RuleSet, state: GameState, target: int) -> bool:
    return any(state.scores[s] >= target for s in rules.seats)


def _ends_now(rules: RuleSet, before: GameState, after: GameState, repeats: bool, result: Result) -> bool:
    """Game end after this hand; ``after`` is already rotated if the dealer did not repeat."""
    m = rules.match
    if m.busting_below is not None and any(after.scores[s] < m.busting_below for s in rules.seats):
        return True
    ext = m.extension
    if after.round_wind >= m.rounds:
        # past the match length: over, unless a sudden-death extension still runs
        return ext is None or after.round_wind >= m.rounds + ext.rounds or _anyone_reached(rules, after, ext.target)
    last_hand = (before.round_wind == m.rounds - 1
                 and turn_order(rules, before.dealer)[1] == before.starting_dealer)
    if m.agari_yame and last_hand and repeats and _dealer_won(result, before.dealer):
        reached = ext is None or after.scores[before.dealer] >= ext.target
        return reached and _top_seat(rules, after) == before.dealer
    return False


def apply_result(rules: RuleSet, state: GameState, result: Any) -> HandOutcome:
    """Settle a hand and advance the game; pure (raises ResultError and changes nothing)."""
    parsed = validate_result(rules, state, result)
    paid = settle(rules, state.dealer, state.honba, state.riichi_sticks, parsed)
    scores = tuple(a + b for a, b in zip(state.scores, paid.changes))
    penalties = tuple(a + b for a, b in zip(state.penalties, paid.penalties))
    settled = replace(state, scores=scores, penalties=penalties, riichi_sticks=paid.riichi_sticks)
    if parsed.kind == "chombo":
        # a re-deal of the same hand: no counter, no rotation, not a hand played
        return HandOutcome(paid.changes, settled, paid.riichi_sticks, True, False, False)
    repeats = dealer_repeats(rules, state.dealer, parsed)
    settled = replace(settled, honba=next_honba(rules, state.honba, state.dealer, parsed),
                      hands_played=state.hands_played + 1)
    after = settled if repeats else _rotate(rules, settled)
    if _ends_now(rules, state, after, repeats, parsed):
        # the last hand's dealer and round stay on the displays
        return HandOutcome(paid.changes, replace(settled, finished=True), paid.riichi_sticks, repeats, False, True)
    return HandOutcome(paid.changes, after, paid.riichi_sticks, repeats,
                       after.round_wind != state.round_wind, False)

