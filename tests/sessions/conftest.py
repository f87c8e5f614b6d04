"""Fixtures of the session tests."""

import pytest

from ..service.service_harness import RunningService


@pytest.fixture
def service(short_tmp):
    """The controller service in process (simulated table, store, control socket)."""
    running = RunningService(short_tmp)
    running.start()
    yield running
    running.stop()
