"""Hand results as the control API and the journal write them, checked against the rule set.

A result is plain JSON data; ``parse_result`` turns it into a ``Result`` or raises
``ResultError`` with a message a player or director can act on. Nothing is changed by a
rejected result.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from controller.errors import MjtableError
from controller.rules.ruleset import HanFuScoring, RuleSet


class ResultError(MjtableError, ValueError):
    """A hand result the rule set cannot accept."""


_MISSING = object()  # "responsible" not given: the discarder is responsible

Who = Callable[[int], str]  # a seat as people know it: "Ann (seat 1, South)"


def seat_only(seat: int) -> str:
    return f"seat {seat}"


@dataclass(frozen=True)
class Win:
    seat: int
    han: int = 0
    fu: int | None = None
    yakuman: int = 0
    points: int = 0
    responsible: Any = _MISSING  # a seat, None (no one) or _MISSING (the discarder)


@dataclass(frozen=True)
class Result:
    kind: str
    winners: tuple[Win, ...] = ()
    discarder: int | None = None
    tenpai: tuple[int, ...] = ()
    riichi: tuple[int, ...] = ()
    offender: int | None = None
    abortive: bool = False

    def payer_of(self, win: Win) -> int | None:
        """Who pays the hand value of a discard win (None: shared by all)."""
        return self.discarder if win.responsible is _MISSING else win.responsible


_KEYS = {
    "ron": ({"kind", "discarder", "winners"}, {"riichi"}),
    "tsumo": ({"kind", "winners"}, {"riichi"}),
    "draw": ({"kind"}, {"tenpai", "riichi", "abortive"}),
    "chombo": ({"kind", "offender"}, {"riichi"}),
}


def _keys(data: dict, required: set[str], optional: set[str], where: str) -> None:
    unknown = sorted(set(data) - required - optional, key=str)
    if unknown:
        raise ResultError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: "
                    f"{', '.join(sorted(required | optional))}")
    missing = sorted(required - set(data))
    if missing:
        raise ResultError(f"{where}: missing key(s) {', '.join(map(repr, missing))}")


def _int(value: Any, where: str, low: int = 0) -> int:
    # bool is an int in Python but never a count or a seat in a result
    if type(value) is not int or value < low:
        raise ResultError(f"{where} must be an integer ≥ {low}, got {value!r}")
    return value


def _seat(rules: RuleSet, value: Any, where: str) -> int:
    if type(value) is not int or value not in rules.seats:
        raise ResultError(f"{where} {value!r} is not a seat in play; allowed: {', '.join(map(str, rules.seats))}")
    return value


def _seats(rules: RuleSet, value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ResultError(f"{where} must be a list of seats, got {value!r}")
    seats = tuple(_seat(rules, v, f"{where} seat") for v in value)
    if len(set(seats)) != len(seats):
        raise ResultError(f"{where} lists a seat twice: {list(seats)}")
    return seats


# ----------------------------------------------------------------------------- hand values

def check_han_fu(p: HanFuScoring, han: int, fu: int | None, tsumo: bool) -> str | None:
    """Why this han/fu combination cannot exist, or None. (Seven pairs: fixed fu, at least
    2 han, 3 on a self-draw; 20 fu: pinfu on a self-draw only, so at least 2 han.)"""
    if han >= p.limits[0].han and fu is None:
        return None
    if fu is None:
        return f"give the fu too (below {p.limits[0].han} han they set the hand's value)"
    if fu == p.seven_pairs_fu and fu % 10:
        least = 3 if tsumo else 2
        return None if han >= least else f"{fu} fu (seven pairs) needs at least {least} han, got {han}"
    if fu % 10 or not 20 <= fu <= p.max_fu:
        return f"fu {fu} does not exist; allowed: {p.seven_pairs_fu} or a multiple of 10 from 20 to {p.max_fu}"
    if fu == 20 and not tsumo:
        return "20 fu exists only on a self-draw (pinfu tsumo)"
    if fu == 20 and han < 2:
        return f"20 fu needs at least 2 han (pinfu and self-draw), got {han}"
    return None


def _hanfu_win(rules: RuleSet, w: dict, where: str, tsumo: bool) -> Win:
    p = rules.payment
    if "yakuman" in w:
        _keys(w, {"seat", "yakuman"}, set(), where)
        count = _int(w["yakuman"], f"{where} yakuman", 1)
        if count > p.max_yakuman:
            raise ResultError(f"{where}: {count} yakuman; this rule set counts at most {p.max_yakuman}")
        return Win(seat=w["seat"], yakuman=count)
    _keys(w, {"seat", "han"}, {"fu"}, where)
    han = _int(w["han"], f"{where} han", 1)
    if han > p.max_han:
        top = p.limits[-1]
        raise ResultError(f"{where}: {han} han is more than {rules.name} takes ({p.max_han}); a typing error? "
                          f"Every hand from {top.han} han pays {top.name}")
    fu = None if w.get("fu") is None else _int(w["fu"], f"{where} fu", 1)
    problem = check_han_fu(p, han, fu, tsumo)
    if problem:
        hand = f"{han} han {fu} fu" if fu is not None else f"{han} han"
        raise ResultError(f"{where}, {hand} {'self-drawn' if tsumo else 'on a discard'}: {problem}")
    return Win(seat=w["seat"], han=han, fu=fu)


def _points_win(rules: RuleSet, w: dict, where: str, tsumo: bool) -> Win:
    p = rules.payment
    optional = {"responsible"} if (p.scheme == "zung_jung" and not tsumo) else set()
    _keys(w, {"seat", "points"}, optional, where)
    points = _int(w["points"], f"{where} points")
    if not p.allows(points):
        raise ResultError(f"{where}: {points} points; allowed: {p.allowed_text()}")
    responsible = w.get("responsible", _MISSING)
    if responsible not in (None, _MISSING):
        _seat(rules, responsible, f"{where} responsible")
        if responsible == w["seat"]:
            raise ResultError(f"{where}: the winner cannot be responsible for his own hand")
    return Win(seat=w["seat"], points=points, responsible=responsible)


def _winners(rules: RuleSet, value: Any, tsumo: bool, who: Who) -> tuple[Win, ...]:
    if not isinstance(value, list) or not value:
        raise ResultError(f"winners must be a non-empty list, got {value!r}")
    if tsumo and len(value) > 1:
        raise ResultError(f"a self-draw has one winner, got {len(value)}")
    if len(value) > 1 and rules.multiple_ron != "allowed":
        raise ResultError(f"{len(value)} winners: {rules.name} takes only the winner nearest the discarder (head bump)")
    parse = _hanfu_win if rules.payment.scheme == "riichi" else _points_win
    wins = []
    for i, w in enumerate(value):
        if not isinstance(w, dict):
            raise ResultError(f"winners[{i}] must be an object, got {w!r}")
        _seat(rules, w.get("seat"), f"winners[{i}] seat")
        wins.append(parse(rules, w, f"the win of {who(w['seat'])}", tsumo))
    seats = [w.seat for w in wins]
    if len(set(seats)) != len(seats):
        raise ResultError(f"winners list a seat twice: {seats}")
    return tuple(wins)


# ----------------------------------------------------------------------------- whole result

def _people(seats, who: Who) -> str:
    return ", ".join(who(s) for s in seats)


def check_riichi(rules: RuleSet, scores: tuple[int, ...], seats: tuple[int, ...], who: Who = seat_only) -> None:
    """ResultError if these seats may not declare riichi: the rule set has none, or one of
    them has less than ``riichi.min_score`` (null: any score, even below zero)."""
    if seats and rules.riichi is None:
        raise ResultError(f"riichi by {_people(seats, who)}: {rules.name} has no riichi")
    least = rules.riichi.min_score if rules.riichi else None
    poor = [s for s in seats if least is not None and scores[s] < least]
    if poor:
        raise ResultError(f"riichi by {_people(poor, who)}: {rules.name} needs at least {least} points to declare")


def _riichi(rules: RuleSet, scores: tuple[int, ...], data: dict, who: Who) -> tuple[int, ...]:
    seats = _seats(rules, data.get("riichi", []), "riichi")
    check_riichi(rules, scores, seats, who)
    return seats


def parse_result(rules: RuleSet, scores: tuple[int, ...], data: Any, who: Who = seat_only) -> Result:
    """The result, or ResultError naming each seat as ``who`` gives it."""
    if not isinstance(data, dict):
        raise ResultError(f"a result must be an object, got {data!r}")
    kind = data.get("kind")
    if kind not in _KEYS:
        raise ResultError(f"kind {kind!r} is unknown; allowed: {', '.join(_KEYS)}")
    _keys(data, *_KEYS[kind], "result")
    riichi = _riichi(rules, scores, data, who)
    if kind == "chombo":
        return Result(kind, offender=_seat(rules, data["offender"], "offender"), riichi=riichi)
    if kind == "draw":
        return _draw(rules, data, riichi, who)
    winners = _winners(rules, data["winners"], kind == "tsumo", who)
    discarder = None
    if kind == "ron":
        discarder = _seat(rules, data["discarder"], "discarder")
        if discarder in {w.seat for w in winners}:
            raise ResultError(f"the discarder, {who(discarder)}, is among the winners")
    return Result(kind, winners=winners, discarder=discarder, riichi=riichi)


def _draw(rules: RuleSet, data: dict, riichi: tuple[int, ...], who: Who) -> Result:
    abortive = data.get("abortive", False)
    if type(abortive) is not bool:
        raise ResultError(f"abortive must be true or false, got {abortive!r}")
    if abortive and not rules.draw.abortive:
        raise ResultError(f"{rules.name} has no abortive draws; allowed: an exhaustive draw "
                          "(\"abortive\": false, with its tenpai seats) or a chombo")
    tenpai = _seats(rules, data.get("tenpai", []), "tenpai")
    if abortive and tenpai:
        raise ResultError("an abortive draw has no tenpai list")
    noten_riichi = [s for s in riichi if s not in tenpai]
    if not abortive and noten_riichi:
        raise ResultError(f"{_people(noten_riichi, who)} declared riichi, so must be tenpai at an exhaustive draw "
                          "(noten riichi is chombo)")
    return Result("draw", tenpai=tenpai, riichi=riichi, abortive=abortive)
