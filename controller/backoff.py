"""Trying again after a failure, waiting twice as long after each one in a row (up to a
ceiling) and from the first wait again after a success: the table's link, the MQTT
publisher's broker, the floor's broker."""
from __future__ import annotations

import asyncio


class Backoff:
    def __init__(self, first: float, ceiling: float) -> None:
        self.first, self.ceiling = first, ceiling
        self.delay = first  # the next wait

    @property
    def fresh(self) -> bool:
        """No failure since the last success: the first of an outage."""
        return self.delay == self.first

    def succeeded(self) -> None:
        self.delay = self.first

    async def wait(self) -> None:
        """Sleep the next wait; the one after is twice as long, at most `ceiling`."""
        delay, self.delay = self.delay, min(self.delay * 2, self.ceiling)
        await asyncio.sleep(delay)
