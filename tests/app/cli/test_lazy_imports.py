"""What a command loads is what its user waits for (and, on the board, what stays in its
memory): a client command loads neither the rules, the table, the web server nor the live
view's library; the version is read only for `--version`; plain lines need no rich.
Through the installed console script, with Python's own import report."""
from __future__ import annotations

import os
import re
import subprocess
import sys

from ...support.processes import MJTABLE

IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)$", re.M)


def imported_by(*args: str, cwd) -> set[str]:
    proc = subprocess.run([MJTABLE, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    return set(IMPORTED.findall(proc.stderr))


def loaded(modules: set[str], *packages: str) -> set[str]:
    return {m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)}


def test_a_client_command_loads_no_rules_table_web_server_view_or_package_metadata(tmp_path):
    modules = imported_by("status", "--socket", str(tmp_path / "no-controller.sock"), cwd=tmp_path)
    assert "controller.api.client" in modules  # the report is read
    assert loaded(modules, "controller.rules", "controller.table", "controller.game", "uvicorn", "starlette", "rich",
                  "importlib.metadata") == set()


def test_the_version_is_read_when_asked(tmp_path):
    proc = subprocess.run([MJTABLE, "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and re.fullmatch(r"mjtable \d+\.\d+\.\d+\S*\n", proc.stdout)


def test_a_fast_demo_prints_plain_lines_without_the_live_views_library(tmp_path):
    modules = imported_by("demo", "--fast", cwd=tmp_path)
    assert "controller.commands.plain_view" in modules
    assert loaded(modules, "rich") == set()



def test_the_op_table_imports_the_qr_library_with_the_first_code_asked_for(tmp_path):
    """segno stays out of the controller's memory until the operator's tab asks for the QR code."""
    probe = ("import sys, controller.api.ops as ops; before = 'segno' in sys.modules; "
             "ops.qr_svg('http://table-3.local:8080/'); print(before, 'segno' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["False", "True"], proc.stderr
