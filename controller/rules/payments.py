"""What one winning hand pays: seat → amount, for each payment scheme.

Only the hand value and its counters are here; riichi sticks, draws and chombo are in
settlement.py. Every figure comes from the rule set.
"""
from __future__ import annotations

from controller.rules.result import Result, Win
from controller.rules.ruleset import HanFuScoring, McrScoring, RuleSet, ZungJungScoring


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def base_points(p: HanFuScoring, win: Win) -> int:
    """The riichi base: fixed from the limits table up, otherwise fu × 2^(han+2) capped."""
    if win.yakuman:
        return p.yakuman_base * win.yakuman
    limit = next((lim for lim in reversed(p.limits) if win.han >= lim.han), None)
    if limit is not None:
        return limit.base
    base = win.fu * 2 ** (win.han + 2)
    if p.kiriage and base >= p.kiriage_min_base:
        return p.mangan_base
    return min(base, p.mangan_base)


def limit_name(p: HanFuScoring, win: Win) -> str | None:
    """The limit the hand is paid at (mangan ... yakuman), None below mangan."""
    if win.yakuman:
        return "yakuman" if win.yakuman == 1 else f"{win.yakuman}× yakuman"
    limit = next((lim for lim in reversed(p.limits) if win.han >= lim.han), None)
    if limit is not None:
        return limit.name
    fixed = base_points(p, win) == p.mangan_base  # capped, or rounded up (kiriage)
    return p.limits[0].name if fixed else None


def _hanfu(rules: RuleSet, dealer: int, win: Win, result: Result, honba: int) -> dict[int, int]:
    """Payer seat → amount for a riichi hand (counters included)."""
    p, c = rules.payment, rules.counters
    base = base_points(p, win)
    if result.kind == "ron":
        times = p.ron_dealer if win.seat == dealer else p.ron_other
        return {result.discarder: _round_up(base * times, p.unit) + honba * c.ron}
    payers = [s for s in rules.seats if s != win.seat]
    def times(payer: int) -> int:
        if win.seat == dealer:
            return p.tsumo_dealer_wins_each
        return p.tsumo_dealer_pays if payer == dealer else p.tsumo_others_pay
    return {s: _round_up(base * times(s), p.unit) + honba * c.tsumo_each for s in payers}


def _zung_jung(rules: RuleSet, win: Win, result: Result) -> dict[int, int]:
    """Formal scheme: the winner collects 3× the value; on a discard win above the threshold
    the bystanders pay the threshold each and the responsible player the rest."""
    p: ZungJungScoring = rules.payment
    others = [s for s in rules.seats if s != win.seat]
    payer = result.payer_of(win) if result.kind == "ron" else None
    if payer is None or p.method == "uniform" or win.points <= p.threshold:
        return {s: win.points for s in others}
    bystanders = [s for s in others if s != payer]
    rest = len(others) * win.points - len(bystanders) * p.threshold
    return {**{s: p.threshold for s in bystanders}, payer: rest}


def _mcr(rules: RuleSet, win: Win, result: Result) -> dict[int, int]:
    """Self-draw: each pays hand + base; discard: the discarder hand + base, others base."""
    p: McrScoring = rules.payment
    others = [s for s in rules.seats if s != win.seat]
    if result.kind == "tsumo":
        return {s: win.points + p.base for s in others}
    return {s: p.base + (win.points if s == result.discarder else 0) for s in others}


def win_payments(rules: RuleSet, dealer: int, win: Win, result: Result, honba: int) -> dict[int, int]:
    """Payer seat → amount paid to ``win.seat`` for this hand."""
    scheme = rules.payment.scheme
    if scheme == "riichi":
        return _hanfu(rules, dealer, win, result, honba)
    return _zung_jung(rules, win, result) if scheme == "zung_jung" else _mcr(rules, win, result)
