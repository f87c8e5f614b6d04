"""Tile names and the physical tile sets a table can hold.

Names: suits "1m".."9m", "1p".."9p", "1s".."9s"; honours "E", "S", "W", "N", "Wh", "G",
"R"; flowers and seasons "f1".."f8" (one of each).
"""
from __future__ import annotations

from firmware_protocol.profile import SET_SIZES

HONOURS = ("E", "S", "W", "N", "Wh", "G", "R")
FLOWERS = tuple(f"f{i}" for i in range(1, 9))


def _suit(suit: str, ranks=range(1, 10)) -> tuple[str, ...]:
    return tuple(f"{r}{suit}" for r in ranks)


_RIICHI_KINDS = _suit("m") + _suit("p") + _suit("s") + HONOURS
_SANMA_KINDS = _suit("m", (1, 9)) + _suit("p") + _suit("s") + HONOURS  # 2m-8m removed


def tile_set(size: int) -> list[str]:
    """The tiles of a complete set of `size` tiles, in a fixed order."""
    if size == 136:
        return [t for t in _RIICHI_KINDS for _ in range(4)]
    if size == 144:
        return [t for t in _RIICHI_KINDS for _ in range(4)] + list(FLOWERS)
    if size == 108:
        return [t for t in _SANMA_KINDS for _ in range(4)]
    raise ValueError(f"no tile set of {size} tiles (known: {SET_SIZES})")
