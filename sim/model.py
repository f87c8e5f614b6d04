"""The physical table: tile sets, walls, displays, marker, lamp, dice, dead wall, dora, lid.

The model holds state only; the firmware decides what may happen and when. Mechanical
effects are applied when an operation completes, so an aborted operation leaves the
table as it was before it. What moves is recorded in `motion` (subsystem -> operation),
from which the transient locations "shuffling" and "raising" are derived.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from firmware_protocol.catalog import DISPLAY_MODES
from firmware_protocol.profile import Profile
from sim.tiles import tile_set
from sim.walls import SEATS, Position, Walls


@dataclass
class TileSet:
    name: str
    tiles: list[str]
    location: str  # at rest: "on_table", "collected" or "stacked"
    walls: Walls | None = None  # while stacked or on the table


@dataclass
class SeatDisplay:
    """A seat display, holding exactly what it was last told (None: never told)."""

    seat: int
    scores: tuple[int, ...] | None = None  # all four, as sent: difference mode needs them
    mode: str | None = None
    dealer: int | None = None
    error: int = 0  # 0: no error shown
    text: str = ""

    @property
    def score(self) -> int | None:
        return None if self.scores is None else self.scores[self.seat]


@dataclass(frozen=True)
class Round:
    wind: int  # prevailing wind, 0 East .. 3 North
    hand: int
    honba: int
    riichi_sticks: int


@dataclass
class CentreDisplay:
    round: Round | None = None
    error: int = 0
    text: str = ""


@dataclass(frozen=True)
class DeadWall:
    breaker: int
    position: int
    length: int


@dataclass
class WindMarker:
    wind: int = 0
    seat: int = 0


@dataclass
class Geometry:
    """What `configure` chose for the next stacking; volatile (back to the profile on reset)."""

    players: int
    stacks: tuple[int, ...]


class TableModel:
    def __init__(self, profile: Profile, seed: int = 0) -> None:
        self.profile = profile
        # Separate streams: retries and resets shuffle more often but roll the same dice.
        self._tile_rng = random.Random(f"{seed}:tiles")
        self._dice_rng = random.Random(f"{seed}:dice")
        self.geometry = Geometry(profile.players, profile.stacks)
        # Power-on: one set stacked in the lifts ready to rise, the other in the hopper.
        self.sets = [TileSet("A", tile_set(profile.tiles), "collected"),
                     TileSet("B", tile_set(profile.tiles), "collected")]
        self.stack(self.sets[0])
        self.motion: dict[str, str] = {}
        self.lid_open = False
        self.wind_marker = WindMarker()
        self.dead_wall: DeadWall | None = None
        self.dora_flipped: list[Position] = []
        self.dice: tuple[int, ...] = ()
        self.clear_volatile()

    def clear_volatile(self) -> None:
        """What an MCU reset forgets: displays, lamp, the configured geometry."""
        self.seat_displays = [SeatDisplay(s) for s in range(SEATS)]
        self.centre_display = CentreDisplay()
        self.dealer_lamp: int | None = None
        self.geometry = Geometry(self.profile.players, self.profile.stacks)

    # --- queries -------------------------------------------------------------------
    def location(self, tile_set: TileSet) -> str:
        if tile_set.location == "collected" and "shuffler" in self.motion:
            return "shuffling"
        if tile_set.location == "stacked" and "lifts" in self.motion:
            return "raising"
        return tile_set.location

    def set_at(self, location: str) -> TileSet | None:
        """The set resting at `location` (at most one set rests at each)."""
        return next((s for s in self.sets if s.location == location), None)

    @property
    def walls_up(self) -> bool:
        return self.set_at("on_table") is not None

    @property
    def centre_open(self) -> bool:
        return "centre" in self.motion

    @property
    def walls(self) -> Walls:
        """The walls standing on the table."""
        on_table = self.set_at("on_table")
        if on_table is None:
            raise LookupError("no walls are up")
        return on_table.walls

    def tile_at(self, seat: int, stack: int, level: str) -> str:
        return self.walls.tile_at(seat, stack, level)

    def dead_wall_stacks(self) -> list[Position]:
        if self.dead_wall is None:
            return []
        d = self.dead_wall
        return self.walls.dead_wall(d.breaker, d.position, d.length)

    def dora_indicators(self) -> list[str]:
        """The face-up tiles: the top tile of each flipped stack, in flipping order."""
        return [self.tile_at(p.seat, p.stack, "top") for p in self.dora_flipped]

    # --- mechanical effects, applied when an operation completes ------------------
    def collect(self, stray: int = 0) -> int:
        """Take the played set in; `stray` -1 loses a tile on the way, +1 picks one up."""
        played = self.set_at("on_table")
        played.location, played.walls = "collected", None
        if stray < 0:
            del played.tiles[stray:]
        elif stray > 0:
            played.tiles += self._tile_rng.sample(played.tiles, stray)
        self.dead_wall, self.dora_flipped = None, []
        return len(played.tiles)

    def stack(self, tile_set: TileSet) -> None:
        self._tile_rng.shuffle(tile_set.tiles)
        tile_set.walls = Walls(tile_set.tiles, self.geometry.stacks)
        tile_set.location = "stacked"

    def raise_walls(self) -> None:
        self.set_at("stacked").location = "on_table"

    def roll_dice(self, count: int) -> tuple[int, ...]:
        self.dice = tuple(self._dice_rng.randint(1, 6) for _ in range(count))
        return self.dice

    def flip_dora(self, at: Position) -> None:
        if at not in self.dora_flipped:
            self.dora_flipped.append(at)

    def restore_tile_counts(self) -> None:
        """The operator puts a lost tile back or takes a stray one out."""
        for s in self.sets:
            if len(s.tiles) != self.profile.tiles:
                s.tiles = tile_set(self.profile.tiles)

    # --- displays -------------------------------------------------------------------
    def show_scores(self, scores: list[int], mode: int, dealer: int) -> None:
        for display in self.seat_displays:
            display.scores, display.mode, display.dealer = tuple(scores), DISPLAY_MODES[mode], dealer

    def displays_in(self, mask: int, zero_is_all: bool) -> list[SeatDisplay | CentreDisplay]:
        """The displays a seat bit mask names (bit s: seat s); 0 names the centre alone
        (`show_text`) or every display (`show_error`)."""
        centre = [self.centre_display] if self.profile.centre_display else []
        seats = self.seat_displays if self.profile.seat_displays else []
        if mask == 0:
            return centre + (seats if zero_is_all else [])
        return [d for d in seats if mask >> d.seat & 1]
