"""The hands of a time-limited session after its warning signal (EMA 2016 §5.9), pure;
and the names its signals are known by (light: the CLI client and the journal import it).

The rule, as the EMA text words it: after the signal the current hand is finished and
``hands_after_signal`` more hands are played (one in EMA), unless the game is complete
before. A hand begins when the dice are thrown after the walls are built, so a signal
before the dice means the hand about to begin is the first of the hands after it (EMA:
"only the current hand" is played), and a signal after the dice adds the hand in play
(EMA: "two hands"). A chombo is a complete re-deal: it does not count as a hand.

`HandCount` is fed the events of the session in order — ``dice_thrown``, ``hand_ended``
(chombo or not), ``signal`` — and answers how many hands are left, whether the hand in
play or the next one is the last, and whether the game is over by the limit.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timezone

# The director's signals (the table's own clock gives the warning too).
SIGNALS = ("start", "warning")
STORED_KEY = "time_limit"  # where the store's hand record keeps a game's signals


def iso(seconds: float | None) -> str | None:
    """A reading of the session's clock (seconds since the epoch) as UTC ISO 8601."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class HandCount:
    hands_after_signal: int
    in_hand: bool = False          # a hand's dice are thrown and its result is not in yet
    hands_left: int | None = None  # hands still to finish once the signal sounded; None before it

    def dice_thrown(self) -> "HandCount":
        return replace(self, in_hand=True)

    def hand_ended(self, chombo: bool = False) -> "HandCount":
        left = self.hands_left
        if left is not None and not chombo and left > 0:
            left -= 1
        return replace(self, in_hand=False, hands_left=left)

    def signal(self) -> "HandCount":
        """The warning signal; a second one changes nothing."""
        if self.signalled:
            return self
        return replace(self, hands_left=self.hands_after_signal + int(self.in_hand))

    @property
    def signalled(self) -> bool:
        return self.hands_left is not None

    @property
    def last_hand(self) -> bool:
        """The hand in play (or, between hands, the next one) is the last of the session."""
        return self.hands_left == 1

    @property
    def over(self) -> bool:
        """Every hand after the signal is played: the game ends, whatever the rules say."""
        return self.hands_left == 0

    @classmethod
    def after_signal(cls, hands_after_signal: int, dice_thrown: bool, ended: Iterable[bool],
                     in_hand: bool) -> "HandCount":
        """The count rebuilt from the record: a signal given after (``dice_thrown``) or before
        the dice of its hand, then each hand ended since (True for a chombo), then whether
        the hand in play has its dice thrown."""
        count = cls(hands_after_signal, in_hand=dice_thrown).signal()
        for chombo in ended:
            count = count.dice_thrown().hand_ended(chombo)
        return count.dice_thrown() if in_hand else count
