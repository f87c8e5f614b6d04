"""Table geometry: breaker, break, dead wall, dora indicators and the deal.

A position is (seat, stack): the wall in front of physical seat 0-3, stack 1 being the
rightmost as the owner sees it. Clockwise (the drawing direction) goes k → k+1 and past
the last stack to stack 1 of seat s−1; counter-clockwise (toward the dead wall) goes
k → k−1 and below stack 1 to the last stack of seat s+1.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterator

from controller.errors import MjtableError
from controller.rules.ruleset import SEATS, RuleSet

Position = tuple[int, int]
Take = tuple[int, int, str]  # (seat, stack, "top" | "bottom" | "both")


class SetupError(MjtableError, ValueError):
    """Dice values or a dealer that the rule set cannot use."""


def clockwise(rules: RuleSet, pos: Position, steps: int = 1) -> Position:
    seat, stack = pos
    for _ in range(steps):
        seat, stack = (seat, stack + 1) if stack < rules.stacks_per_side[seat] else ((seat - 1) % SEATS, 1)
    return seat, stack


def counter_clockwise(rules: RuleSet, pos: Position, steps: int = 1) -> Position:
    seat, stack = pos
    for _ in range(steps):
        if stack > 1:
            stack -= 1
        else:
            seat = (seat + 1) % SEATS
            stack = rules.stacks_per_side[seat]
    return seat, stack


def turn_order(rules: RuleSet, dealer: int) -> tuple[int, ...]:
    """The seats in play counter-clockwise (turn order) starting with the dealer."""
    if dealer not in rules.seats:
        raise SetupError(f"dealer seat {dealer!r} is not in play; allowed: {list(rules.seats)}")
    i = rules.seats.index(dealer)
    return rules.seats[i:] + rules.seats[:i]


def breaker_seat(rules: RuleSet, dealer: int, first_throw_sum: int) -> int:
    """Count the dealer's sum counter-clockwise, the dealer being 1 (over walls or players)."""
    order = turn_order(rules, dealer)
    if rules.dice.breaker_counts == "walls":
        return (dealer + first_throw_sum - 1) % SEATS
    return order[(first_throw_sum - 1) % len(order)]


def break_position(rules: RuleSet, breaker: int, count: int) -> Position:
    """The stack the break follows: ``count`` stacks from the right of the breaker's wall,
    continuing into the upper seat's wall (its stack 1 is the next one) past the end."""
    return clockwise(rules, (breaker, 1), count - 1)


@dataclass(frozen=True)
class HandSetup:
    dealer: int
    throws: tuple[tuple[int, ...], ...]
    breaker: int                            # the wall breaker: the seat the first throw names
    break_count: int
    break_after: Position                   # the dead wall's first stack (or the break with no dead wall)
    broken_wall: int                        # the seat whose wall holds the break (a count past the
                                            # breaker's last stack goes on into the upper seat's wall)
    dead_wall: tuple[Position, ...]         # from the break, counter-clockwise
    dora_indicators: tuple[Position, ...]   # first, then one per kan (reveal order)
    dora_tile: str | None                   # "top" or "bottom" of those stacks
    deal: tuple[tuple[Take, ...], ...]      # per physical seat, in taking order
    first_draw: Take                        # the next tile of the live wall after the deal

    def to_dict(self) -> dict:
        return asdict(self)


def _check_throws(rules: RuleSet, throws) -> tuple[tuple[int, ...], ...]:
    d = rules.dice
    ok = (isinstance(throws, (list, tuple)) and len(throws) == d.throws
          and all(isinstance(t, (list, tuple)) and len(t) == d.per_throw
                  and all(type(v) is int and 1 <= v <= 6 for v in t) for t in throws))
    if not ok:
        raise SetupError(f"throws {throws!r} do not fit the rule set; allowed: {d.throws} throw(s) "
                         f"of {d.per_throw} dice, each 1-6")
    return tuple(tuple(t) for t in throws)


def _tiles_from(rules: RuleSet, start: Position) -> Iterator[tuple[Position, str]]:
    """The live wall tile by tile in drawing order: top, then bottom of each stack."""
    pos = start
    while True:
        yield pos, "top"
        yield pos, "bottom"
        pos = clockwise(rules, pos)


def _deal_turns(rules: RuleSet, dealer: int) -> list[tuple[int, int]]:
    """(seat, tiles) for each turn of the deal."""
    order, d = turn_order(rules, dealer), rules.deal
    turns = [(s, d.block_tiles) for _ in range(d.blocks) for s in order]
    turns += [(s, d.then_each) for s in order if d.then_each]
    return turns + ([(dealer, d.dealer_extra)] if d.dealer_extra else [])


def _merge(tiles: list[tuple[Position, str]]) -> list[Take]:
    """A top and bottom of one stack taken in the same turn are one "both" take."""
    out: list[Take] = []
    for (seat, stack), part in tiles:
        if out and out[-1][:2] == (seat, stack) and out[-1][2] == "top" and part == "bottom":
            out[-1] = (seat, stack, "both")
        else:
            out.append((seat, stack, part))
    return out


def deal_takes(rules: RuleSet, dealer: int, start: Position) -> tuple[tuple[tuple[Take, ...], ...], Take]:
    tiles = _tiles_from(rules, start)
    per_seat: list[list[Take]] = [[] for _ in range(SEATS)]
    for seat, count in _deal_turns(rules, dealer):
        per_seat[seat] += _merge([next(tiles) for _ in range(count)])
    (seat, stack), part = next(tiles)
    return tuple(map(tuple, per_seat)), (seat, stack, part)


def dora_indicators(rules: RuleSet, after: Position) -> tuple[Position, ...]:
    """The first indicator, then each kan's, counted counter-clockwise from the break. Each
    kan takes the live wall's last tile into the dead wall (which keeps its size), so a
    late kan's indicator may lie past the dead wall's first stacks."""
    dora = rules.dora
    if dora is None:
        return ()
    return tuple(counter_clockwise(rules, after, dora.indicator_stack - 1 + i * dora.kan_step)
                 for i in range(dora.max_indicators))


def setup_hand(rules: RuleSet, dealer: int, throws) -> HandSetup:
    """Everything the table does before play, from the dealer seat and the dice."""
    throws = _check_throws(rules, throws)
    breaker = breaker_seat(rules, dealer, sum(throws[0]))
    count = sum(map(sum, throws)) if rules.dice.break_count == "sum" else sum(throws[0])
    after = break_position(rules, breaker, count)
    dead = tuple(counter_clockwise(rules, after, i) for i in range(rules.dead_wall_stacks))
    deal, first_draw = deal_takes(rules, dealer, clockwise(rules, after))
    return HandSetup(dealer=dealer, throws=throws, breaker=breaker, break_count=count, break_after=after,
                     broken_wall=after[0], dead_wall=dead, dora_indicators=dora_indicators(rules, after),
                     dora_tile=rules.dora.tile if rules.dora else None, deal=deal, first_draw=first_draw)
