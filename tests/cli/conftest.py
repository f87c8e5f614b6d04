"""Fixtures of the end-to-end CLI tests; the harness is in cli_harness.py."""
import shutil
import tempfile
from pathlib import Path

import pytest

from cli_harness import Table


@pytest.fixture
def short_tmp():
    # AF_UNIX paths are limited to ~107 bytes; pytest's tmp_path can be longer.
    path = Path(tempfile.mkdtemp(prefix="mjcli", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def table(short_tmp):
    """A running simulated table and controller (EMA 2016) in short_tmp/table."""
    folder = short_tmp / "table"
    folder.mkdir()
    running = Table(folder)
    yield running.start()
    running.stop()
