"""Fixtures of the end-to-end suite; the harness is in e2e_harness.py."""
import shutil

import pytest

from .e2e_harness import Processes, TableSession, pty_table, short_folder


@pytest.fixture(scope="module")
def table_factory():
    """Start a simulator on a pty and a controller on it (`pty_table`) in a folder of its own; every process it
    started is killed when the test module is done, whatever happened."""
    root = short_folder("mje2e")
    started: list[Processes] = []

    def start(profile: str, ruleset: str, seed: int = 1) -> TableSession:
        folder = root / f"t{len(started)}"
        folder.mkdir()
        started.append(Processes(folder))
        return pty_table(started[-1], profile, ruleset, seed)
    yield start
    for procs in started:
        procs.stop_all()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def procs():
    """Processes of one test, in a folder of its own; killed at teardown."""
    folder = short_folder("mje2e")
    running = Processes(folder)
    yield running
    running.stop_all()
    shutil.rmtree(folder, ignore_errors=True)
