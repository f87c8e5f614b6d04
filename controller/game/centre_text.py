"""Lines of text the centre display shows in place of a device the table lacks.

The centre display has one line of text (40 bytes): the latest line wins, so each line
is short and says one thing. See docs/ARCHITECTURE.md, "Tables without optional devices".
Each is said in the table's language (``words``: controller/language.py).
"""
from __future__ import annotations

from collections.abc import Sequence

from controller import rules as R
from controller.language import ENGLISH, N_, Words

# The winds as the displays name them ("East": 東), and by their first letter ("E": 東).
WINDS = (N_("East"), N_("South"), N_("West"), N_("North"))
WIND_MARKS = (N_("E"), N_("S"), N_("W"), N_("N"))


def hand_text(state: R.GameState, words: Words = ENGLISH) -> str:
    """The hand in the round: ``E1``, 東1局."""
    return words.say("{wind}{hand}", wind=words.say(WIND_MARKS[state.round_wind]), hand=state.hand_in_round)


def round_text(state: R.GameState, words: Words = ENGLISH, chinese: bool = False) -> str:
    """For a wind marker or seat displays: the round, the dealer and the counters (a
    Chinese rule set's own terms where it is played)."""
    fields = dict(hand=hand_text(state, words), dealer=state.dealer, honba=state.honba, sticks=state.riichi_sticks)
    if chinese:
        return words.say_in("chinese", "{hand} dealer {dealer} honba {honba} sticks {sticks}", **fields)
    return words.say("{hand} dealer {dealer} honba {honba} sticks {sticks}", **fields)


def scores_text(scores: Sequence[int | None], words: Words = ENGLISH) -> str:
    """For seat displays: every side's score, seat 0 first; "-" for an empty side (sanma)."""
    return words.say("scores {scores}", scores=" ".join("-" if s is None else str(s) for s in scores))


def break_text(break_after: tuple[int, int], words: Words = ENGLISH) -> str:
    """For a dead-wall separator: where the players break the wall."""
    seat, stack = break_after
    return words.say("break: seat {seat} after stack {stack}", seat=seat, stack=stack)


def dora_text(index: int, at: tuple[int, int], words: Words = ENGLISH) -> str:
    """For a dora flipper: the stack whose top tile the players turn up."""
    seat, stack = at
    return words.say("dora {index}: seat {seat} stack {stack}", index=index + 1, seat=seat, stack=stack)
