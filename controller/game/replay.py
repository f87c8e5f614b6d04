"""A stored game checked against its hands before it is resumed.

The store keeps the game state and, per hand, the result with what the controller made
of it. Replaying the results through the rules from the game's start must give every
stored hand and the stored state exactly: a changed digit anywhere (a damaged page that
SQLite did not notice, a hand edit) shows as a disagreement, which the controller
refuses to serve. The game in play has some tens of hands: the replay costs
milliseconds, whatever the history.
"""
from __future__ import annotations

import dataclasses

from controller import rules as R


def disagreement(rules: R.RuleSet, stored_state: dict, hands: list[dict]) -> str | None:
    """What in a stored game does not follow from its hands, or None when all of it does."""
    try:
        stored = R.GameState.from_dict(stored_state)
        state = R.new_game(rules, dealer=hands[0]["dealer"] if hands else stored.starting_dealer)
    except (KeyError, TypeError, ValueError, R.ResultError) as exc:
        return f"has a game state that cannot be read ({exc})"
    for seq, record in enumerate(hands, 1):
        problem = _differs(record, _before(state), f"hand {seq}", "from the hands before it")
        if problem:
            return problem
        try:
            outcome = R.apply_result(rules, state, record["result"])
        except (KeyError, TypeError, ValueError) as exc:  # ResultError is a ValueError
            return f"hand {seq}: its stored result cannot be replayed ({exc})"
        problem = _differs(record, _after(outcome), f"hand {seq}", "from its result")
        if problem:
            return problem
        state = outcome.state
    if state != stored:
        names = [f.name for f in dataclasses.fields(state) if getattr(state, f.name) != getattr(stored, f.name)]
        return (f"has a game state that disagrees with its {len(hands)} hand(s): "
                + "; ".join(f"{n} {_shown(getattr(stored, n))} stored, {_shown(getattr(state, n))} from the hands"
                            for n in names))
    return None


def _before(state: R.GameState) -> dict:
    return {"hand": R.hand_label(state), "dealer": state.dealer, "honba": state.honba,
            "riichi_sticks": state.riichi_sticks}


def _after(outcome: R.HandOutcome) -> dict:
    return {"payments": list(outcome.payments), "scores": list(outcome.state.scores),
            "riichi_sticks_after": outcome.riichi_sticks_after}


def _differs(record: dict, expected: dict, where: str, source: str) -> str | None:
    for key, value in expected.items():
        if record.get(key) != value:
            return f"{where}: {key} {_shown(record.get(key))} stored, {_shown(value)} {source}"
    return None


def _shown(value) -> str:
    return str(list(value)) if isinstance(value, tuple) else str(value)
