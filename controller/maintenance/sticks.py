"""The point-stick check (protocol 1.1): after each hand, each seat's tray, as the table's
stick reader counts it, against the ledger.

The ledger stays the record: a mismatch is no fault and stops nothing. It is logged, kept
for `status` (``sticks``), published as a ``sticks`` event, and shown on the centre
display, so that the players recount before the next hand. A table without a reader
(every 1.0 table) is never asked.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from firmware_protocol.codes import Code

from controller.language import ENGLISH, Words
from controller.table.facade import Table, TableError

log = logging.getLogger("mjtable.sticks")

CENTRE_TEXT_BYTES = 40  # what Table.show_text sends at most


@dataclass(frozen=True)
class StickReport:
    hand: int                            # the seq of the hand just settled
    trays: dict[int, int]                # seat: points the reader counted
    ledger: dict[int, int]               # seat: points the ledger holds
    wrong_slot: tuple[int, ...]          # seats with a stick in a wrong slot

    @property
    def mismatched(self) -> list[int]:
        return [seat for seat, points in self.ledger.items() if self.trays[seat] != points]

    @property
    def agrees(self) -> bool:
        return not self.mismatched and not self.wrong_slot

    def describe(self) -> str:
        parts = [f"seat {s} tray {self.trays[s]} ledger {self.ledger[s]} ({self.trays[s] - self.ledger[s]:+d})"
                 for s in self.mismatched]
        parts += [f"seat {s} has a stick in a wrong slot" for s in self.wrong_slot]
        return (f"E{Code.STICK_MISMATCH} after hand {self.hand}: " + "; ".join(parts)
                + "; the ledger counts, recount the sticks")

    def centre_text(self, words: Words = ENGLISH) -> str:
        """Each seat to recount with its difference, else (too long) the seats alone."""
        seats = sorted({*self.mismatched, *self.wrong_slot})
        parts = [words.say("S{seat} {difference}", seat=s, difference=format(self.trays[s] - self.ledger[s], "+d"))
                 if s in self.mismatched else words.say("S{seat} slot", seat=s) for s in seats]
        text = words.say("sticks? {seats}", seats=" ".join(parts))
        return text if len(text.encode()) <= CENTRE_TEXT_BYTES else words.say(
            "sticks? seats {seats}", seats=" ".join(map(str, seats)))

    def as_dict(self) -> dict[str, Any]:
        return {"hand": self.hand, "agrees": self.agrees, "trays": [self.trays[s] for s in sorted(self.trays)],
                "mismatched": self.mismatched, "wrong_slot": list(self.wrong_slot),
                "message": None if self.agrees else self.describe()}


def compare(hand: int, totals: Sequence[int], wrong_slot: int, scores: Sequence[int | None],
            seats: Iterable[int]) -> StickReport:
    """The reader's totals (one per side) against the ledger's scores, on the seats in play."""
    seats = list(seats)
    return StickReport(hand, {s: totals[s] for s in seats}, {s: scores[s] or 0 for s in seats},
                       tuple(s for s in seats if wrong_slot >> s & 1))


class StickCheck:
    def __init__(self, table: Table, publish: Callable[..., None]) -> None:
        self.table = table
        self._publish = publish
        self.last: StickReport | None = None

    async def after_hand(self, hand: int, scores: Sequence[int | None], seats: Iterable[int]) -> None:
        """Read the trays and compare; never raises: a reader that cannot be read is logged."""
        if not (self.table.capabilities and self.table.capabilities.stick_reader):
            return
        try:
            self.last = compare(hand, *await self.table.read_sticks(), scores, seats)
            if self.last.agrees:
                log.info("stick reader agrees with the ledger after hand %d", hand)
                return
            log.warning("stick reader: %s", self.last.describe())
            self._publish("sticks", **self.last.as_dict())
            await self.table.show_text(self.last.centre_text(self.table.words))
        except TableError as exc:
            log.warning("stick reader not read after hand %d: %s", hand, exc)

    def status(self) -> dict[str, Any] | None:
        return None if self.last is None else self.last.as_dict()
