"""The tournament as the director enters it once: players, the header, the tables and the
seating. Pure: no store, no broker.

Every file is read like ``schedule import`` reads its own (controller/club/csv_files.py:
a header row naming the columns in any order and case, blank lines ignored) and every
problem of every file is found at once, each as ``file:line: what``. The seating comes
either as ``schedule.csv`` (``round,table,east,south,west,north``) or as Pantheon's
predefined seating text: one line ``1-2-3-4`` per table (player numbers, East first,
tables numbered from 1 in order), a blank line between rounds.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from controller.club.csv_files import MAX_NUMBER, csv_rows, whole_number
from controller.club.schedule import SCHEDULE_COLUMNS, ScheduleError, TableSeating

PLAYER_COLUMNS = ("number", "first_name", "last_name", "ema_id", "country", "ema_member", "substitute")
HEADER_KEYS = ("title", "place", "country", "start_date", "end_date", "days", "rules", "mers_weight")
TABLE_COLUMNS = ("number", "table_id")
_EMA_ID = re.compile(r"\d{8}")
_COUNTRY = re.compile(r"[A-Z]{3}")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_YES, _NO = ("yes", "y", "1", "true"), ("no", "n", "0", "false", "")
_PANTHEON_LINE = re.compile(r"\d+(-\d+){2,3}")
MAX_NAME = 64


@dataclass(frozen=True)
class HallPlayer:
    number: int
    first_name: str
    last_name: str
    ema_id: str | None
    country: str
    ema_member: bool
    substitute: bool = False

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Tournament:
    header: dict[str, str]
    players: dict[int, HallPlayer]
    tables: dict[int, str]  # table number -> its table_id on the broker
    seating: tuple[TableSeating, ...]


# -- reading -------------------------------------------------------------------------------


def read_tournament(players: str | Path, header: str | Path, tables: str | Path, seating: str | Path) -> Tournament:
    """The four files read and checked together; ScheduleError with every problem. A
    seating file ending in ``.csv`` is schedule.csv's form, any other Pantheon's text."""
    texts, problems = {}, []
    for path in (players, header, tables, seating):
        try:
            texts[path] = Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}")
    if problems:
        raise ScheduleError(problems)
    return parse_tournament(texts[players], str(players), texts[header], str(header), texts[tables], str(tables),
                            texts[seating], str(seating))


def parse_tournament(players_text: str, players_name: str, header_text: str, header_name: str,
                     tables_text: str, tables_name: str, seating_text: str, seating_name: str) -> Tournament:
    problems: list[str] = []
    roster = _players(csv_rows(players_text, players_name, PLAYER_COLUMNS, 6, problems) or [], problems)
    header = _header(csv_rows(header_text, header_name, ("key", "value"), 2, problems) or [], header_name, problems)
    tables = _tables(csv_rows(tables_text, tables_name, TABLE_COLUMNS, 2, problems) or [], problems)
    if seating_name.endswith(".csv"):
        rows = _schedule_rows(csv_rows(seating_text, seating_name, SCHEDULE_COLUMNS, 5, problems) or [], problems)
    else:
        rows = pantheon_rows(seating_text, seating_name, problems)
    seating = check_seating(rows, roster, tables, players_name, problems)
    if problems:
        raise ScheduleError(problems)
    return Tournament(header, roster, tables, tuple(seating))


def read_players(path: str | Path) -> dict[int, HallPlayer]:
    """players.csv alone (to generate a seating); ScheduleError with every problem."""
    problems: list[str] = []
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScheduleError([f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}"]) from None
    roster = _players(csv_rows(text, str(path), PLAYER_COLUMNS, 6, problems) or [], problems)
    if problems:
        raise ScheduleError(problems)
    return roster


def _players(rows: Iterable[tuple[str, dict[str, str]]], problems: list[str]) -> dict[int, HallPlayer]:
    roster: dict[int, HallPlayer] = {}
    first: dict[tuple[str, object], str] = {}
    for where, cells in rows:
        found = len(problems)
        number = whole_number(cells["number"], "the player number", where, problems)
        names = [cells[k] for k in ("first_name", "last_name")]
        for key, name in zip(("first name", "last name"), names):
            if not name or len(name) > MAX_NAME:
                problems.append(f"{where}: the {key} must be 1 to {MAX_NAME} characters, not {name!r}")
        ema = cells.get("ema_id") or None
        if ema is not None and not _EMA_ID.fullmatch(ema):
            problems.append(f"{where}: the EMA number is 8 digits, not {ema!r}")
        country = cells["country"].upper()
        if not _COUNTRY.fullmatch(country):
            problems.append(f"{where}: the country is a 3-letter code (ISO 3166 alpha-3, e.g. FRA), "
                            f"not {cells['country']!r}")
        member = _flag(cells["ema_member"], "ema_member", where, problems)
        substitute = _flag(cells.get("substitute", ""), "substitute", where, problems)
        for kind, value in (("player number", number), ("EMA number", ema)):
            if value is not None and (kind, value) in first:
                problems.append(f"{where}: the {kind} {value} is given twice (first at {first[kind, value]})")
            elif value is not None:
                first[kind, value] = where
        if len(problems) == found:
            roster[number] = HallPlayer(number, *names, ema, country, member, substitute)
    return roster


def _flag(text: str, column: str, where: str, problems: list[str]) -> bool:
    if text.casefold() in _YES:
        return True
    if text.casefold() not in _NO:
        problems.append(f"{where}: {column} is yes or no, not {text!r}")
    return False


def _header(rows: Iterable[tuple[str, dict[str, str]]], name: str, problems: list[str]) -> dict[str, str]:
    header: dict[str, str] = {}
    for where, cells in rows:
        key, value = cells["key"].casefold(), cells["value"]
        if key not in HEADER_KEYS:
            problems.append(f"{where}: unknown key {key!r}; the keys are {', '.join(HEADER_KEYS)}")
        elif key in header:
            problems.append(f"{where}: {key} is given twice")
        else:
            header[key] = value
    for key in sorted(set(HEADER_KEYS) - set(header)):
        problems.append(f"{name}: {key} is missing")
    for key in ("start_date", "end_date"):
        if header.get(key) and not _DATE.fullmatch(header[key]):
            problems.append(f"{name}: {key} is a date YYYY-MM-DD, not {header[key]!r}")
    for key, ok in (("days", str.isdigit), ("mers_weight", _is_weight)):
        if header.get(key) and not ok(header[key]):
            problems.append(f"{name}: {key} is a number, not {header[key]!r}")
    return header


def _is_weight(text: str) -> bool:
    return re.fullmatch(r"[0-9]+(\.[0-9]+)?", text) is not None


def _tables(rows: Iterable[tuple[str, dict[str, str]]], problems: list[str]) -> dict[int, str]:
    tables: dict[int, str] = {}
    ids: dict[str, str] = {}
    for where, cells in rows:
        number = whole_number(cells["number"], "the table number", where, problems)
        table_id = cells["table_id"]
        if not _TABLE_ID.fullmatch(table_id):
            problems.append(f"{where}: a table id is letters, digits, - and _, not {table_id!r}")
        elif table_id in ids:
            problems.append(f"{where}: the table id {table_id} is given twice (first at {ids[table_id]})")
        elif number in tables:
            problems.append(f"{where}: table {number} is given twice")
        elif number is not None:
            tables[number], ids[table_id] = table_id, where
    return tables


def _schedule_rows(rows: Iterable[tuple[str, dict[str, str]]], problems: list[str]) -> list[tuple]:
    out = []
    for where, cells in rows:
        found = len(problems)
        values = [whole_number(cells[c], c, where, problems) for c in SCHEDULE_COLUMNS if cells.get(c)]
        if len(problems) == found:
            out.append((where, values[0], values[1], tuple(values[2:])))
    return out


def pantheon_rows(text: str, name: str, problems: list[str]) -> list[tuple]:
    """Pantheon's predefined seating: ``1-2-3-4`` a table, a blank line between rounds."""
    rows, round_, table = [], 1, 0
    for line_no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            if table:
                round_, table = round_ + 1, 0
            continue
        where = f"{name}:{line_no}"
        if not _PANTHEON_LINE.fullmatch(line):
            problems.append(f"{where}: a table is player numbers East first, like 1-2-3-4, not {line!r}")
            continue
        table += 1
        numbers = tuple(int(n) for n in line.split("-"))
        if not all(1 <= n <= MAX_NUMBER for n in numbers):
            problems.append(f"{where}: a player number is 1-{MAX_NUMBER}")
            continue
        rows.append((where, round_, table, numbers))
    return rows


