"""The fenced blocks of README.md and docs/*.md, as the doc test reads them.

Every fence says what it holds in its info string: ``sh`` / ``console`` (commands; in a
console block the commands are the ``$ `` lines and the others their output), ``python``
(a program), and the rest (``text`` for output and drawings, ``json``, ``yaml``, ``csv``,
``c``, ``nginx``, ``mermaid``) data that is not run. A block that cannot run here carries
``<!-- not run: REASON -->`` on the line before its fence, one that needs the table in a state
``<!-- run with: a hand in play -->`` (or ``no game in play``), and a data block that a later
command reads carries ``<!-- file: NAME -->``: all visible to whoever reads the Markdown.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

SHELL = {"sh", "console"}
PYTHON = {"python"}
DATA = {"text", "json", "yaml", "csv", "c", "nginx", "mermaid"}

_FENCE = re.compile(r"^(\s*)```(.*)$")
_MARK = re.compile(r"^\s*<!--\s*(not run|run with|file):\s*(.+?)\s*-->\s*$")


@dataclass
class Block:
    doc: Path
    line: int  # of the opening fence, 1-based
    info: str  # the info string's first word
    text: str  # dedented
    not_run: str | None = None  # the reason given in the doc
    run_with: str | None = None  # the table's state it needs: `a hand in play`, `no game in play`
    file: str | None = None  # the data file this block is

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks(doc: Path) -> list[Block]:
    lines = doc.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start, indent = i, fence.group(1)
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        block = Block(doc, start + 1, fence.group(2).strip().split(" ")[0], textwrap.dedent("\n".join(body)) + "\n")
        mark = _MARK.match(lines[start - 1]) if start else None
        if mark:
            setattr(block, mark.group(1).replace(" ", "_"), mark.group(2))
        found.append(block)
    return found


@dataclass
class Command:
    text: str  # the command line(s), continuations joined, comment kept
    comment: str  # the trailing comment, '' if none
    output: list[str]  # a console block's lines after the command


def commands(block: Block) -> list[Command]:
    """The commands of a shell block, in order. An elision line (``...``) is left out."""
    console = block.info == "console"
    found: list[Command] = []
    pending = ""
    for raw in block.text.splitlines():
        line = raw.rstrip()
        if console and not line.startswith("$ ") and not pending:
            if found and line.strip() and line.strip() != "...":
                found[-1].output.append(line.strip())
            continue
        if console and not pending:
            line = line[2:]
        if pending:
            line = pending + " " + line.strip()
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        pending = ""
        code, _, comment = _split_comment(line)
        if not code.strip() or code.strip() == "...":
            continue
        found.append(Command(code.strip(), comment.strip(), []))
    return found


def _split_comment(line: str) -> tuple[str, str, str]:
    """The line before its shell comment (a ``#`` outside quotes, after a blank), and the comment."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i], "#", line[i + 1:]
    return line, "", ""
