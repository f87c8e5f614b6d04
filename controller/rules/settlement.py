"""A hand's result → every seat's score change, the riichi sticks left, chombo penalties.

The changes include the riichi bets of this hand, the hand values with counters and the
sticks a winner collects, so that sum(changes) + Δsticks × deposit == 0 always.
"""
from __future__ import annotations

from dataclasses import dataclass

from controller.rules.geometry import turn_order
from controller.rules.payments import win_payments
from controller.rules.result import Result
from controller.rules.ruleset import SEATS, RuleSet


@dataclass(frozen=True)
class Settlement:
    changes: tuple[int, ...]    # per physical seat
    riichi_sticks: int          # on the table after the hand
    penalties: tuple[int, ...]  # added to each seat's end-of-game deduction


def _zero() -> list[int]:
    return [0] * SEATS


def _wins(rules: RuleSet, dealer: int, honba: int, result: Result) -> list[int]:
    changes, nearest_only = _zero(), rules.multiple_ron_sticks == "nearest_winner"
    collector = stick_collector(rules, result)
    for win in result.winners:
        counters = 0 if nearest_only and win.seat != collector else honba
        for payer, amount in win_payments(rules, dealer, win, result, counters).items():
            changes[payer] -= amount
            changes[win.seat] += amount
    return changes


def stick_collector(rules: RuleSet, result: Result) -> int:
    """The winner who takes the sticks: on a multiple ron, the first in turn after the
    discarder (the winner nearest the discarder's right)."""
    if result.kind == "tsumo":
        return result.winners[0].seat
    seats = {w.seat for w in result.winners}
    return next(s for s in turn_order(rules, result.discarder)[1:] if s in seats)


def _collect_sticks(rules: RuleSet, result: Result, sticks: int, changes: list[int]) -> None:
    """The sticks on the table and this hand's bets go to the collector (on a multiple ron,
    one winner only), but that a winning declarer gets his own bet back (own_bet_back)."""
    collector = stick_collector(rules, result)
    won = {w.seat for w in result.winners} if rules.multiple_ron_sticks == "own_bet_back" else {collector}
    for s in result.riichi:
        changes[s if s in won else collector] += rules.deposit
    changes[collector] += sticks * rules.deposit


def _noten(rules: RuleSet, tenpai: tuple[int, ...]) -> list[int]:
    changes, k, n = _zero(), len(tenpai), rules.players
    if 0 < k < n:
        total = rules.draw.noten_total
        for s in rules.seats:
            changes[s] = total // k if s in tenpai else -(total // (n - k))
    return changes


def _chombo(rules: RuleSet, dealer: int, offender: int) -> list[int]:
    c, changes = rules.chombo, _zero()
    for s in rules.seats:
        if s != offender:
            amount = c.dealer_pays_each if offender == dealer else (c.to_dealer if s == dealer else c.to_others)
            changes[s] += amount
            changes[offender] -= amount
    return changes


def settle(rules: RuleSet, dealer: int, honba: int, sticks: int, result: Result) -> Settlement:
    penalties = _zero()
    if result.kind == "chombo":
        # a re-deal: the riichi bets of the hand are returned, so they are never taken
        if rules.chombo.mode == "final":
            penalties[result.offender] = rules.chombo.final_penalty
            return Settlement(tuple(_zero()), sticks, tuple(penalties))
        return Settlement(tuple(_chombo(rules, dealer, result.offender)), sticks, tuple(penalties))
    changes = _noten(rules, result.tenpai) if result.kind == "draw" else _wins(rules, dealer, honba, result)
    for s in result.riichi:
        changes[s] -= rules.deposit
    if result.kind == "draw":
        return Settlement(tuple(changes), sticks + len(result.riichi), tuple(penalties))
    _collect_sticks(rules, result, sticks, changes)
    return Settlement(tuple(changes), 0, tuple(penalties))
