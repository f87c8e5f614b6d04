"""What the table facade tells its user unasked: small frozen records, one class per kind.

The results of commands come back from the commands themselves; these are the things
that happen besides them — the table stopped on a fault, a seat button was pressed, the
link was lost, the table rebooted, or a message came that nothing waited for.
"""
from __future__ import annotations

from dataclasses import dataclass

from firmware_protocol.catalog import SENSORS, SUBSYSTEMS, Message, value_name
from firmware_protocol.codes import Code, describe


@dataclass(frozen=True)
class Fault:
    code: int
    subsystem: str
    sensor: str
    expected: int
    counted: int
    detail: str = ""  # what the host saw, for faults it declares itself (a deadline passed)

    @classmethod
    def from_event(cls, msg: Message) -> "Fault":
        return cls(msg["code"], value_name(SUBSYSTEMS, msg["subsystem"]), value_name(SENSORS, msg["sensor"]),
                   msg["expected"], msg["counted"])

    def describe(self) -> str:
        text = f"E{self.code} {describe(self.code)}"
        if self.sensor != "none":
            text += f" at {self.sensor}"
        if self.code == Code.TILE_COUNT:
            text += f" (expected {self.expected}, counted {self.counted})"
        if self.detail:
            text += f": {self.detail}"
        return text


class TableEvent:
    """Base of the facade's events."""

    __slots__ = ()


@dataclass(frozen=True)
class TableFaulted(TableEvent):
    """The table stopped all motion (a `fault` event)."""

    fault: Fault


@dataclass(frozen=True)
class ButtonPressed(TableEvent):
    seat: int
    button: str  # a name from the catalog's BUTTONS


@dataclass(frozen=True)
class LinkDropped(TableEvent):
    """The link is lost and the facade closed; everything in flight failed with LinkLost."""


@dataclass(frozen=True)
class TableRebooted(TableEvent):
    """The table restarted (a new boot id): its volatile state is gone."""

    boot_id: int


@dataclass(frozen=True)
class UnexpectedMessage(TableEvent):
    """A message nothing waited for: a reply to no command, a completion of no operation."""

    message: Message
    why: str
