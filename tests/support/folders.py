"""The one temporary-folder helper: short paths, for AF_UNIX sockets."""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def short_folder(prefix: str = "mj") -> Iterator[Path]:
    """A fresh folder under /tmp, removed afterwards with everything in it.

    AF_UNIX socket paths are limited to ~107 bytes; pytest's tmp_path can be longer."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
