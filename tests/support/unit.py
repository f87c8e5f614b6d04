"""The board's controller as the shipped systemd unit runs it, for the tests and `make bench`:
the unit's environment, and the bytecode that environment needs, compiled as docs/INSTALL.md
has it done at install."""
from __future__ import annotations

import subprocess
import sysconfig
from pathlib import Path

# docs/INSTALL.md, step 2: `python -OO -m compileall` (test folders hold files that are not
# Python on purpose)
COMPILE = ("-OO", "-m", "compileall", "-q", "-j0", "-x", "/tests?/")


def unit_environment(unit: Path) -> dict[str, str]:
    """The unit file's Environment= lines."""
    return dict(line.removeprefix("Environment=").split("=", 1) for line in unit.read_text().splitlines()
                if line.startswith("Environment="))


def compile_for_unit(python: Path | str, *folders: Path) -> None:
    """The bytecode the unit's PYTHONOPTIMIZE runs, for ``folders``, this environment's
    packages and the standard library."""
    subprocess.run([str(python), *COMPILE, *map(str, folders), sysconfig.get_paths()["purelib"],
                    sysconfig.get_paths()["stdlib"]], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)
