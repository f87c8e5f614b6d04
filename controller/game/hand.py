"""The hand in progress: what has been done at the table so far, and where a restart
carries on (the machine state stored with it)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from controller.game.machine import RESUME_POINTS
from controller.rules import HandSetup, RuleSet, clockwise

# Databases written before the machine state was the resume point kept a phase in the
# hand and free-form steps: each phase resumes at the first state it had not finished.
_RESUME_OF_PHASE = {"setup": "preparing", "raising": "raising", "raised": "rolling", "playing": "playing"}
# What a hand's stored record (the journal) keeps of its walls: the rest follows from the rules.
STORED_WALLS = ("breaker", "broken_wall", "dead_wall", "dora_indicators")


@dataclass
class Hand:
    seq: int
    label: str
    throws: list[list[int]] = field(default_factory=list)
    separated: bool = False
    dora_shown: int = 0        # indicators flipped or shown so far
    kans: int = 0
    riichi: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # a copy: the store's thread writes it later

    def walls(self, rules: RuleSet, setup: HandSetup) -> dict[str, Any]:
        """Where this hand's walls are broken, its dead wall and its live wall lie, with the
        dora indicators shown so far: the status's `walls` (docs/API.md "Wall positions");
        the hand's stored record keeps `STORED_WALLS` of it."""
        return {"stacks_per_side": list(rules.stacks_per_side), "breaker": setup.breaker,
                "broken_wall": setup.broken_wall, "break_after": list(setup.break_after),
                "dead_wall": [list(p) for p in setup.dead_wall],
                "dora_indicators": [list(p) for p in setup.dora_indicators[:self.dora_shown]],
                "live_start": list(clockwise(rules, setup.break_after, 1))}

    @classmethod
    def from_stored(cls, data: dict[str, Any], step: str) -> tuple["Hand", str]:
        """The hand and its resume point, from the store's `hand` and `step`."""
        data = dict(data)
        phase = data.pop("phase", None)
        if phase is not None:
            step = _RESUME_OF_PHASE.get(phase, "preparing")
        return cls(**data), step if step in RESUME_POINTS else "preparing"
