"""A real full disk under `mjtable run`: the state database on a small tmpfs, filled while
a game is played. The result is refused and kept, E305 shows on the table's displays (the
simulator's trace has the `show_error` commands), and once space is freed `mjtable retry`
stores it and takes the code off the displays. Needs root (to mount the tmpfs)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from .cli_harness import Table, mjtable, wait_until

SIZE = "4m"  # the tmpfs: room for the database's first pages and a few hands


def _mount(folder: Path) -> None:
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")


def _fill(folder: Path) -> Path:
    """Write until the disk is full: the filler's bytes are all that is left to free."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:  # ENOSPC: full
        pass
    finally:
        os.close(fd)
    return filler


def _errors_shown(trace: Path) -> list[int]:
    return [r["args"]["code"] for r in map(json.loads, trace.read_text().splitlines())
            if r["dir"] == "cmd" and r["name"] == "show_error"]


def test_a_full_disk_refuses_the_result_shows_e305_on_the_displays_and_retry_stores_it(short_tmp):
    var = short_tmp / "table" / "var"
    trace = short_tmp / "trace.jsonl"
    (short_tmp / "table").mkdir()
    _mount(var)
    table = Table(short_tmp / "table", sim_args=("--trace", str(trace)))
    config = ["--config", str(table.config)]
    status = lambda: json.loads(mjtable("status", "--json", *config, cwd=short_tmp).stdout)  # noqa: E731
    try:
        table.start()
        mjtable("start", *config, cwd=short_tmp)
        wait_until(lambda: status()["state"] == "playing", "the first hand in play")
        filler = _fill(var)
        refused = None
        for _ in range(20):  # SQLite may still have room in pages it holds: play until a write is refused
            wait_until(lambda: status()["state"] in ("playing", "fault"), "a hand in play, or the fault")
            if status()["state"] == "fault":
                break
            done = mjtable("result", "draw", "--tenpai", *config, cwd=short_tmp, check=False)
            if done.returncode != 0:
                refused = done
                break
        assert refused is not None and "disk" in refused.stderr, refused
        wait_until(lambda: status()["fault_code"] == 305, "the fault E305")
        wait_until(lambda: 305 in _errors_shown(trace), "E305 on the table's displays")
        hands = status()["hands_played"]
        filler.unlink()
        mjtable("retry", *config, cwd=short_tmp)
        wait_until(lambda: status()["state"] == "playing" and status()["hands_played"] == hands + 1,
                   "the kept result stored and the next hand in play")
        assert _errors_shown(trace)[-1] == 0  # the code taken off the displays
    finally:
        table.stop()
        subprocess.run(["umount", "-l", str(var)], capture_output=True)
