"""An asyncio event loop whose clock jumps instead of waiting.

Host and simulator run unchanged on it: timers (`call_later`, `asyncio.sleep`,
`wait_for`) fire in order of their virtual deadlines, but whenever nothing is ready the
clock jumps to the next deadline instead of sleeping, so thirty mechanical seconds of
shuffling cost microseconds. Only in-process transports belong on this loop: real file
descriptors are polled but never waited for. While none is watched but the loop's own
wake-up pipe (signals, other threads), that pipe is polled only every POLL_EVERY turns
or when nothing is scheduled at all: a poll per turn was a tenth of a game's CPU.
"""
from __future__ import annotations

import asyncio
import selectors
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


POLL_EVERY = 64  # loop turns between two looks at the wake-up pipe when it is all there is to watch


class _JumpingSelector(selectors.DefaultSelector):
    def __init__(self, clock: "VirtualTimeLoop") -> None:
        super().__init__()
        self._clock = clock
        self._turns = 0

    def select(self, timeout: float | None = None):
        self._turns += 1
        if len(self.get_map()) > 1 or timeout is None or self._turns % POLL_EVERY == 0:
            ready = super().select(0)
        else:
            ready = []  # only the wake-up pipe is registered: nothing that cannot wait a few turns
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
