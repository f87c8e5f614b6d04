"""docs/HALL.md's examples, for the tests to enter the files it shows and expect what it shows."""
from __future__ import annotations

import re
from pathlib import Path

HALL_MD = Path(__file__).resolve().parents[2] / "docs" / "HALL.md"


def doc_block(first_line: str) -> str:
    """The fenced block of docs/HALL.md beginning with ``first_line``."""
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", HALL_MD.read_text(), re.S | re.M)
    found = [b for b in blocks if b.startswith(first_line)]
    assert len(found) == 1, f"docs/HALL.md has {len(found)} blocks beginning {first_line!r}"
    return found[0]
