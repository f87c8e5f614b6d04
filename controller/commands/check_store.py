"""`mjtable check-store`: check every page of the state database for damage.

The controller's start-up reads only what a restart needs (the file's header, its schema
and the game in play), so that it stays fast however long the history grows; damage in
older games shows when they are read (`mjtable journal`). This command runs SQLite's full
integrity check, which reads the whole file: seconds on a store of years. It reads a
consistent snapshot, so the controller may keep running.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from controller.commands.client import CommandError, add_database_options, database_path
from controller.store.database import Store, StoreError

HELP = "check every page of the state database for damage (exit 0 sound, 2 damaged or unusable)"
LINE_EVERY = 5.0  # seconds between "still checking" lines when stderr is not a terminal
MIB = 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_database_options(parser)


def run(args: argparse.Namespace) -> int:
    try:
        path = database_path(args)
        with Store(path, create=False) as store:
            label = f"checking {path} ({path.stat().st_size / MIB:.1f} MB)"
            with _progress(label) as tick:
                problems = store.integrity_problems(tick)
    except (CommandError, StoreError) as exc:
        print(f"mjtable check-store: {exc}", file=sys.stderr)
        return 2
    if problems:
        print(f"{path} is damaged; SQLite's integrity check found:")
        for problem in problems:
            print(f"  {problem}")
        print("Keep it for inspection, restore a backup or move it aside to start a new one.")
        return 2
    print(f"{path} is sound: every page checked")
    return 0


def _progress(label: str):
    """A live spinner with the time spent on a terminal, otherwise a line now and then."""
    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        return _LiveProgress(console, label)
    return ProgressLines(label, sys.stderr)


class _LiveProgress:
    def __init__(self, console, label: str) -> None:
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self._progress = Progress(SpinnerColumn(), TextColumn(label), BarColumn(), TimeElapsedColumn(),
                                  console=console, transient=True)
        self._task = self._progress.add_task(label, total=None)  # SQLite cannot tell how far it is

    def __enter__(self) -> Callable[[], None]:
        self._progress.start()
        return lambda: self._progress.advance(self._task)

    def __exit__(self, *exc) -> None:
        self._progress.stop()


class ProgressLines:
    """For logs and pipes: the label at the start, then a line every ``every`` seconds."""

    def __init__(self, label: str, stream, *, every: float = LINE_EVERY, clock: Callable[[], float] = time.monotonic):
        self._label, self._stream, self._every, self._clock = label, stream, every, clock

    def __enter__(self) -> Callable[[], None]:
        self._started = self._clock()
        self._next = self._started + self._every
        self._line(self._label)
        return self._tick

    def _tick(self) -> None:
        now = self._clock()
        if now >= self._next:
            self._line(f"  still checking, {now - self._started:.0f} s")
            self._next = now + self._every

    def _line(self, text: str) -> None:
        self._stream.write(text + "\n")
        self._stream.flush()

    def __exit__(self, *exc) -> None:
        pass
