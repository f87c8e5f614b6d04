"""A tournament's schedule: its players, numbered by the tournament software, and who sits
at which table, at which wind, in each round.

Pure: no table, no store. The director gives two CSV files (docs/TOURNAMENT.md):
players.csv (``number,name,ema_id,club_id``, the identifiers optional) and schedule.csv
(``round,table,east,south,west,north`` of player numbers; north empty at a three-player
table). Reading is liberal in whitespace, blank lines and the header's case, strict in
content: every problem of both files is found at once, each as ``file:line: what``. The
control API's ``schedule_import`` carries the same content as objects, checked the same
way (a place there is ``players[2]`` or ``tables[0]``).

A seat of the schedule is its wind, 0 East to 3 North: the East player is the starting
dealer.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from controller.errors import MjtableError, Refusal
from controller.language import ENGLISH, Words
from controller.club.csv_files import MAX_NUMBER, csv_rows, whole_number
from controller.club.players import Player, check_player

PLAYER_COLUMNS = ("number", "name", "ema_id", "club_id")
SCHEDULE_COLUMNS = ("round", "table", "east", "south", "west", "north")
WINDS = SCHEDULE_COLUMNS[2:]


class ScheduleError(MjtableError):
    """The schedule is refused; ``problems`` lists every one found, each ``place: what``."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class TableSeating:
    """Who sits at ``table`` in ``round``: player numbers, East first."""
    round: int
    table: int
    numbers: tuple[int, ...]


@dataclass(frozen=True)
class Schedule:
    roster: dict[int, Player]  # player number -> player
    tables: tuple[TableSeating, ...]

    def rows(self) -> list[tuple[int, int, int, int]]:
        """(round, table, seat = wind index, player number): the store's schedule rows."""
        return [(t.round, t.table, wind, n) for t in self.tables for wind, n in enumerate(t.numbers)]

    def rounds_at(self, table: int) -> list[int]:
        return sorted(t.round for t in self.tables if t.table == table)

    def to_request(self) -> dict:
        """The ``schedule_import`` op's arguments (docs/API.md)."""
        return {"players": [{"number": n, **p.to_dict()} for n, p in sorted(self.roster.items())],
                "tables": [[t.round, t.table, *t.numbers] for t in self.tables]}


@dataclass(frozen=True)
class RoundTable:
    """Where a scheduled game is played: its round, at this table."""
    round: int
    table: int

    def text(self, words: Words = ENGLISH) -> str:
        return words.say("round {round} table {table}", round=self.round, table=self.table)


# A row as read, before its content is checked: where it is, and its values.
_PlayerRow = tuple[str, int, dict]                  # where, number, player object
_TableRow = tuple[str, int, int, tuple[int, ...]]   # where, round, table, numbers East first


# -- the two files ---------------------------------------------------------------------


def read_files(players_path: str | Path, schedule_path: str | Path) -> Schedule:
    """Both files read and checked; ScheduleError with every problem."""
    problems: list[str] = []
    texts = [_read_text(Path(p), problems) for p in (players_path, schedule_path)]
    if problems:
        raise ScheduleError(problems)
    return parse(texts[0], str(players_path), texts[1], str(schedule_path))


