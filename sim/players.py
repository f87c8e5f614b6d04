"""Simulated players: seeded, plausible hand results in the control API's format.

They know the table only as players do: how many sit down, whether the rule set counts
han and fu or points, its minimum, whether riichi and multiple ron exist. The sim never
imports the controller, so the caller passes these facts in a :class:`TableRules`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

# (han, fu) that exist, weighted roughly as they turn up at a table.
RON_HANDS = [((1, 30), 10), ((1, 40), 8), ((2, 30), 8), ((2, 40), 6), ((3, 30), 5), ((3, 40), 4),
             ((2, 25), 3), ((4, 30), 3), ((4, 25), 1), ((5, 30), 3), ((6, 40), 2), ((8, 30), 1),
             ((1, 50), 2), ((3, 70), 1), ((11, 40), 0.3)]
TSUMO_HANDS = [((2, 20), 8), ((1, 30), 8), ((2, 30), 6), ((3, 20), 4), ((3, 30), 4), ((1, 40), 4),
               ((4, 20), 2), ((4, 30), 2), ((3, 25), 2), ((5, 30), 2), ((6, 30), 1), ((8, 40), 0.5)]
OUTCOMES = {"ron": 44, "tsumo": 30, "draw": 18, "multi_ron": 2, "yakuman": 0.6, "chombo": 0.4}


@dataclass(frozen=True)
class TableRules:
    seats: tuple[int, ...] = (0, 1, 2, 3)
    scoring: str = "han_fu"          # or "points"
    min_points: int = 0              # points scoring: the rule set's minimum
    riichi: bool = True
    multiple_ron: bool = True
    chombo: bool = True
    immunity: bool = False           # a discard win may have no responsible player (Zung Jung)


def _weighted(rng: random.Random, table):
    values, weights = zip(*table)
    return rng.choices(values, weights)[0]


class Players:
    def __init__(self, rules: TableRules, seed: int = 0) -> None:
        self.rules = rules
        self.rng = random.Random(seed)

    def riichi_declarations(self) -> list[int]:
        """Seats that declare riichi during the coming hand."""
        if not self.rules.riichi:
            return []
        return [s for s in self.rules.seats if self.rng.random() < 0.18]

    def kans(self) -> int:
        return 1 if self.rng.random() < 0.08 else 0

    def thinking_time(self) -> float:
        """Seconds of play before the result is entered (real-time mode)."""
        return self.rng.uniform(240, 600)

    def result(self, riichi: list[int]) -> dict:
        kind = _weighted(self.rng, OUTCOMES.items())
        if kind == "multi_ron" and not self.rules.multiple_ron:
            kind = "ron"
        if kind == "chombo" and not self.rules.chombo:
            kind = "draw"
        base = {"riichi": list(riichi)} if self.rules.riichi else {}
        if kind == "draw":
            tenpai = sorted(s for s in self.rules.seats if s in riichi or self.rng.random() < 0.35)
            return {"kind": "draw", "tenpai": tenpai, **base}
        if kind == "chombo":
            return {"kind": "chombo", "offender": self.rng.choice(self.rules.seats)}
        if kind == "tsumo":
            winner = self.rng.choice(self.rules.seats)
            return {"kind": "tsumo", "winners": [self._win(winner, TSUMO_HANDS)], **base}
        discarder = self.rng.choice(self.rules.seats)
        others = [s for s in self.rules.seats if s != discarder]
        count = 2 if kind == "multi_ron" else 1
        winners = sorted(self.rng.sample(others, count))
        limit = kind == "yakuman"
        return {"kind": "ron", "discarder": discarder,
                "winners": [self._win(w, RON_HANDS, limit=limit, discarder=discarder) for w in winners], **base}

    def _win(self, seat: int, hands, *, limit: bool = False, discarder: int | None = None) -> dict:
        if self.rules.scoring == "points":
            points = max(self.rules.min_points, int(self.rng.lognormvariate(3.0, 0.6)))
            win = {"seat": seat, "points": min(points, 320)}
            if discarder is not None and self.rules.immunity and self.rng.random() < 0.1:
                win["responsible"] = None  # e.g. Zung Jung same-round immunity
            return win
        if limit:
            return {"seat": seat, "yakuman": 1}
        han, fu = _weighted(self.rng, hands)
        return {"seat": seat, "han": han, "fu": fu}
