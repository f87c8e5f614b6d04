"""Fixtures of the service tests; the harnesses are in service_harness.py (in process) and
process_harness.py (real processes)."""

import pytest

from .service_harness import RunningService


@pytest.fixture
def service_factory(short_tmp):
    started = []

    def start(faults=None, after: RunningService | None = None) -> RunningService:
        """A service in a new folder, or, ``after`` a stopped one, on its folder (a restart)."""
        folder = after.socket.parent if after else short_tmp / f"s{len(started)}"
        folder.mkdir(exist_ok=True)
        running = RunningService(folder, faults)
        started.append(running)
        running.start()
        return running
    yield start
    for running in started:
        running.stop()


@pytest.fixture
def service(service_factory) -> RunningService:
    return service_factory()

