"""An asyncio event loop whose clock jumps instead of waiting.

Host and simulator run unchanged on it: timers (`call_later`, `asyncio.sleep`,
`wait_for`) fire in order of their virtual deadlines, but whenever nothing is ready the
clock jumps to the next deadline instead of sleeping, so thirty mechanical seconds of
shuffling cost microseconds. Only in-process transports belong on this loop: real file
descriptors are polled but never waited for.
"""
from __future__ import annotations

import asyncio
import selectors
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class _JumpingSelector(selectors.DefaultSelector):
    def __init__(self, clock: "VirtualTimeLoop") -> None:
        super().__init__()
        self._clock = clock

    def select(self, timeout: float | None = None):
        ready = super().select(0)
        if not ready and timeout is not None and timeout > 0:
            self._clock.advance(timeout)
        return ready


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        super().__init__(_JumpingSelector(self))

    def time(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds


def run_virtual(main: Awaitable[T], start: float = 0.0) -> T:
    """Run a coroutine to completion on a fresh virtual-time loop."""
    loop = VirtualTimeLoop(start)
    try:
        return loop.run_until_complete(main)
    finally:
        loop.close()
