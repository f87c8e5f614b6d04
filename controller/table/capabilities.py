"""What a table can do, from its `identify` reply (or its profile), and whether it can play
a rule set.

The controller sends a command only to a device the table has and shows the rest another
way (docs/ARCHITECTURE.md, "Tables without optional devices"); it refuses at start only a
rule set the table cannot play at all. `cannot_play` is that one check, shared by the
self-test, `start` and `mjtable check-config`.

Before any of that, `identity_problem` refuses a table whose announced figures the host
cannot work with (a receive window of 0 would stall the link, a heartbeat timeout of 1 ms
would have it send heartbeats without pause): such a table is refused, not retried.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from firmware_protocol.catalog import FEATURES, WIND_MARKER_KINDS, split_version
from firmware_protocol.frame import MIN_FRAME
from firmware_protocol.link import MAX_WINDOW

from controller.errors import Refusal
from controller.rules.ruleset import RuleSet

MIN_HEARTBEAT_MS = 200  # the host sends a heartbeat every third of it: at most 15 a second
SIDES = 4
MAX_DICE = 4


class UnusableTable(Refusal):
    """The table's identity announces figures the host cannot work with: nothing to retry."""

    def __init__(self, message: str) -> None:
        super().__init__("not_allowed", message)


def identity_problem(identity: Mapping[str, Any]) -> str | None:
    """What in an `identity` reply (wire values) makes the table unusable, naming the field
    and its value; None if the host can work with it."""
    i = identity
    ranges = {"receive_window": range(1, MAX_WINDOW + 1), "heartbeat_timeout_ms": range(MIN_HEARTBEAT_MS, 0x10000),
              "frame_size": range(MIN_FRAME, 0x100), "tile_sets": range(1, 0x100), "dice": range(1, MAX_DICE + 1),
              "wind_marker": range(len(WIND_MARKER_KINDS))}
    for field, allowed in ranges.items():
        if i[field] not in allowed:
            return f"{field} {i[field]}; allowed: {allowed.start} to {allowed.stop - 1}"
    stacks = list(i["stacks"])
    if len(stacks) != SIDES or 0 in stacks:
        return f"stacks {stacks}; allowed: a largest stack for each of the {SIDES} sides, each at least 1"
    if i["tiles"] == 0 or i["tiles"] % 2 or i["tiles"] > 2 * sum(stacks):
        return f"tiles {i['tiles']}; allowed: an even number the walls {stacks} hold, two tiles a stack"
    return None


@dataclass(frozen=True)
class Capabilities:
    model: str
    tiles: int                 # tiles per set
    stacks: tuple[int, ...]    # the lifts' largest stacks per side, seat 0 first
    tile_sets: int
    dice: int
    dead_wall_separator: bool
    dora_flipper: bool
    seat_displays: bool
    centre_display: bool
    wind_marker: str           # "none", "lamp" or "motorised"
    seat_buttons: bool
    # protocol 1.1 (the `identity_1_1` reply); a 1.0 table has none of them
    protocol_minor: int = 0
    counters: bool = False
    sensor_test: bool = False
    stick_reader: bool = False

    @classmethod
    def from_identity(cls, identity: Mapping[str, Any]) -> "Capabilities":
        """From the `identity` or `identity_1_1` reply, where the wind marker is its wire number."""
        features = identity.get("features", 0)
        return cls._from({**identity, "protocol_minor": split_version(identity["protocol_version"])[1],
                          **{f: bool(features >> i & 1) for i, f in enumerate(FEATURES)}},
                         WIND_MARKER_KINDS[identity["wind_marker"]])

    @classmethod
    def from_profile(cls, profile: Mapping[str, Any]) -> "Capabilities":
        """From a table profile's fields (config/tables/*.yaml), where the wind marker is named:
        a 1.1 table keeps counters and has the sensor test; a `stick_reader` section adds the reader."""
        v1_1 = profile.get("protocol", "1.1") == "1.1"
        return cls._from({**profile, "protocol_minor": int(v1_1), "counters": v1_1, "sensor_test": v1_1,
                          "stick_reader": v1_1 and profile.get("stick_reader") is not None}, profile["wind_marker"])

    @classmethod
    def _from(cls, values: Mapping[str, Any], wind_marker: str) -> "Capabilities":
        # extra keys are not capabilities; a missing 1.1 one is absent
        fields = {name: values[name] for name in cls.__dataclass_fields__ if name in values}
        return cls(**{**fields, "stacks": tuple(values["stacks"]), "wind_marker": wind_marker})

    @property
    def has_wind_marker(self) -> bool:
        return self.wind_marker != "none"

    def has_display_for(self, command: str, seats: int = 0) -> bool:
        """Whether the table has a display that `command` (a display command) addresses."""
        if seats or command == "show_scores":
            return self.seat_displays  # a seat mask names seat displays only
        if command == "show_error":
            return self.seat_displays or self.centre_display  # mask 0: every display
        return self.centre_display  # show_round, and show_text with mask 0

    def absent(self) -> list[str]:
        """The optional devices this table lacks, for the log."""
        present = {"dead-wall separator": self.dead_wall_separator, "dora flipper": self.dora_flipper,
                   "seat displays": self.seat_displays, "centre display": self.centre_display,
                   "wind marker": self.has_wind_marker, "seat buttons": self.seat_buttons}
        return [device for device, there in present.items() if not there]


def cannot_play(capabilities: Capabilities, rules: RuleSet) -> str | None:
    """Why this table cannot play `rules`, naming both; None if it can.

    Only what the rules truly need counts: the tile set, the walls and the dice. A missing
    separator, flipper, marker, display or button has a fallback and never refuses a game.
    """
    c = capabilities
    reasons = []
    if c.tiles != rules.tiles:
        reasons.append(f"its tile sets hold {c.tiles} tiles, the rules play with {rules.tiles}")
    elif any(need > most for need, most in zip(rules.stacks_per_side, c.stacks)):
        reasons.append(f"its lifts stack at most {list(c.stacks)} per side, the rules need "
                       f"{list(rules.stacks_per_side)}")
    if rules.dice.per_throw > c.dice:
        reasons.append(f"it rolls {c.dice} dice, the rules throw {rules.dice.per_throw} at a time")
    if not reasons:
        return None
    return f"table {c.model} cannot play rule set {rules.name}: " + "; ".join(reasons)
