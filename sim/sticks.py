"""The point-stick reader (protocol 1.1 `read_sticks`): what lies in each seat's tray.

The simulated players settle every hand exactly as the seat displays last showed, so a
tray holds its seat's displayed score (nothing before the first `show_scores`). The
reader misreads: at the profile's `misread_rate` a tray reads one stick more or less,
at its `wrong_slot_rate` a stick lies in a wrong slot (flagged, and counted at the
slot's value). Readings are drawn from the table's seed, so a run repeats.
"""
from __future__ import annotations

import random

from firmware_protocol.catalog import Message
from sim.model import TableModel
from firmware_protocol.profile import StickReader
from sim.walls import SEATS

STICKS = (100, 1000, 5000, 10000)  # the riichi stick values


class Reader:
    def __init__(self, model: TableModel, reader: StickReader, seed: int = 0) -> None:
        self.model = model
        self.reader = reader
        self._rng = random.Random(f"{seed}:sticks")

    def read(self) -> Message:
        totals, wrong_slot = [], 0
        for seat, display in enumerate(self.model.seat_displays[:SEATS]):
            total = display.score or 0
            if self._rng.random() < self.reader.misread_rate:
                total += self._rng.choice((-1, 1)) * self._rng.choice(STICKS)
            if self._rng.random() < self.reader.wrong_slot_rate:
                wrong_slot |= 1 << seat
                total += self._rng.choice(STICKS[1:]) - STICKS[0]  # a 100 stick in a larger stick's slot
            totals.append(total)
        return Message("sticks", {"totals": totals, "wrong_slot": wrong_slot})