def check_seating(rows: list[tuple], roster: dict[int, HallPlayer], tables: dict[int, str], players_name: str,
                  problems: list[str]) -> list[TableSeating]:
    """Each row's players known, each seated once a round, each table of the round known."""
    seatings, given, seated = [], {}, {}
    for where, round_, table, numbers in rows:
        found = len(problems)
        if (round_, table) in given:
            problems.append(f"{where}: round {round_} table {table} is given twice (first at {given[round_, table]})")
            continue
        given[round_, table] = where
        if tables and table not in tables:
            problems.append(f"{where}: table {table} is not in the tables file")
        for n in sorted({n for n in numbers if numbers.count(n) > 1}):
            problems.append(f"{where}: player {_who(n, roster)} sits twice at table {table} in round {round_}")
        for n in dict.fromkeys(numbers):
            if n not in roster:
                problems.append(f"{where}: unknown player number {n}: {players_name} has no such player")
            elif (round_, n) in seated:
                problems.append(f"{where}: player {_who(n, roster)} sits at two tables in round {round_} "
                                f"(first at {seated[round_, n]})")
            else:
                seated[round_, n] = where
        if len(problems) == found:
            seatings.append(TableSeating(round_, table, numbers))
    return seatings


def _who(number: int, roster: dict[int, HallPlayer]) -> str:
    return f"{number} ({roster[number].name})" if number in roster else str(number)
