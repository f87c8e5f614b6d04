"""The one-line plain form of a table's status, for logs, pipes and a fleet's lines: no
rich here, so a path that prints plain lines does not load the live view's library.

A pure function of the controller's status snapshot, a dict in which a missing key means
"not known yet" (before the first game, before the dice, ...).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

Snapshot = Mapping[str, Any]

SEATS = 4


def seats_in_play(snap: Snapshot) -> list[int]:
    """The seats with a player; sanma leaves one side empty (its score, if any, is no player's)."""
    return list(snap.get("seats") or range(snap.get("players") or SEATS))


def per_seat(snap: Snapshot, values, show) -> str:
    """One entry per side of the table, seat 0 first; "-" for the empty side and unknowns."""
    seats = seats_in_play(snap)
    return " ".join(show(v) if seat in seats and v is not None else "-" for seat, v in enumerate(values))


def dice_text(snap: Snapshot) -> str | None:
    dice = (snap.get("hand_in_play") or {}).get("dice")
    return "+".join(map(str, dice)) if dice else None


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.001 else f"{seconds * 1000:.1f} ms"


def plain_line(snapshot: Snapshot) -> str:
    """One line for logs and pipes, e.g. ``[E2 honba 1] playing | 31000 27000 30000 32000 | dice 3+4``."""
    hand = snapshot.get("hand")
    counters = ([f"honba {snapshot['honba']}"] if snapshot.get("honba") is not None else []) + (
        [f"sticks {snapshot['riichi_sticks']}"] if snapshot.get("riichi_sticks") else [])
    parts = [" ".join(filter(None, [f"[{' '.join([hand, *counters])}]" if hand else None, snapshot.get("state")]))]
    if snapshot.get("scores"):
        parts.append(per_seat(snapshot, snapshot["scores"], str))
    if dice_text(snapshot):
        parts.append(f"dice {dice_text(snapshot)}")
    if snapshot.get("waiting_for"):
        parts.append(f"waiting for {snapshot['waiting_for']}")
    if snapshot.get("fault"):
        parts.append(f"FAULT {snapshot['fault']}")
    if (snapshot.get("link") or {}).get("srtt") is not None:
        parts.append(f"link rtt {ms(snapshot['link']['srtt'])}")
    if snapshot.get("finished"):
        parts.append("game over")
    return " | ".join(p for p in parts if p)


class View:
    """What the demo drives: an update per change of the snapshot, closed at the end."""

    def update(self, snapshot: Snapshot) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class PlainView(View):
    """A line per change, for pipes, files and the journal."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._last: str | None = None

    def update(self, snapshot: Snapshot) -> None:
        line = plain_line(snapshot)
        if line != self._last:
            self._last = line
            self._stream.write(line + "\n")
            self._stream.flush()
