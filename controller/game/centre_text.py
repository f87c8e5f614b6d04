"""Lines of text the centre display shows in place of a device the table lacks.

The centre display has one line of text (40 bytes): the latest line wins, so each line
is short and says one thing. See docs/ARCHITECTURE.md, "Tables without optional devices".
"""
from __future__ import annotations

from collections.abc import Sequence

from controller import rules as R


def round_text(state: R.GameState) -> str:
    """For a wind marker or seat displays: the round, the dealer and the counters."""
    return (f"{R.hand_label(state)} dealer {state.dealer} honba {state.honba} "
            f"sticks {state.riichi_sticks}")


def scores_text(scores: Sequence[int | None]) -> str:
    """For seat displays: every side's score, seat 0 first; "-" for an empty side (sanma)."""
    return "scores " + " ".join("-" if s is None else str(s) for s in scores)


def break_text(break_after: tuple[int, int]) -> str:
    """For a dead-wall separator: where the players break the wall."""
    seat, stack = break_after
    return f"break: seat {seat} after stack {stack}"


def dora_text(index: int, at: tuple[int, int]) -> str:
    """For a dora flipper: the stack whose top tile the players turn up."""
    seat, stack = at
    return f"dora {index + 1}: seat {seat} stack {stack}"
