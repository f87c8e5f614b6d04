"""Suite-wide settings.

Hypothesis' deadline and "too slow" health check measure wall time, which a loaded
two-core CI machine cannot promise; what the property tests check is behaviour.
"""
import shutil

import pytest
from hypothesis import HealthCheck, settings

from .processes import short_folder

settings.register_profile("mjtable", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mjtable")


@pytest.fixture
def short_tmp():
    """A fresh folder with a short path (for control sockets), removed afterwards."""
    path = short_folder()
    yield path
    shutil.rmtree(path, ignore_errors=True)
