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


# ---- the controller's packages (docs/ARCHITECTURE.md, "The package map") ----
# From the bottom up: each may import those before it, never one after.
LAYERS = ["errors", "version", "background", "backoff", "language", "rules", "table", "store", "club", "maintenance", "game", "api",
          "hall", "app", "commands", "cli"]
# Who may hold the whole Controller: the wiring, the op handlers, the in-process simulation
# and the CLI's commands; every room is handed the narrow parts it uses.
MAY_HOLD_CONTROLLER = {"controller/game/controller.py", "controller/api/handlers.py", "controller/api/ops.py",
                       "controller/app/assembly.py", "controller/app/simulation.py"}
CONTROLLER_SOURCES = sorted((REPO / "controller").rglob("*.py"))


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "controller" and len(parts) > 1 and parts[1] in LAYERS else None


def _imports_of(path: Path) -> set[str]:
    return imported_modules(path.read_text(), path.relative_to(REPO).with_suffix("").parts[:-1])


def test_every_package_of_the_controller_has_its_layer():
    packages = {p.relative_to(REPO / "controller").parts[0].removesuffix(".py") for p in CONTROLLER_SOURCES}
    assert packages - {"__init__"} <= set(LAYERS), packages - set(LAYERS)


@pytest.mark.parametrize("path", CONTROLLER_SOURCES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_package_of_the_controller_imports_one_above_it(path):
    mine = layer_of(".".join(path.relative_to(REPO).with_suffix("").parts))
    upward = sorted(m for m in _imports_of(path)
                    if mine and layer_of(m) and LAYERS.index(layer_of(m)) > LAYERS.index(mine))
    assert not upward, f"{path.relative_to(REPO)} ({mine}) imports from above: {upward}"


@pytest.mark.parametrize("path", CONTROLLER_SOURCES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_only_the_wiring_and_the_op_handlers_hold_the_controller(path):
    where = path.relative_to(REPO).as_posix()
    if where in MAY_HOLD_CONTROLLER or where.startswith("controller/commands/"):
        return
    assert "controller.game.controller" not in _imports_of(path), \
        f"{where} imports the Controller: hand it the narrow parts it uses instead"


def test_the_house_rules_are_seen():
    """The checks above see what they look for (a rule that sees nothing passes anything)."""
    source = "def f():\n    from controller.game.controller import Controller\n    from ..table import facade\n"
    assert {"controller.game.controller", "controller.table.facade"} <= imported_modules(source, ("controller", "club"))
    assert layer_of("controller.api.web.server") == "api" and layer_of("controller.cli") == "cli"
