"""`mjtable export ema|players|journal`: what a tournament director or a club takes away.

Reads the database file directly, like `mjtable journal`, so it works whether the
controller runs or not. CSV (the journal: JSON lines) to standard output or ``--out``.
"""
from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext

from controller.club import exports as X
from controller.commands.client import CommandError, add_database_options, database_path
from controller.club.journal import write_jsonl
from controller.store.database import Store, StoreError

HELP = "export a round's EMA results, every game per player, or the journal (CSV / JSON lines)"
KINDS = {
    "ema": "the EMA results rows of this table's game in a round: position, name, EMA ID, table points, score",
    "players": "one CSV row per player per game: seat, starting wind, ids, score, table points, rank",
    "journal": "the journal of the games, with their players (JSON lines, each record with its game)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    for kind, help_ in KINDS.items():
        p = kinds.add_parser(kind, help=help_, description=help_[:1].upper() + help_[1:] + ".")
        which = p.add_mutually_exclusive_group(required=kind == "ema")
        which.add_argument("--round", type=int, metavar="N", help="the games of tournament round N")
        if kind != "ema":
            which.add_argument("--session", type=int, metavar="N", help="the games of club session N")
        which.add_argument("--game", type=int, metavar="ID", help="game ID only"
                           + ("" if kind == "ema" else " (default: every game)"))
        p.add_argument("--out", "--output", metavar="FILE", help="write to FILE instead of standard output")
        add_database_options(p)


def _games(store: Store, args: argparse.Namespace) -> list:
    if args.game is not None:
        return [store.game(args.game)]
    games = store.games(round=args.round, session_id=getattr(args, "session", None))
    if not games:
        asked = (f" of round {args.round}" if args.round is not None else
                 f" of session {args.session}" if args.session is not None else "")
        raise X.ExportError(f"no game{asked} in {store.path}")
    return games


def _export(store: Store, args: argparse.Namespace):
    """The writer of what was asked: ``write(out)``."""
    games = _games(store, args)
    if args.kind == "ema":
        game = games[0] if args.game is not None else X.round_game(games, args.round)
        rows = X.ema_rows(game, store.players(game.id))
        return lambda out: X.write_csv(rows, X.EMA_COLUMNS, out)
    if args.kind == "players":
        rows = X.player_rows((g, store.players(g.id)) for g in games)
        return lambda out: X.write_csv(rows, X.PLAYER_COLUMNS, out)
    records = X.journal_lines(store, games)
    return lambda out: write_jsonl(records, out)


def run(args: argparse.Namespace) -> int:
    try:
        with Store(database_path(args), create=False) as store:
            write = _export(store, args)
    except (CommandError, StoreError, X.ExportError) as exc:
        print(f"mjtable export {args.kind}: {exc}", file=sys.stderr)
        return 1
    try:
        with open(args.out, "w", newline="", encoding="utf-8") if args.out else nullcontext(sys.stdout) as out:
            write(out)
    except OSError as exc:
        print(f"mjtable export {args.kind}: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
