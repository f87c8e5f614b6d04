"""Fixtures of the end-to-end suite; the harness is in e2e_harness.py."""
import pytest

from ..support.folders import short_folder
from .e2e_harness import Processes, TableSession, pty_table


@pytest.fixture(scope="module")
def table_factory():
    """Start a simulator on a pty and a controller on it (`pty_table`) in a folder of its own; every process it
    started is killed when the test module is done, whatever happened."""
    started: list[Processes] = []
    with short_folder("mje2e") as root:
        def start(profile: str, ruleset: str, seed: int = 1) -> TableSession:
            folder = root / f"t{len(started)}"
            folder.mkdir()
            started.append(Processes(folder))
            return pty_table(started[-1], profile, ruleset, seed)
        yield start
        for procs in started:
            procs.stop_all()

