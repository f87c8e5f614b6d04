"""Seating generated for the director who has none, and the repeat-meetings report. Pure.

``shuffled`` seats every round at once, as few repeat meetings as it can find: each round
starts from the best of many random draws and is then improved by swapping players
between tables while that lowers the number of pairs who met before; the best of a few
such schedules is kept (a seed makes it reproducible). ``swiss`` seats the next round by the standings: the first four at table
1, the next four at table 2, and so on, a player moved down a table where that avoids a
pair meeting again. A table's winds are drawn. Players are tournament numbers; a round's
tables are lists of numbers, East first.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

DRAWS = 200  # random draws a round starts from
TRIES_WORK = 1600  # whole schedules tried: this many over the number of players

Round = list[list[int]]


def pairs(table: Iterable[int]) -> list[tuple[int, int]]:
    return [tuple(sorted(p)) for p in combinations(table, 2)]


def meetings(rounds: Iterable[Round]) -> Counter:
    """How often each pair of players has met."""
    met: Counter = Counter()
    for round_ in rounds:
        for table in round_:
            met.update(pairs(table))
    return met


def _repeats(round_: Round, met: Counter) -> int:
    return sum(met[p] for table in round_ for p in pairs(table))


def shuffled(players: Sequence[int], rounds: int, seed: int = 1, size: int = 4) -> list[Round]:
    """The best of a few whole schedules (more for a small field, where they are cheap)."""
    if len(players) % size:
        raise ValueError(f"{len(players)} players do not fill tables of {size}: add substitutes or take some out")
    rng = random.Random(seed)
    tries = max(1, TRIES_WORK // len(players))
    return min((_schedule(players, rounds, rng, size) for _ in range(tries)),
               key=lambda r: sum(n - 1 for n in meetings(r).values() if n > 1))


def _schedule(players: Sequence[int], rounds: int, rng: random.Random, size: int) -> list[Round]:
    done: list[Round] = []
    met: Counter = Counter()
    for _ in range(rounds):
        best = min((_draw(players, rng, size) for _ in range(DRAWS)), key=lambda r: _repeats(r, met))
        if _repeats(best, met):
            best = _improved(best, met)
        for table in best:
            rng.shuffle(table)  # the winds
        done.append(best)
        met.update(p for table in best for p in pairs(table))
    return done


def _draw(players: Sequence[int], rng: random.Random, size: int) -> Round:
    order = list(players)
    rng.shuffle(order)
    return [order[i:i + size] for i in range(0, len(order), size)]


def _improved(round_: Round, met: Counter) -> Round:
    """Move a player who meets someone again: swap him with a player of another table
    while a swap lowers the repeats (only such players are tried: a big field stays quick)."""
    better = True
    while better:
        better = False
        for a, i in _meeting_again(round_, met):
            for b in range(len(round_)):
                if b != a and any(_swap_helps(round_, met, a, i, b, j) for j in range(len(round_[b]))):
                    better = True
                    break
    return round_


def _meeting_again(round_: Round, met: Counter) -> list[tuple[int, int]]:
    return [(a, i) for a, table in enumerate(round_) for i, p in enumerate(table)
            if any(met[tuple(sorted((p, q)))] for q in table if q != p)]


def _swap_helps(round_: Round, met: Counter, a: int, i: int, b: int, j: int) -> bool:
    """Swap round_[a][i] and round_[b][j] if that lowers the repeats (and say so)."""
    before = _repeats([round_[a], round_[b]], met)
    round_[a][i], round_[b][j] = round_[b][j], round_[a][i]
    if _repeats([round_[a], round_[b]], met) < before:
        return True
    round_[a][i], round_[b][j] = round_[b][j], round_[a][i]
    return False


def swiss(ranked: Sequence[int], before: Iterable[Round], seed: int = 1, size: int = 4) -> Round:
    """The next round by the standings (``ranked`` best first)."""
    if len(ranked) % size:
        raise ValueError(f"{len(ranked)} players do not fill tables of {size}")
    met = meetings(before)
    left, tables = list(ranked), []
    while left:
        table = [left.pop(0)]
        while len(table) < size:
            fresh = next((p for p in left if not any(met[tuple(sorted((p, q)))] for q in table)), left[0])
            if left.index(fresh) >= size:  # no further than the next table down: the standings decide
                fresh = left[0]
            left.remove(fresh)
            table.append(fresh)
        tables.append(table)
    rng = random.Random(seed)
    for table in tables:
        rng.shuffle(table)
    return tables


def pantheon_text(rounds: Iterable[Round]) -> str:
    """The seating as Pantheon's predefined seating text (controller/hall/entry.py reads it)."""
    return "\n\n".join("\n".join("-".join(map(str, t)) for t in r) for r in rounds) + "\n"


def repeat_report(rounds: Iterable[Round]) -> list[str]:
    """Per player, who he meets more than once: ``7: 3 twice, 12 twice``; a line of
    totals first."""
    met = meetings(rounds)
    repeated = {p: n for p, n in met.items() if n > 1}
    by_player: dict[int, list[str]] = {}
    for (a, b), n in sorted(repeated.items()):
        by_player.setdefault(a, []).append(f"{b} {_times(n)}")
        by_player.setdefault(b, []).append(f"{a} {_times(n)}")
    head = f"{len(repeated)} pairs meet more than once" if repeated else "no pair meets twice"
    return [head, *(f"{p}: {', '.join(sorted(v, key=lambda s: int(s.split()[0])))}" for p, v in sorted(by_player.items()))]


def _times(n: int) -> str:
    return {2: "twice"}.get(n, f"{n} times")
