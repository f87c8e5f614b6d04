"""The hall's fixtures: the tournament's files as docs/HALL.md shows them, a real
mosquitto with the ACL of docs/INSTALL.md, and `mjtable hall serve` on it."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ..support.mosquitto import Mosquitto, PASSWORD
from ..support.processes import MJTABLE, wait_for
from .doc import doc_block

TABLES = ("demo-1", "demo-2", "demo-3", "demo-4", "demo-9")  # the table accounts the broker knows


def hall(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([MJTABLE, "hall", *args], cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.fixture
def files(short_tmp) -> Path:
    """players.csv, header.csv, tables.csv and seating.txt of docs/HALL.md, in a folder."""
    (short_tmp / "players.csv").write_text(doc_block("number,first_name"))
    (short_tmp / "header.csv").write_text(doc_block("key,value"))
    (short_tmp / "tables.csv").write_text(doc_block("number,table_id"))
    (short_tmp / "seating.txt").write_text(doc_block("1-2-3-4"))
    return short_tmp


def enter(folder: Path) -> subprocess.CompletedProcess:
    return hall("import", "--players", "players.csv", "--header", "header.csv", "--tables", "tables.csv",
                "seating.txt", cwd=folder)


@pytest.fixture
def broker(short_tmp):
    running = Mosquitto(short_tmp / "broker", TABLES)
    yield running.start()
    running.kill()


class HallProcess:
    """`mjtable hall serve` as the director starts it, on the test's broker; restartable."""

    def __init__(self, folder: Path, broker: Mosquitto, *options: str) -> None:
        self.folder, self.broker, self.options = folder, broker, options
        (folder / "hall-password").write_text(PASSWORD)
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.starts = 0

    def start(self) -> "HallProcess":
        self.starts += 1
        self.log = self.folder / f"hall.{self.starts}.log"
        with open(self.log, "w") as err:
            self.proc = subprocess.Popen([MJTABLE, "hall", "serve", "--broker", self.broker.url, "--username", "hall",
                                          "--password-file", "hall-password", "--listen", "127.0.0.1:0",
                                          *self.options],
                                         cwd=self.folder, stdout=subprocess.PIPE, stderr=err, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("hall on http://"), f"{line!r} {self.log.read_text()}"
        self.url = line.split()[-1]
        secret = re.search(r"operator secret \(shown once; .*\): (\S+)", self.logs())
        self.secret = secret[1] if secret else getattr(self, "secret", None)
        wait_for(lambda: "hall subscribed" in self.log.read_text(), "the hall to subscribe", 20)
        return self

    def logs(self) -> str:
        return "".join(p.read_text() for p in sorted(self.folder.glob("hall.*.log")))

    def stop(self, sig: int = 15) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(20)
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()


@pytest.fixture
def hall_process(files, broker):
    assert enter(files).returncode == 0
    running = HallProcess(files, broker)
    yield running
    running.stop(9)

