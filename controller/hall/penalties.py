"""The penalties a tournament director gives besides the tables' own chombo, as the EMA's
rules have them (Riichi Competition Rules 2016, section 5), and the plain corrections.
Pure: each is a row of its own in the hall's store, with who, when and why.

- ``points``: a point penalty at the referee's discretion (obstruction: 8,000 or 12,000,
  serious or repeated cases 12,000 to 48,000; a telephone; passing information),
  deducted after the uma, so the ranks at the table stay (5.4-5.6);
- ``late``: 1,000 points a minute for a player up to 10 minutes late, deducted the same
  way; later than that, a substitute plays (5.7);
- ``warning``: a clear warning, no points, kept for the repeated cases;
- ``disqualified``: the player is ranked at the bottom of the result list, his results
  still counted (5.5, 5.8);
- ``correction``: table points added (or taken off) to set a result right.
"""
from __future__ import annotations

PENALTY_KINDS = ("points", "late", "warning", "disqualified")
KINDS = ("correction", *PENALTY_KINDS)
LATE_POINTS = 1000   # a minute
MAX_LATE = 10        # minutes; later, a substitute plays


class PenaltyError(ValueError):
    """A penalty the rules do not give; the message says why."""


def penalty_points(kind: str, points: int | None = None, minutes: int | None = None) -> int:
    """The table points a penalty of ``kind`` adds (0 or less); PenaltyError."""
    if kind == "points":
        if points is None or points <= 0:
            raise PenaltyError("a points penalty needs the points deducted, more than 0 (e.g. 8000)")
        return -points
    if points is not None:
        raise PenaltyError(f"a {kind} penalty takes no points")
    if kind == "late":
        if minutes is None or not 1 <= minutes <= MAX_LATE:
            raise PenaltyError(f"a late penalty is for 1 to {MAX_LATE} minutes late (a player later than that is "
                               f"replaced by a substitute)")
        return -LATE_POINTS * minutes
    if minutes is not None:
        raise PenaltyError(f"a {kind} penalty takes no minutes")
    if kind not in PENALTY_KINDS:
        raise PenaltyError(f"unknown penalty {kind!r}; the penalties are {', '.join(PENALTY_KINDS)}")
    return 0
