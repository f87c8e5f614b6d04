"""What every chaos test shares: clean reference games, the operator who presses retry,
the journal comparison, and the counts printed at the end of the run."""
from __future__ import annotations

import functools
from collections import Counter

from controller.app.simulation import GameRun, run_game

from ..support import retry

# Totals over the whole chaos run (commands, resets, kills, retransmits, crc errors...),
# printed by conftest.pytest_terminal_summary.
COUNTS: Counter[str] = Counter()

# Rule-relevant fields of a hand record. Dice, breaker, dead wall and dora positions are
# left out: when a reset or a kill interrupts a dice roll the table rolls again, which
# moves the break but changes nothing the rules or the scores depend on.
RULE_FIELDS = ("hand", "honba", "riichi_sticks", "dealer", "result", "payments", "scores", "riichi_sticks_after")


@functools.cache
def clean_game(ruleset: str, seed: int) -> GameRun:
    """The undisturbed game a disturbed one must end identical to (played once per run)."""
    return run_game(ruleset, seed=seed)


def rules_view(hands: list[dict]) -> list[dict]:
    # How many dora indicators were revealed counts too: a kan's indicator must not be lost.
    return [{**{k: h[k] for k in RULE_FIELDS}, "dora_revealed": len(h["dora_indicators"])} for h in hands]


def assert_same_game(hands: list[dict], standings, clean: GameRun) -> None:
    assert len(hands) == len(clean.hands)
    for seq, (got, want) in enumerate(zip(rules_view(hands), rules_view(clean.hands)), 1):
        assert got == want, f"hand {seq} differs from the clean run"
    assert standings == clean.standings


def operator(delay: float = 30.0, on_fault=None):
    """The operator who presses retry (tests/support/retry.py), counting the faults shown."""
    def shown(event: dict) -> None:
        COUNTS["faults shown"] += 1
        if on_fault is not None:
            on_fault(event)
    return retry.operator(delay, on_fault=shown)


def count_link(stats) -> None:
    """Add one session's link statistics to the totals."""
    if stats is not None:
        COUNTS["retransmits"] += stats.retransmits
        COUNTS["crc errors"] += stats.crc_errors
