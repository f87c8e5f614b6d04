"""Building the C reference core (firmware_protocol/c) as a table maker does: its Makefile,
the system `cc`, warnings as errors, and the sanitizers in the host build."""
from __future__ import annotations

import subprocess
from pathlib import Path

C_DIR = Path(__file__).resolve().parents[2] / "firmware_protocol" / "c"


def make(build: Path, *targets: str) -> None:
    done = subprocess.run(["make", "-s", "-C", str(C_DIR), f"BUILD={build}", *targets], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"make {' '.join(targets)} failed:\n{done.stdout}{done.stderr}"