def _read_text(path: Path, problems: list[str]) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")  # a spreadsheet's byte-order mark is no content
    except UnicodeDecodeError as exc:
        problems.append(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        problems.append(f"{path}: cannot read it: {exc.strerror or exc}")
    return ""


def parse(players_text: str, players_name: str, schedule_text: str, schedule_name: str) -> Schedule:
    """The two files' texts (named in the messages) as a Schedule; ScheduleError with every problem."""
    problems: list[str] = []
    player_cells = csv_rows(players_text, players_name, PLAYER_COLUMNS, 2, problems)
    table_cells = csv_rows(schedule_text, schedule_name, SCHEDULE_COLUMNS, 5, problems)
    players = list(_player_rows(player_cells or [], problems))
    tables = list(_table_rows(table_cells or [], problems))
    # a players file that cannot be read as a whole makes every number unknown: said once
    return _checked(players, tables, players_name, problems, players_known=player_cells is not None)


def _player_rows(rows: Iterable[tuple[str, dict[str, str]]], problems: list[str]) -> Iterator[_PlayerRow]:
    for where, cells in rows:
        number = whole_number(cells["number"], "the player number", where, problems)
        player = {key: cells[key] for key in PLAYER_COLUMNS[1:] if cells.get(key)}
        if number is not None:
            yield where, number, {"name": cells["name"], **player}


def _table_rows(rows: Iterable[tuple[str, dict[str, str]]], problems: list[str]) -> Iterator[_TableRow]:
    for where, cells in rows:
        found = len(problems)
        round_ = whole_number(cells["round"], "round", where, problems)
        table = whole_number(cells["table"], "table", where, problems)
        winds = WINDS if cells.get("north") else WINDS[:3]  # no North: a three-player table
        numbers = tuple(whole_number(cells[wind], f"{wind}'s player number", where, problems) for wind in winds)
        if len(problems) == found:
            yield where, round_, table, numbers


# -- the control API's form -----------------------------------------------------------------


def from_request(players: list, tables: list) -> Schedule:
    """``schedule_import``'s arguments as a Schedule; ScheduleError with every problem."""
    problems: list[str] = []
    player_rows, table_rows = [], []
    for i, p in enumerate(players):
        if isinstance(p, dict) and _is_number(p.get("number")):
            player_rows.append((f"players[{i}]", p["number"], {k: v for k, v in p.items() if k != "number"}))
        else:
            problems.append(f'players[{i}]: a player is an object with a "number" (1-{MAX_NUMBER}) and a "name"')
    for i, t in enumerate(tables):  # as schedule.csv's rows: compact, a big tournament fits one request
        if isinstance(t, list) and len(t) in (5, 6) and all(map(_is_number, t)):
            table_rows.append((f"tables[{i}]", t[0], t[1], tuple(t[2:])))
        else:
            problems.append(f"tables[{i}]: a table is [round, table, east, south, west, north] (north left out "
                            f"at a three-player table), each a number 1-{MAX_NUMBER}")
    return _checked(player_rows, table_rows, "players", problems)


def _is_number(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_NUMBER


# -- the content ----------------------------------------------------------------------------


def _checked(players: list[_PlayerRow], tables: list[_TableRow], players_name: str,
             problems: list[str], players_known: bool = True) -> Schedule:
    roster = _roster(players, problems)
    known = {number for _, number, _ in players} if players_known else None
    seatings = _seatings(tables, known, roster, players_name, problems)
    if not tables and not problems:
        problems.append("the schedule seats no table: give a row per round and table")
    if problems:
        raise ScheduleError(sorted(problems, key=lambda problem: _place(problem, players_name)))
    return Schedule(roster, tuple(seatings))


def _place(problem: str, players_name: str) -> tuple[bool, int]:
    """The players first, then the schedule; each in line (or list) order."""
    where = problem.split(": ", 1)[0]
    number = re.search(r"(\d+)\]?$", where)
    return not where.startswith(players_name), int(number[1]) if number else 0


def _roster(players: list[_PlayerRow], problems: list[str]) -> dict[int, Player]:
    roster: dict[int, Player] = {}
    first: dict[tuple[str, object], str] = {}  # (kind, value) -> where it was given first
    for where, number, data in players:
        try:
            player = check_player(data)
        except Refusal as exc:
            problems.append(f"{where}: {exc.message}")
            continue
        # "ann" and "Ann" are one person to a reader of the results
        for kind, value, what in (("number", number, f"player number {number}"),
                                  ("name", player.name.casefold(), f"the name {player.name!r}"),
                                  ("ema_id", player.ema_id, f"the EMA ID {player.ema_id}")):
            if value is None:
                continue
            if (kind, value) in first:
                problems.append(f"{where}: {what} is given twice (first at {first[kind, value]})")
            else:
                first[kind, value] = where
        roster.setdefault(number, player)
    return roster


def _seatings(tables: list[_TableRow], known: set[int] | None, roster: dict[int, Player], players_name: str,
              problems: list[str]) -> list[TableSeating]:
    seatings = []
    given: dict[tuple[int, int], str] = {}         # (round, table) -> where
    seated: dict[tuple[int, int], tuple[int, str]] = {}  # (round, player) -> (table, where)
    for where, round_, table, numbers in tables:
        if (round_, table) in given:
            problems.append(f"{where}: round {round_} table {table} is given twice (first at {given[round_, table]})")
            continue
        given[round_, table] = where
        found = len(problems)
        for number in sorted(set(numbers) - known if known is not None else ()):
            problems.append(f"{where}: unknown player number {number}: {players_name} has no such player")
        for number in sorted({n for n in numbers if numbers.count(n) > 1}):
            problems.append(f"{where}: player {_who(number, roster)} sits twice at table {table} in round {round_}")
        for number in sorted(set(numbers)):
            other = seated.setdefault((round_, number), (table, where))
            if other[0] != table:
                problems.append(f"{where}: player {_who(number, roster)} sits at table {table} and at table "
                                f"{other[0]} ({other[1]}) in round {round_}")
        if len(problems) == found:
            seatings.append(TableSeating(round_, table, numbers))
    return seatings


def _who(number: int, roster: dict[int, Player]) -> str:
    return f"{number} ({roster[number].name})" if number in roster else str(number)


# -- messages ---------------------------------------------------------------------------------


def spans(numbers: Iterable[int], what: str = "") -> str:
    """``1-6`` or ``1-3, 5``: a few numbers for a message; ``what`` before them, plural
    when there are several (``rounds 1-3``, ``round 2``)."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    several = len(runs) > 1 or runs[0][0] != runs[0][1]
    return f"{what}{'s' if several else ''} {text}" if what else text


def not_scheduled(rounds: dict[int, list[int]], round_: int, table: int) -> str:
    """Why the schedule (round -> its tables) has no seating for ``table`` in ``round_``."""
    if not rounds:
        return "no schedule is imported: import the tournament's players and schedule first"
    if round_ not in rounds:
        return f"the schedule has no round {round_} (it has {spans(rounds, 'round')})"
    return f"the schedule seats {spans(rounds[round_], 'table')} in round {round_}, not table {table}"


def import_warnings(schedule: Schedule, table: int | None) -> list[str]:
    """What an import accepted but the director should know about this table."""
    if table is None:
        return ["this table has no number (table.number in the table config): starting a round "
                "needs it to find its seats"]
    if not schedule.rounds_at(table):
        return [f"the schedule never seats table {table} (it seats {spans((t.table for t in schedule.tables), 'table')}): "
                f"check table.number in the table config"]
    return []
