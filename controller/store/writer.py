"""The controller's way to its state database: every call on one thread of its own.

A write waits for the disk (``synchronous=FULL``): on a slow, full or frozen disk that is
seconds or forever. On the event loop it would stop heartbeats, status replies and the
table's watchdog with it, so the store's calls run on a single dedicated thread instead,
in the order they were made (one connection, one thread: no interleaved transactions).

On a virtual-time loop (simulations, `make demo --fast`) the calls run inline: there the
clock jumps whenever the loop waits, so a wait for the thread would look like hours.
"""
from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from controller.errors import Refusal
from controller.store.database import Store, StoreError
from firmware_protocol.virtual_time import VirtualTimeLoop

log = logging.getLogger("mjtable.store")

WRITES = frozenset({"new_game", "save_step", "commit_hand", "finish_game", "abandon_game", "save_pause"})


class StoreThread:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mjtable-store")
        self.error: str | None = None  # why the latest write failed, until one succeeds

    async def call(self, method: str, *args, **kwargs):
        """Run ``store.method(*args)`` on the store's thread; its result or its StoreError."""
        return await asyncio.wrap_future(self.submit(method, *args, **kwargs))

    def submit(self, method: str, *args, **kwargs) -> Future:
        """Queue the call behind the ones before it; a failure is logged and kept in
        ``error`` (for a write nobody waits for, such as the machine's step)."""
        return self._queue(functools.partial(getattr(self.store, method), *args, **kwargs), method in WRITES)

    async def read(self, reader: Callable[[Store], Any]) -> Any:
        """Run ``reader(store)``, a read of several calls (e.g. a game's journal), on the store's thread."""
        return await asyncio.wrap_future(self._queue(functools.partial(reader, self.store), False))

    def _queue(self, call: Callable[[], Any], writes: bool) -> Future:
        if not isinstance(asyncio.get_running_loop(), VirtualTimeLoop):
            return self._thread.submit(self._run, call, writes)
        done: Future = Future()
        try:
            done.set_result(self._run(call, writes))
        except StoreError as exc:
            done.set_exception(exc)
        return done

    async def flush(self) -> None:
        """Wait until every call queued so far has run."""
        if not isinstance(asyncio.get_running_loop(), VirtualTimeLoop):
            await asyncio.wrap_future(self._thread.submit(lambda: None))

    def _run(self, call, writes: bool):
        try:
            result = call()
        except StoreError as exc:
            if self.error != str(exc):
                log.error("%s", exc)
            self.error = str(exc)
            raise
        if writes:
            self.error = None
        return result

    def close(self) -> None:
        """Wait for the queued writes, then stop the thread."""
        self._thread.shutdown(wait=True)


def kept_database(db: StoreThread | None, so: str) -> StoreThread:
    """The controller's state database, or the refusal of what needs one: "this controller
    keeps no state database, so {so}" (a Controller built without a store, as in-process
    simulations build it)."""
    if db is None:
        raise Refusal("not_allowed", f"this controller keeps no state database, so {so}")
    return db
