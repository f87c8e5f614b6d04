"""The director's changes to the hall's state: a correction or penalty, a Swiss round.

One function per change, given the hall's store. The running hall is the one owner of its
database: it runs these for the requests on its control socket (controller/hall/control.py)
and pushes the standings; `mjtable hall` runs them itself only when no hall runs, taking
the database's lock as the hall would. Either way a refusal is a ``Refusal`` that changed
nothing.
"""
from __future__ import annotations

from dataclasses import asdict

from controller.api.ops import is_int
from controller.club.schedule import TableSeating
from controller.errors import Refusal
from controller.hall import seating as S
from controller.hall.penalties import KINDS, PenaltyError, penalty_points
from controller.hall.standings import standings, unreported
from controller.hall.store import HallStore, HallStoreError

OPS = ("record", "swiss")


def handle(store: HallStore, op: str, args: dict) -> dict:
    """One request's reply fields: ``record`` a correction or penalty, ``swiss`` a round."""
    try:
        if op == "record":
            return {"correction": asdict(record(store, **_record_args(args)))}
        if op == "swiss" and is_int(args.get("round")) and is_int(args.get("seed", 1)):
            return {"tables": [list(s.numbers) for s in swiss_round(store, args["round"], args.get("seed", 1))]}
    except (HallStoreError, PenaltyError) as exc:
        raise Refusal("bad_request", str(exc)) from None
    raise Refusal("bad_request", f"the hall's requests are {', '.join(OPS)}, with their arguments")


def _record_args(args: dict) -> dict:
    fields = ("player", "kind", "who", "why", "round", "points", "minutes")
    if set(args) - set(fields) or not (is_int(args.get("player")) and args.get("kind") in KINDS
                                        and all(isinstance(args.get(k), str) and args[k].strip() for k in ("who", "why"))
                                        and all(args.get(k) is None or is_int(args[k])
                                                for k in ("round", "points", "minutes"))):
        raise Refusal("bad_request", f"a record is player (a number), kind ({', '.join(KINDS)}), who and why "
                                     f"(text), and round, points, minutes (numbers) where they apply")
    return {k: args.get(k) for k in fields}


def record(store: HallStore, player: int, kind: str, who: str, why: str, round: int | None = None,
           points: int | None = None, minutes: int | None = None):
    """A correction (``points`` added, either sign) or a penalty of ``kind``, with who,
    when and why; PenaltyError, HallStoreError."""
    if kind == "correction":
        if not points or minutes is not None:
            raise PenaltyError("a correction is the table points added (not 0; negative: taken off)")
    else:
        points = penalty_points(kind, points, minutes)
    if round is not None and round not in {s.round for s in store.seating()}:
        raise PenaltyError(f"the seating has no round {round}")
    return store.correct(player, points, who.strip(), why.strip(), round, kind)


def swiss_round(store: HallStore, round_: int, seed: int = 1) -> list[TableSeating]:
    """Round ``round_`` seated by the standings after the rounds before it (once the last
    of them is reported), added to the hall's seating; HallStoreError."""
    seating = store.seating()
    before = sorted({s.round for s in seating if s.round < round_})
    missing = unreported(store.tables(), seating, store.results(), before[-1]) if before else []
    if missing:
        raise HallStoreError(f"round {before[-1]} has tables that have not reported ({', '.join(map(str, missing))}): "
                             f"Swiss seats by the standings after it")
    rounds: dict[int, list[list[int]]] = {}
    for s in seating:
        rounds.setdefault(s.round, []).append(list(s.numbers))
    lines = standings(store.players(), store.results(), seating, store.corrections())
    ranked = [line.player.number for line in lines if not line.player.substitute and not line.disqualified]
    try:
        tables = S.swiss(ranked, rounds.values(), seed)
    except ValueError as exc:
        raise HallStoreError(str(exc)) from None
    seated = [TableSeating(round_, t, tuple(numbers)) for t, numbers in enumerate(tables, 1)]
    store.add_round(round_, seated)
    return seated
