"""The last messages to and from the table, written to the log when something goes wrong.

A fault or a lost link is easiest to understand from what the host and the table said
just before it (Klipper's `dump_debug` does the same for its MCUs). Keeping them costs a
bounded deque; nothing is logged until `dump`.
"""
from __future__ import annotations

import collections
import logging
from typing import Any, NamedTuple

from firmware_protocol.catalog import Message

RECENT_MESSAGES = 64  # a few heartbeats' worth and the steps before them
SENT, RECEIVED = "sent", "received"


class Exchanged(NamedTuple):  # a tuple: one is made for every message, a frozen dataclass costs three times as much
    direction: str  # SENT or RECEIVED
    time: float     # the event loop's clock
    name: str
    args: dict[str, Any]


class Traffic:
    def __init__(self, size: int = RECENT_MESSAGES) -> None:
        self.recent: collections.deque[Exchanged] = collections.deque(maxlen=size)

    def record(self, direction: str, msg: Message, now: float) -> None:
        self.recent.append(Exchanged(direction, now, msg.name, msg.args))

    def dump(self, log: logging.Logger, why: str, now: float) -> None:
        """One log record: `why`, then each message kept, oldest first, timed back from `now`."""
        lines = [f"{m.time - now:9.3f} s  {m.direction:<8}  {shown(m.name, m.args)}" for m in self.recent]
        log.info("%s; the last %d messages with the table:\n%s", why, len(lines), "\n".join(lines))


def shown(name: str, args: dict[str, Any]) -> str:
    """A message for the log: `roll_dice(count=2)`, `walls_raised`."""
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})" if args else name
