"""Suite-wide settings.

Hypothesis' deadline and "too slow" health check measure wall time, which a loaded
two-core CI machine cannot promise; what the property tests check is behaviour.
"""
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from .app.service.service_harness import RunningService
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



# ---- markers: the fast in-process suite apart from the tests that start processes ----
_STARTS_PROCESSES = re.compile(r"MJTABLE|subprocess|Processes|\bprocs\b|chromium|webdriver|mosquitto|sys\.executable")
_RELATIVE_IMPORT = re.compile(r"^\s*from (\.+)([\w.]*) import ([\w, ]+)", re.M)
_seen: dict[Path, bool] = {}


def _starts_processes(path: Path, depth: int = 0) -> bool:
    """Whether a test module (or a test helper it imports, two levels deep) starts processes,
    browsers or a broker: found in its source, so that a new test is marked without a word."""
    if path in _seen:
        return _seen[path]
    text = path.read_text() if path.exists() else ""
    found = bool(_STARTS_PROCESSES.search(text))
    if not found and depth < 2:
        for dots, module, names in _RELATIVE_IMPORT.findall(text):
            base = path.parent.joinpath(*[".."] * (len(dots) - 1)).resolve()
            candidates = [base.joinpath(*module.split(".")).with_suffix(".py")] if module else \
                [base / f"{name.strip()}.py" for name in names.split(",")]
            if any(_starts_processes(c, depth + 1) for c in candidates):
                found = True
                break
    _seen[path] = found
    return found


def pytest_configure(config):
    config.addinivalue_line("markers", "processes: starts processes, a browser or a broker "
                                       "(`-m 'not processes'` runs the fast in-process suite alone)")
    config.addinivalue_line("markers", "long: minutes of work on its own; run first, so that the workers share "
                                       "the rest of the suite beside it rather than wait for it at the end")


def pytest_collection_modifyitems(config, items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & {"procs", "mosquitto", "broker", "browser", "driver"} or _starts_processes(Path(item.fspath)):
            item.add_marker(pytest.mark.processes)
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable: the rest keep their order
