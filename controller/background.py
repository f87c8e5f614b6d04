"""The controller's background tasks, kept until they end and cancelled on close: a
recovery nobody waits for, the shuffle of the other tile set, a watchdog resume, a seat's
button. A task that fails on a bug is logged, never lost silently."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine

from controller.errors import MjtableError

log = logging.getLogger("mjtable.controller")


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task] = set()
        self._closed = False

    def spawn(self, work: Coroutine, name: str) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._ended)
        if self._closed:  # spawned by the close itself (the link's loss starting a reconnect): it never runs
            task.cancel()
        return task

    def _ended(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        if isinstance(task.exception(), MjtableError):  # e.g. a resume the link lost: its waiters hear it
            log.debug("background task %s: %s", task.get_name(), task.exception())
        else:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())

    def close(self) -> None:
        """Cancel every task, and every task spawned from now on."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
