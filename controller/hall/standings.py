"""The standings over the whole field, and what the director exports. Pure: the hall's
records in, rows out.

A table's result names its seats East first (controller/api/mqtt/results.py); the hall's
seating of that round and table says who sat at each wind, so a result counts for the
players the hall seated. Totals are the club's (controller/club/totals.py: table points
and scores summed per person over the finished games, best first), each player keyed by
his tournament number; the director's corrections and point penalties
(controller/hall/penalties.py) are added on top. Players equal in table points and score
share their position; a disqualified player is ranked at the bottom, below everyone.
"""
from __future__ import annotations

import csv
from datetime import datetime, timezone
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import IO

from controller.club.schedule import TableSeating
from controller.club.totals import running_totals
from controller.hall.entry import HallPlayer
from controller.hall.store import Correction, Result

STANDINGS_COLUMNS = ("position", "number", "first_name", "last_name", "ema_id", "country", "games",
                     "table_points", "score", "corrections", "penalties", "warnings", "disqualified")
PENALTY_COLUMNS = ("id", "kind", "number", "first_name", "last_name", "round", "table_points", "who", "why", "at")
ROUND_COLUMNS = ("round", "table", "table_id", "wind", "number", "first_name", "last_name", "score",
                 "table_points", "rank", "ended", "chombo")
EMA_COLUMNS = ("position", "first_name", "last_name", "ema_id", "table_points", "score", "ema_member", "country")
WINDS = ("East", "South", "West", "North")
HEADER_LINES = (("Tournament", "title"), ("Place", "place"), ("Country", "country"), ("Start date", "start_date"),
                ("End date", "end_date"), ("Days", "days"), ("Rules", "rules"), ("MERS weight", "mers_weight"))


@dataclass(frozen=True)
class Line:
    position: int
    player: HallPlayer
    games: int
    table_points: int  # the games' table points, the corrections and the penalties, in the tables' unit
    score: int
    corrections: int
    penalties: int = 0     # the point penalties (late, obstruction, ...): 0 or less
    warnings: int = 0
    disqualified: bool = False


def seated(results: Iterable[Result], seating: Sequence[TableSeating]) -> list[tuple[Result, tuple[int, ...]]]:
    """Each result with the player numbers the hall seated at its table, East first."""
    by_place = {(s.round, s.table): s.numbers for s in seating}
    return [(r, by_place[r.round, r.table]) for r in results if (r.round, r.table) in by_place]


def standings(players: dict[int, HallPlayer], results: Iterable[Result], seating: Sequence[TableSeating],
              corrections: Iterable[Correction]) -> list[Line]:
    games = []
    for result, numbers in seated(results, seating):
        winds = result.result["winds"]
        games.append(({w: {"name": players[n].name, "club_id": str(n)} for w, n in enumerate(numbers)},
                      {"scores": [s["score"] for s in winds], "final_scores": [s["table_points"] for s in winds],
                       "ranks": [s["rank"] for s in winds]}))
    totals = {int(t.club_id): t for t in running_totals(games)}
    given: dict[int, dict] = {}  # player -> his corrections' and penalties' sums
    for c in corrections:
        mine = given.setdefault(c.player, {"corrections": 0, "penalties": 0, "warnings": 0, "disqualified": False})
        mine["corrections" if c.kind == "correction" else "penalties"] += c.points
        mine["warnings"] += c.kind == "warning"
        mine["disqualified"] |= c.kind == "disqualified"
    lines = []
    for n, player in players.items():
        total, mine = totals.get(n), given.get(n, {})
        if total is None and not mine and player.substitute:
            continue  # a substitute who has not played
        points = (total.table_points if total else 0) + mine.get("corrections", 0) + mine.get("penalties", 0)
        lines.append(Line(0, player, total.games if total else 0, points, total.score if total else 0,
                          **{"corrections": 0, **mine}))
    lines.sort(key=lambda l: (l.disqualified, -l.table_points, -l.score, l.player.last_name.casefold(),
                              l.player.first_name.casefold(), l.player.number))
    out: list[Line] = []
    for i, line in enumerate(lines):
        tied = out and (out[-1].disqualified, out[-1].table_points, out[-1].score) == (
            line.disqualified, line.table_points, line.score)
        out.append(replace(line, position=out[-1].position if tied else i + 1))
    return out


