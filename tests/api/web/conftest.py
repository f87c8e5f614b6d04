"""Fixtures of the web tests: the in-process service with its web server (web_harness.py)."""
import itertools
from contextlib import ExitStack

import pytest

from .web_harness import RunningWeb


@pytest.fixture
def web_factory(short_tmp):
    """Start a service with its web server (options: RunningWeb's); all stopped at teardown."""
    names = itertools.count()
    with ExitStack() as stops:
        def start(**options) -> RunningWeb:
            folder = short_tmp / f"w{next(names)}"
            folder.mkdir()
            running = RunningWeb(folder, **options)
            stops.callback(running.stop)
            running.start()
            return running
        yield start


@pytest.fixture
def web(web_factory) -> RunningWeb:
    return web_factory()


@pytest.fixture
def in_play(web) -> RunningWeb:
    web.request("start")
    web.wait_playing(1)
    return web
