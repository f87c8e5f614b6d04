"""`mjtable journal`: export the hand journal from the state database.

Reads the database file directly, so it works whether the controller runs or not
(SQLite's WAL lets a reader see every committed hand while the controller writes).
"""
from __future__ import annotations

import argparse
import sys

from controller.commands.client import CommandError, add_database_options, database_path
from controller.club.journal import WRITERS, journal_records
from controller.store.database import Store, StoreError

HELP = "export the hand journal (JSON lines or CSV) from the state database"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_database_options(parser)
    parser.add_argument("--format", choices=sorted(WRITERS), default="jsonl", help="output format (default jsonl)")
    parser.add_argument("--game", type=int, metavar="ID", help="game id (default: the latest game)")
    parser.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")


def run(args: argparse.Namespace) -> int:
    try:
        path = database_path(args)
        with Store(path, create=False) as store:
            records = journal_records(store, args.game)
    except (CommandError, StoreError) as exc:
        print(f"mjtable journal: {exc}", file=sys.stderr)
        return 1
    write = WRITERS[args.format]
    if args.output is None:
        write(records, sys.stdout)
        return 0
    try:
        with open(args.output, "w", newline="", encoding="utf-8") as out:
            write(records, out)
    except OSError as exc:
        print(f"mjtable journal: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
