"""At most one log record per so many seconds for a repeating warning, the ones held back
counted in the next: a noisy line or a confused peer must not flood the log.

Here so that the protocol's own layers may use it; the controller uses the same one.
"""
from __future__ import annotations

import logging


class LogThrottle:
    def __init__(self, every: float) -> None:
        self.every = every
        self._logged_at: float | None = None
        self._held = 0

    def allow(self, now: float) -> int | None:
        """None: hold this record back; else how many were held back before it."""
        if self._logged_at is not None and now - self._logged_at < self.every:
            self._held += 1
            return None
        held, self._logged_at, self._held = self._held, now, 0
        return held

    def warning(self, logger: logging.Logger, now: float, message: str, *args: object,
                held_back: str = "more since the last warning") -> None:
        """`logger.warning(message, *args)` unless held back; "(N `held_back`)" told after it."""
        held = self.allow(now)
        if held is None:
            return
        logger.warning(f"{message} ({held} {held_back})" if held else message, *args)
