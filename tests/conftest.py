"""Suite-wide settings.

Hypothesis' deadline and "too slow" health check measure wall time, which a loaded
two-core CI machine cannot promise; what the property tests check is behaviour.
"""
import pytest
from hypothesis import HealthCheck, settings

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
