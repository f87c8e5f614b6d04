"""How good the serial line is now: the share of frames lost to noise, recently.

The link's counters only grow; a figure over the last window says whether the line is bad
now. It goes into `status` (the snapshot's `link`) and, rate-limited, into the log, so a
table that plays slowly on a noisy line says why.
"""
from __future__ import annotations

import logging

from firmware_protocol.log_throttle import LogThrottle

log = logging.getLogger("mjtable.link")

WINDOW = 10.0        # seconds a figure covers
POOR = 0.02          # an error rate from which the line is called poor
WARN_EVERY = 60.0    # seconds between two warnings about the same poor line


class LineQuality:
    def __init__(self) -> None:
        self._stats = None
        self._base: tuple[int, int, int, int] | None = None
        self._base_at = 0.0
        self._warnings = LogThrottle(WARN_EVERY)
        self.error_rate = 0.0       # damaged / all frames received in the last window
        self.retransmit_rate = 0.0  # retransmitted / all frames sent in the last window

    def watch(self, stats) -> None:
        """Follow a new session's statistics (the figures carry over until the next window)."""
        self._stats, self._base = stats, None

    def sample(self, now: float) -> None:
        if self._base is not None and now - self._base_at < WINDOW:
            return  # at every heartbeat tick: most are inside the window
        counts = self._counts()
        if self._base is None:
            self._base, self._base_at = counts, now
            return
        good, bad, sent, resent = (a - b for a, b in zip(counts, self._base))
        self.error_rate = bad / (good + bad) if good + bad else 0.0
        self.retransmit_rate = resent / sent if sent else 0.0
        self._base, self._base_at = counts, now
        if self.error_rate >= POOR and self._warnings.allow(now) is not None:
            log.warning("poor serial line: %.0f %% of frames damaged, %.0f %% of frames sent again "
                        "(check the cable and its routing); play goes on, slower",
                        100 * self.error_rate, 100 * self.retransmit_rate)

    def _counts(self) -> tuple[int, int, int, int]:
        s = self._stats
        return s.frames_received, s.crc_errors + s.truncated + s.oversize, s.frames_sent, s.retransmits

    def as_dict(self) -> dict[str, float]:
        return {"error_rate": round(self.error_rate, 4), "retransmit_rate": round(self.retransmit_rate, 4)}
