"""Fixtures of the end-to-end CLI tests; the harness is in cli_harness.py."""

import pytest

from .cli_harness import Table


@pytest.fixture
def table(short_tmp):
    """A running simulated table and controller (EMA 2016) in short_tmp/table."""
    folder = short_tmp / "table"
    folder.mkdir()
    running = Table(folder)
    yield running.start()
    running.stop()
