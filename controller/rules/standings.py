"""Final standings: leftover sticks, return points, uma and oka (split on ties), penalties."""
from __future__ import annotations

from dataclasses import dataclass

from controller.rules.geometry import turn_order
from controller.rules.progression import GameState
from controller.rules.ruleset import SEATS, RuleSet


@dataclass(frozen=True)
class Standings:
    scores: tuple[int | None, ...]        # table scores with leftover sticks; None for an empty side
    final_scores: tuple[int | None, ...]  # after return points, uma, oka and penalties
    ranks: tuple[int | None, ...]         # 1 = first; tied seats share the better rank


def _places(rules: RuleSet, state: GameState) -> list[list[int]]:
    """Seats grouped by place, best first. Each group shares the places it spans."""
    order = turn_order(rules, state.starting_dealer)
    ranked = sorted(order, key=lambda s: (-state.scores[s], order.index(s)))
    if rules.standings.ties == "seat_order":
        return [[s] for s in ranked]
    groups: list[list[int]] = []
    for s in ranked:
        if groups and state.scores[groups[-1][0]] == state.scores[s]:
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _share(amount: int, seats: list[int]) -> dict[int, int]:
    """Split evenly; an indivisible remainder goes point by point to the seats nearest the
    starting dealer (``seats`` is in that order) so nothing is lost."""
    each, rest = divmod(amount, len(seats))
    return {s: each + (1 if i < rest else 0) for i, s in enumerate(seats)}


def final_standings(rules: RuleSet, state: GameState) -> Standings:
    st = rules.standings
    bonus = [0] * SEATS
    scores = list(state.scores)
    ranks: list[int | None] = [None] * SEATS
    place = 0
    for group in _places(rules, state):
        uma = sum(st.uma[place:place + len(group)])
        if place == 0:
            uma += st.oka
            if st.leftover_sticks == "winner":
                for s, v in _share(state.riichi_sticks * rules.deposit, group).items():
                    scores[s] += v
        for s, v in _share(uma, group).items():
            bonus[s] += v
            ranks[s] = place + 1
        place += len(group)
    final = [None if ranks[s] is None else scores[s] - rules.return_points + bonus[s] - state.penalties[s]
             for s in range(SEATS)]
    shown = [scores[s] if ranks[s] is not None else None for s in range(SEATS)]
    return Standings(tuple(shown), tuple(final), tuple(ranks))
