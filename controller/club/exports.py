"""What a tournament director or a club takes away: the EMA results rows of a round, a
row per player per game, and the journal of several games (docs/TOURNAMENT.md "Exports").

Pure functions over the store's records (``Game`` and its players, seat -> player); the
command (controller/commands/export.py) reads them and writes the CSV or JSON lines. A
seat's figures come from the game's final standings, which a finished game keeps:
``scores`` (the points at the end), ``final_scores`` (the table points: after uma, oka and
penalties) and ``ranks``.
"""
from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import IO

from controller.errors import MjtableError
from controller.club.journal import journal_records
from controller.club.players import seat_wind
from controller.store.database import Game, Store

EMA_COLUMNS = ("round", "table", "position", "name", "ema_id", "table_points", "score")
PLAYER_COLUMNS = ("name", "ema_id", "club_id", "game", "status", "round", "table", "session", "seat", "wind",
                  "score", "table_points", "rank")


class ExportError(MjtableError):
    """Nothing to export as asked; the message says what there is."""


def round_game(games: Sequence[Game], round_: int) -> Game:
    """The finished game of ``round_`` among a table's games."""
    played = [g for g in games if g.round == round_]
    finished = [g for g in played if g.status == "finished"]
    if len(finished) == 1:
        return finished[0]
    if finished:
        raise ExportError(f"round {round_} has {len(finished)} finished games here (games "
                          f"{', '.join(str(g.id) for g in finished)}); name one with --game")
    if played:
        raise ExportError(f"round {round_} has no finished game here: "
                          + ", ".join(f"game {g.id} is {g.status}" for g in played))
    raise ExportError(f"no game of round {round_} was played at this table")


def ema_rows(game: Game, players: dict[int, dict]) -> list[dict]:
    """A finished game's results as the EMA ranking takes them: one row per player, by
    position at the table (a tie shares the position; then by seat)."""
    if game.status != "finished" or game.final is None:
        raise ExportError(f"game {game.id} is {game.status}: only a finished game has results")
    final = game.final
    seats = sorted((s for s, rank in enumerate(final["ranks"]) if rank is not None),
                   key=lambda s: (final["ranks"][s], s))
    return [{"round": game.round, "table": game.table, "position": final["ranks"][s],
             "name": players.get(s, {}).get("name"), "ema_id": players.get(s, {}).get("ema_id"),
             "table_points": final["final_scores"][s], "score": final["scores"][s]} for s in seats]


def player_rows(games: Iterable[tuple[Game, dict[int, dict]]]) -> list[dict]:
    """One row per named player per game, by player (name, then game): where they sat,
    their starting wind and, once the game is finished, their figures."""
    rows = []
    for game, players in games:
        seats, dealer = game.rules.get("seats", ()), game.state.get("starting_dealer")  # unknown: no wind
        final = game.final if game.status == "finished" else None
        for seat, player in players.items():
            figures = {"score": final["scores"][seat], "table_points": final["final_scores"][seat],
                       "rank": final["ranks"][seat]} if final else {}
            rows.append({"name": player["name"], "ema_id": player.get("ema_id"), "club_id": player.get("club_id"),
                         "game": game.id, "status": game.status, "round": game.round, "table": game.table,
                         "session": game.session_id, "seat": seat, "wind": seat_wind(seats, dealer, seat) if dealer in seats else None,
                         **figures})
    return sorted(rows, key=lambda r: (r["name"].casefold(), r["game"]))


def journal_lines(store: Store, games: Iterable[Game]) -> list[dict]:
    """Each game's journal (controller/club/journal.py), every record with its game's id."""
    return [{"game": game.id, **record} for game in games for record in journal_records(store, game.id)]


def write_csv(rows: Iterable[dict], columns: Sequence[str], out: IO[str]) -> None:
    """A header, then the rows; an unknown value is an empty cell."""
    writer = csv.DictWriter(out, fieldnames=columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
