"""The bottom layers stay at the bottom: the protocol package imports neither the host nor the
simulator, the simulator never the host, and no product code patches itself with
unittest.mock. Read from the sources, imports inside functions too, so a lazy import cannot
hide."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def imported_modules(source: str, package: tuple[str, ...]) -> set[str]:
    """Every module a source in `package` imports, anywhere in it, relative imports resolved
    (`from a import b` counts as `a` and `a.b`: b may be a module)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join(base + ((node.module,) if node.module else ()))
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def offending(package: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    """{file: the forbidden modules it imports} over a package's sources."""
    hits = {}
    for path in sorted((REPO / package).rglob("*.py")):
        where = path.relative_to(REPO).with_suffix("").parts[:-1]
        bad = sorted(m for m in imported_modules(path.read_text(), where)
                     if any(m == f or m.startswith(f + ".") for f in forbidden))
        if bad:
            hits[path.relative_to(REPO).as_posix()] = bad
    return hits


@pytest.mark.parametrize(("package", "forbidden"), [
    ("firmware_protocol", ("controller", "sim", "protocol_tools")),
    ("sim", ("controller", "protocol_tools")),
])
def test_a_lower_layer_imports_no_higher_one(package, forbidden):
    assert offending(package, forbidden) == {}


@pytest.mark.parametrize("package", ["controller", "firmware_protocol", "sim", "protocol_tools"])
def test_no_product_code_imports_unittest_mock(package):
    assert offending(package, ("unittest.mock",)) == {}


def test_an_import_inside_a_function_is_seen():
    source = "def f():\n    from controller.table import Table\n    from ..sim import x\n    from unittest import mock\n"
    assert imported_modules(source, ("firmware_protocol",)) >= {
        "controller.table", "sim", "sim.x", "unittest.mock"}
