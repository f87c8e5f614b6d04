"""A table's hardware profile: what it has (reported by `identify`) and how long it takes.

Profiles live in ``config/tables/*.yaml``; see four-port.yaml for a commented example. A
shipped profile is named by its file's stem (``four-port``), any other by its path.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from firmware_protocol.catalog import WIND_MARKER_KINDS
from mjtable_config import CONFIG_DIR, named_file, shipped_names
from sim import strict_yaml
from sim.strict_yaml import Choice, ConfigError, Optional
from sim.tiles import SET_SIZES

DEFAULT_PROFILE = CONFIG_DIR / "tables" / "four-port.yaml"
_NAME_BYTES = 31  # what a 64-byte identity frame leaves for the model and firmware names


@dataclass(frozen=True)
class Timings:
    """Mechanical durations in seconds at speed 1."""

    collect: float
    shuffle: float
    raise_walls: float
    dice: float
    separate: float
    dora_flip: float
    marker: float
    build_limit: float  # a shuffle and stack running longer is a BUILD_TIMEOUT fault


@dataclass(frozen=True)
class StickReader:
    """A point-stick reader under the seats' trays (protocol 1.1); each reading of a tray
    misreads one stick, or finds one in a wrong slot, at these rates."""

    misread_rate: float = 0.0
    wrong_slot_rate: float = 0.0


@dataclass(frozen=True)
class Profile:
    model: str
    firmware: str
    tiles: int
    stacks: tuple[int, ...]  # per side, seat 0 first
    players: int
    tile_sets: int
    dice: int
    dead_wall_separator: bool
    dora_flipper: bool
    seat_displays: bool
    centre_display: bool
    wind_marker: str
    seat_buttons: bool
    heartbeat_timeout_ms: int
    frame_size: int
    receive_window: int
    timings: Timings
    protocol: str = "1.1"  # "1.0": a table of before the maintenance and stick messages
    stick_reader: StickReader | None = None


_SECONDS = {name: float for name in Timings.__dataclass_fields__}
_SCHEMA = {
    "model": str,
    "firmware": str,
    "tiles": int,
    "stacks": [int],
    "players": Optional(int, 4),
    "tile_sets": Optional(int, 2),
    "dice": int,
    "dead_wall_separator": bool,
    "dora_flipper": bool,
    "seat_displays": Optional(bool, True),
    "centre_display": Optional(bool, True),
    "wind_marker": Choice(*WIND_MARKER_KINDS),
    "seat_buttons": Optional(bool, True),
    "link": {"heartbeat_timeout_ms": int, "frame_size": int, "receive_window": int},
    "timings": _SECONDS,
    "protocol": Optional(Choice("1.0", "1.1"), "1.1"),
    "stick_reader": Optional({"misread_rate": Optional(float, 0.0), "wrong_slot_rate": Optional(float, 0.0)}),
}


def find_profile(name_or_path: str | Path, base: Path | None = None) -> Path:
    """A shipped profile's name (config/tables/<name>.yaml) or a path (relative to ``base``);
    raises ConfigError for a name that is not shipped."""
    path = named_file("tables", name_or_path, base)
    if path.parent == CONFIG_DIR / "tables" and not path.is_file():
        raise ConfigError(f"no table profile named {str(name_or_path)!r}; allowed: "
                          f"{', '.join(shipped_names('tables'))} or a path to a YAML file")
    return path


def load_profile(path: str | Path) -> Profile:
    """Load and check a profile: a shipped profile's name or a path."""
    path = find_profile(path)
    data = strict_yaml.load(path, _SCHEMA)
    profile = Profile(
        **{k: v for k, v in data.items() if k not in ("link", "timings", "stacks", "stick_reader")},
        stacks=tuple(data["stacks"]),
        stick_reader=StickReader(**data["stick_reader"]) if data["stick_reader"] is not None else None,
        **data["link"],
        timings=Timings(**data["timings"]),
    )
    problem = _inconsistency(profile)
    if problem:
        raise ConfigError(f"{path}: {problem}")
    return profile


def _inconsistency(p: Profile) -> str | None:
    if len(p.model.encode()) + len(p.firmware.encode()) > _NAME_BYTES:
        return f"model and firmware: together at most {_NAME_BYTES} bytes, to fit the identity reply"
    if p.tiles not in SET_SIZES:
        return f"tiles: {p.tiles} is not a known tile set ({', '.join(map(str, SET_SIZES))})"
    if len(p.stacks) != 4 or 2 * sum(p.stacks) != p.tiles:
        return f"stacks: {list(p.stacks)} must be four walls holding {p.tiles} tiles (two per stack)"
    if p.players not in (3, 4):
        return f"players: must be 3 or 4, not {p.players}"
    if p.tile_sets != 2:
        return "tile_sets: the simulated table has two tile sets"
    if not 1 <= p.dice <= 4:
        return f"dice: must be 1-4, not {p.dice}"
    if p.heartbeat_timeout_ms <= 0 or p.heartbeat_timeout_ms > 0xFFFF:
        return "link.heartbeat_timeout_ms: must be 1-65535"
    slow = [k for k, v in vars(p.timings).items() if v < 0]
    if slow:
        return f"timings: negative durations: {', '.join(slow)}"
    if p.stick_reader and not all(0 <= r <= 1 for r in vars(p.stick_reader).values()):
        return "stick_reader: rates are shares of readings, 0 to 1"
    if p.timings.shuffle > p.timings.build_limit:
        return "timings: shuffle is longer than build_limit, every shuffle would time out"
    return None
