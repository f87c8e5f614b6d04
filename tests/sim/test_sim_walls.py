"""Tile sets and wall geometry (docs/GEOMETRY.md)."""
from __future__ import annotations

from collections import Counter

import pytest

from sim.tiles import tile_set
from sim.walls import Position, Walls


def test_tile_sets():
    assert Counter(tile_set(136))["5m"] == 4 and len(set(tile_set(136))) == 34
    assert set(tile_set(144)) - set(tile_set(136)) == {f"f{i}" for i in range(1, 9)}
    assert "5m" not in tile_set(108) and Counter(tile_set(108))["1m"] == 4 and len(tile_set(108)) == 108


def test_tiles_are_laid_seat_by_seat_from_each_walls_right_end():
    tiles = [str(i) for i in range(136)]
    walls = Walls(tiles, (17,) * 4)
    assert (walls.tile_at(0, 1, "top"), walls.tile_at(0, 1, "bottom")) == ("0", "1")
    assert walls.tile_at(1, 1, "top") == "34"
    with pytest.raises(IndexError):
        walls.tile_at(0, 18, "top")


def test_walking_clockwise_and_counter_clockwise_turns_the_corners():
    walls = Walls(tile_set(108), (13, 14, 13, 14))
    assert walls.clockwise(Position(1, 14)) == Position(0, 1)
    assert walls.counter_clockwise(Position(0, 1)) == Position(1, 14)
    assert walls.counter_clockwise(Position(3, 1)) == Position(0, 13)


def test_dead_wall_runs_counter_clockwise_from_the_break():
    walls = Walls(tile_set(136), (17,) * 4)
    assert walls.dead_wall(0, 9, 7) == [Position(0, k) for k in range(9, 2, -1)]
