"""docs/API.md lists the ops the op table declares (controller/api/ops.py), and gives each the
least role the web page enforces."""
from __future__ import annotations

import re
from pathlib import Path

from controller.api.ops import BY_NAME, ROLES

API_MD = Path(__file__).resolve().parents[3] / "docs" / "API.md"


def _section(text: str, title: str) -> str:
    """From the level-2 heading ``title`` to the next level-2 or level-1 heading."""
    start = text.index(f"\n## {title}\n")
    end = re.compile(r"^#{1,2} ", re.M).search(text, start + 1 + len(title) + 4)
    return text[start:end.start() if end else len(text)]


def _names(text: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", text))


def test_the_operations_section_has_a_heading_for_each_op_of_the_table():
    headings = re.findall(r"^###+ (.*)$", _section(API_MD.read_text(), "Operations"), re.M)
    documented = set().union(*(_names(h) for h in headings))
    assert documented == set(BY_NAME)


def test_the_roles_table_names_each_op_under_its_least_role():
    rows = dict(re.findall(r"^\| (spectator|player|operator) \| ([^|]*) \|", _section(API_MD.read_text(), "Roles"),
                           re.M))
    assert set(rows) == set(ROLES)
    for role in ROLES:
        assert _names(rows[role]) == {op.name for op in BY_NAME.values() if op.role == role}, role
