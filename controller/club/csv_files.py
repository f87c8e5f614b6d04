"""The director's CSV files as the club reads them (schedule.csv, players.csv, and the
hall's files: docs/TOURNAMENT.md, docs/HALL.md): a header row naming the columns in any
order and case, blank lines and whitespace around cells ignored, every problem of a file
found at once, each as ``file:line: what``. Pure.
"""
from __future__ import annotations

import csv
import io
import re

MAX_NUMBER = 999_999  # player, round and table numbers: 1 to this
_DIGITS = re.compile(r"[0-9]+")


def csv_rows(text: str, name: str, columns: tuple[str, ...], required: int,
             problems: list[str]) -> list[tuple[str, dict[str, str]]] | None:
    """(``file:line``, column -> cell) of each row after the header; ``columns[:required]``
    must be in the header, the others may be. None when the file cannot be read as a whole
    (no header, a bad header, broken CSV)."""
    reader = csv.reader(io.StringIO(text), strict=True, skipinitialspace=True)
    header: list[str] | None = None
    rows = []
    try:
        for row in reader:
            cells = [c.strip() for c in row]
            if not any(cells):
                continue
            where = f"{name}:{reader.line_num}"
            if header is None:
                header = _header(cells, where, columns, required, problems)
                if header is None:
                    return None
            elif len(cells) != len(header):
                problems.append(f"{where}: {len(cells)} fields; the header has {len(header)} ({', '.join(header)})")
            else:
                rows.append((where, dict(zip(header, cells))))
    except csv.Error as exc:
        problems.append(f"{name}:{reader.line_num}: not valid CSV: {exc}")
        return None
    if header is None:
        problems.append(f"{name}:1: no header row; the first line names the columns: {','.join(columns)}")
        return None
    return rows


def _header(cells: list[str], where: str, columns: tuple[str, ...], required: int,
            problems: list[str]) -> list[str] | None:
    names = [c.casefold() for c in cells]
    found = []
    unknown = [c for c in names if c not in columns]
    if unknown:
        found.append(f"unknown column(s) {', '.join(map(repr, unknown))}")
    twice = sorted({c for c in names if names.count(c) > 1})
    if twice:
        found.append(f"column(s) {', '.join(twice)} given twice")
    missing = [c for c in columns[:required] if c not in names]
    if missing:
        found.append(f"missing column(s) {', '.join(missing)}")
    if found:
        problems.append(f"{where}: {'; '.join(found)}; the columns are {','.join(columns)}"
                        + (f" ({', '.join(columns[required:])} optional)" if required < len(columns) else ""))
        return None
    return names


def whole_number(text: str, what: str, where: str, problems: list[str]) -> int | None:
    """``text`` as a number 1 to MAX_NUMBER; None after adding the problem (``what`` names it)."""
    if _DIGITS.fullmatch(text) and 1 <= int(text) <= MAX_NUMBER:
        return int(text)
    problems.append(f"{where}: {what} must be a whole number 1-{MAX_NUMBER}, not {text!r}" if text else
                    f"{where}: {what} is empty")
    return None
