"""Suite-wide settings.

Hypothesis' deadline and "too slow" health check measure wall time, which a loaded
two-core CI machine cannot promise; what the property tests check is behaviour.
"""
import pytest
from hypothesis import HealthCheck, settings

from .service.service_harness import RunningService
from .support.folders import short_folder
from .support.processes import Processes

settings.register_profile("mjtable", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mjtable")


@pytest.fixture
def short_tmp():
    """A fresh folder with a short path (for control sockets), removed afterwards."""
    with short_folder() as path:
        yield path


@pytest.fixture
def procs(short_tmp):
    """The long-running children of one test, in its short folder; killed at teardown."""
    running = Processes(short_tmp)
    yield running
    running.stop_all()


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

