"""A table's hardware profile: what it has (reported by `identify`) and how long it takes.

The host (its config and `mjtable run`) and the simulator both read it, so it sits with the
protocol, below both. Profiles live in ``config/tables/*.yaml``; see four-port.yaml for a
commented example. A shipped profile is named by its file's stem (``four-port``), any other
by its path.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from firmware_protocol.catalog import WIND_MARKER_KINDS
from mjtable_config import CONFIG_DIR, named_file, shipped_names
from mjtable_config.schema import ConfigError, Issue, Problems, Record, shape, spec, validate_file

SET_SIZES = (136, 144, 108)  # the tile sets a table can hold
DEFAULT_PROFILE = CONFIG_DIR / "tables" / "four-port.yaml"
_NAME_BYTES = 31  # what a 64-byte identity frame leaves for the model and firmware names
_SECONDS = spec(min=0)
_U8 = spec(min=0, max=0xFF)  # a byte of the identity reply
_SHARE = spec(min=0, max=1)  # a share of readings


@dataclass(frozen=True)
class Timings:
    """Mechanical durations in seconds at speed 1."""

    collect: float = field(metadata=_SECONDS)
    shuffle: float = field(metadata=_SECONDS)
    raise_walls: float = field(metadata=_SECONDS)
    dice: float = field(metadata=_SECONDS)
    separate: float = field(metadata=_SECONDS)
    dora_flip: float = field(metadata=_SECONDS)
    marker: float = field(metadata=_SECONDS)
    build_limit: float = field(metadata=_SECONDS)  # a shuffle and stack running longer is a BUILD_TIMEOUT fault

    def problems(self) -> Problems:
        if self.shuffle > self.build_limit:
            yield ("shuffle",), (f"{self.shuffle} is longer than build_limit {self.build_limit}, every shuffle "
                                 "would time out; allowed: at most build_limit")


@dataclass(frozen=True, kw_only=True)
class StickReader:
    """A point-stick reader under the seats' trays (protocol 1.1); each reading of a tray
    misreads one stick, or finds one in a wrong slot, at these rates."""

    misread_rate: float = field(default=0.0, metadata=_SHARE)
    wrong_slot_rate: float = field(default=0.0, metadata=_SHARE)


@dataclass(frozen=True, kw_only=True)
class Profile:
    """The file's shape too: the ``link`` keys are read from its ``link:`` mapping."""

    model: str
    firmware: str
    tiles: int = field(metadata=spec(min=1))
    stacks: tuple[int, ...] = field(metadata=spec(min=1, max=0xFF, length=(4, 4)))  # per side, seat 0 first
    players: int = field(default=4, metadata=spec(min=3, max=4))
    tile_sets: int = field(default=2, metadata=_U8)
    dice: int = field(metadata=spec(min=1, max=4))
    dead_wall_separator: bool
    dora_flipper: bool
    seat_displays: bool = True
    centre_display: bool = True
    wind_marker: str = field(metadata=spec(choices=WIND_MARKER_KINDS))
    seat_buttons: bool = True
    heartbeat_timeout_ms: int = field(metadata=spec(key="link.heartbeat_timeout_ms", min=1, max=0xFFFF))
    frame_size: int = field(metadata=spec(key="link.frame_size", **_U8))
    receive_window: int = field(metadata=spec(key="link.receive_window", **_U8))
    timings: Timings
    protocol: str = field(default="1.1", metadata=spec(choices=("1.0", "1.1")))  # "1.0": a table of before
    # the maintenance and stick messages
    stick_reader: StickReader | None = None

    def problems(self) -> Problems:
        if len(self.model.encode()) + len(self.firmware.encode()) > _NAME_BYTES:
            yield ("firmware",), (f"with the model, {len(self.model.encode()) + len(self.firmware.encode())} bytes; "
                                  f"allowed: model and firmware together at most {_NAME_BYTES} bytes, to fit the "
                                  "identity reply")
        if self.tiles not in SET_SIZES:
            yield ("tiles",), f"{self.tiles} is not a known tile set; allowed: {', '.join(map(str, SET_SIZES))}"
        elif 2 * sum(self.stacks) != self.tiles:
            yield ("stacks",), (f"{list(self.stacks)} hold {2 * sum(self.stacks)} tiles; allowed: four walls "
                                f"holding {self.tiles} tiles (two per stack)")
        if self.tile_sets != 2:
            yield ("tile_sets",), f"{self.tile_sets}; allowed: 2 (the simulated table has two tile sets)"


def find_profile(name_or_path: str | Path, base: Path | None = None) -> Path:
    """A shipped profile's name (config/tables/<name>.yaml) or a path (relative to ``base``);
    raises ConfigError for a name that is not shipped."""
    path = named_file("tables", name_or_path, base)
    if path.parent == CONFIG_DIR / "tables" and not path.is_file():
        raise ConfigError([Issue("", None, "", f"no table profile named {str(name_or_path)!r}; "
                                 f"allowed: {', '.join(shipped_names('tables'))} or a path to a YAML file")])
    return path


def profile_shape() -> Record:
    """A table profile file's schema."""
    return shape(Profile, kind="table-profile", what="a table profile")


def load_profile(path: str | Path) -> Profile:
    """Load and check a profile: a shipped profile's name or a path; raises ConfigError
    listing every problem."""
    return validate_file(profile_shape(), find_profile(path))
