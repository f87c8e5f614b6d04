"""The one threaded-loop harness: an asyncio loop on a daemon thread of its own, so that a
test can talk to what runs on it (a server, the whole service) with blocking calls."""
from __future__ import annotations

import asyncio
import threading


class LoopThread:
    def __init__(self, timeout: float) -> None:
        """`timeout`: how long `call` and `stop` wait for the loop."""
        self.timeout = timeout
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def call(self, fn, *args):
        """Run ``fn(*args)`` on the loop (awaited, if it returns a coroutine) and wait for it."""
        async def run():
            result = fn(*args)
            return await result if asyncio.iscoroutine(result) else result
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(self.timeout)

    @property
    def stopped(self) -> bool:
        return self.loop.is_closed()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(self.timeout)
        self.loop.close()