def ema_points(points: int) -> str:
    """Table points in the EMA's unit, a thousand of the tables' (20200 -> 20.2)."""
    text = f"{points / 1000:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


# -- the exports ---------------------------------------------------------------------------------


def standings_rows(lines: Iterable[Line]) -> list[dict]:
    return [{"position": l.position, "number": l.player.number, "first_name": l.player.first_name,
             "last_name": l.player.last_name, "ema_id": l.player.ema_id, "country": l.player.country,
             "games": l.games, "table_points": l.table_points, "score": l.score, "corrections": l.corrections,
             "penalties": l.penalties, "warnings": l.warnings, "disqualified": "yes" if l.disqualified else "no"}
            for l in lines]


def penalty_rows(players: dict[int, HallPlayer], corrections: Iterable[Correction]) -> list[dict]:
    """Every correction and penalty the director gave, with who, when and why."""
    return [{"id": c.id, "kind": c.kind, "number": c.player, "first_name": players[c.player].first_name,
             "last_name": players[c.player].last_name, "round": c.round, "table_points": c.points, "who": c.who,
             "why": c.why, "at": datetime.fromtimestamp(c.at, timezone.utc).isoformat(timespec="seconds")}
            for c in corrections]


def round_rows(players: dict[int, HallPlayer], results: Iterable[Result], seating: Sequence[TableSeating],
               round_: int | None = None) -> list[dict]:
    rows = []
    for result, numbers in seated(results, seating):
        if round_ is not None and result.round != round_:
            continue
        for wind, (n, s) in enumerate(zip(numbers, result.result["winds"])):
            rows.append({"round": result.round, "table": result.table, "table_id": result.table_id,
                         "wind": WINDS[wind], "number": n, "first_name": players[n].first_name,
                         "last_name": players[n].last_name, "score": s["score"], "table_points": s["table_points"],
                         "rank": s["rank"], "ended": result.result.get("ended", "rules"),
                         "chombo": sum(p.get("seat") == s.get("seat") for p in result.result.get("penalties", ()))})
    return rows


def ema_header(header: dict[str, str], players: int) -> list[list[str]]:
    return [[label, header.get(key, "")] for label, key in HEADER_LINES] + [["Players", str(players)]]


def ema_rows(lines: Iterable[Line]) -> list[list]:
    return [[l.position, l.player.first_name, l.player.last_name, l.player.ema_id or "", ema_points(l.table_points),
             l.score, "yes" if l.player.ema_member else "no", l.player.country] for l in lines]


def write_ema_csv(header: dict[str, str], lines: Sequence[Line], out: IO[str]) -> None:
    """The EMA results workbook's layout: the header block, a blank line, the players."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(ema_header(header, len(lines)))
    writer.writerow([])
    writer.writerow(EMA_COLUMNS)
    writer.writerows(ema_rows(lines))


def write_ema_xlsx(header: dict[str, str], lines: Sequence[Line], path: str) -> None:
    """The same sheet as .xlsx (openpyxl); table points as numbers with one decimal."""
    from openpyxl import Workbook  # lazily: only this export needs it

    book = Workbook()
    sheet = book.active
    sheet.title = "Results"
    for row in ema_header(header, len(lines)):
        sheet.append(row)
    sheet.append([])
    sheet.append(list(EMA_COLUMNS))
    for row in ema_rows(lines):
        row[4] = float(row[4])
        sheet.append(row)
        sheet.cell(sheet.max_row, 5).number_format = "0.0"
    book.save(path)


def unreported(tables: dict[int, str], seating: Sequence[TableSeating], results: Iterable[Result],
               round_: int) -> list[int]:
    """The tables seated in ``round_`` whose result has not come in."""
    done = {r.table for r in results if r.round == round_}
    return sorted(s.table for s in seating if s.round == round_ and s.table not in done)
