"""The four walls of a stacked tile set, with the geometry of docs/GEOMETRY.md.

Seat s owns the wall in front of it; its stacks are numbered from 1 at the wall's right
end as seen by the owner. Walking clockwise (the drawing direction) goes from stack k to
k+1 and past the last stack to stack 1 of seat s-1; counter-clockwise is the reverse.
"""
from __future__ import annotations

from dataclasses import dataclass

SEATS = 4
LEVELS = ("top", "bottom")


@dataclass(frozen=True)
class Position:
    seat: int
    stack: int  # 1-based from the owner's right


class Walls:
    """Tiles laid out in order: seat 0's stack 1 top, its bottom, seat 0's stack 2, ..."""

    def __init__(self, tiles: list[str], stacks: tuple[int, ...]) -> None:
        if len(stacks) != SEATS or 2 * sum(stacks) != len(tiles):
            raise ValueError(f"{len(tiles)} tiles do not fill walls of {list(stacks)} stacks")
        self.stacks = tuple(stacks)
        self._tiles = list(tiles)
        self._first = [2 * sum(stacks[:s]) for s in range(SEATS)]

    def tile_at(self, seat: int, stack: int, level: str) -> str:
        if not (0 <= seat < SEATS and 1 <= stack <= self.stacks[seat] and level in LEVELS):
            raise IndexError(f"no {level!r} tile at seat {seat} stack {stack} (walls {list(self.stacks)})")
        return self._tiles[self._first[seat] + 2 * (stack - 1) + LEVELS.index(level)]

    def clockwise(self, at: Position) -> Position:
        if at.stack < self.stacks[at.seat]:
            return Position(at.seat, at.stack + 1)
        return Position((at.seat - 1) % SEATS, 1)

    def counter_clockwise(self, at: Position) -> Position:
        if at.stack > 1:
            return Position(at.seat, at.stack - 1)
        nxt = (at.seat + 1) % SEATS
        return Position(nxt, self.stacks[nxt])

    def dead_wall(self, breaker: int, position: int, length: int) -> list[Position]:
        """The `length` stacks counter-clockwise of a break after stack `position` of
        the breaker's wall, nearest the break first."""
        at, out = Position(breaker, position), []
        for _ in range(length):
            out.append(at)
            at = self.counter_clockwise(at)
        return out
