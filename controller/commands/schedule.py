"""`mjtable schedule import|show`: a tournament's players and who sits where in each round.

``import`` reads and checks the two CSV files here (every problem at once, exit 2,
nothing sent) and hands the schedule to the running controller (`schedule_import`),
which holds the state database while it runs and stores the schedule in one
transaction, replacing the one before. ``show`` reads the database file directly, like
`mjtable journal`.
"""
from __future__ import annotations

import argparse
import json
import sys

from controller.club import schedule as S
from controller.api.server import MAX_MESSAGE
from controller.commands.client import CommandError, add_connection_options, add_database_options, answer, \
    database_path
from controller.store.database import Store, StoreError

HELP = "import a tournament's schedule (players and seats per round) into the table, or show it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    load = actions.add_parser("import", help="check the files and give them to the running controller",
                              description="Check the players and schedule CSV files and give them to the running "
                                          "controller, replacing the schedule it had.")
    load.add_argument("--players", required=True, metavar="PLAYERS.csv",
                      help="number,name,ema_id,club_id (a header row; the ids optional)")
    load.add_argument("schedule", metavar="SCHEDULE.csv",
                      help="round,table,east,south,west,north of player numbers (a header row)")
    add_connection_options(load)
    show = actions.add_parser("show", help="print the imported schedule", description="Print the imported schedule.")
    show.add_argument("--round", type=int, metavar="N", help="only round N")
    add_database_options(show)


def run(args: argparse.Namespace) -> int:
    return _import(args) if args.action == "import" else _show(args)


def _import(args: argparse.Namespace) -> int:
    try:
        schedule = S.read_files(args.players, args.schedule)
    except S.ScheduleError as exc:
        print("mjtable schedule import: the schedule is refused, nothing changed:", file=sys.stderr)
        print("\n".join(f"  {p}" for p in exc.problems), file=sys.stderr)
        return 2
    request = schedule.to_request()
    size = len(json.dumps({"op": "schedule_import", **request}, separators=(",", ":")).encode())
    if size > MAX_MESSAGE:
        print(f"mjtable schedule import: the schedule takes {size // 1024} KB, more than the control API takes in "
              f"one request ({MAX_MESSAGE // 1024} KB); nothing changed", file=sys.stderr)
        return 2
    args.command = "schedule import"  # how `answer` names the command in its messages
    reply = answer(args, lambda client: client.request("schedule_import", **request))
    if reply is None:
        return 1
    for warning in reply.get("warnings", []):
        print(f"mjtable schedule import: warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps({"ok": True, **reply}))
        return 0
    here = reply.get("rounds_here") or []
    print(f"imported {reply['players']} players, {S.spans(reply['rounds'], 'round')}"
          + (f"; table {reply['table']} plays in {S.spans(here, 'round')}" if here else ""))
    return 0


def _show(args: argparse.Namespace) -> int:
    try:
        with Store(database_path(args), create=False) as store:
            rounds = store.schedule_rounds()
            if not rounds or (args.round is not None and args.round not in rounds):
                raise CommandError(S.not_scheduled(rounds, args.round, 0))
            lines = [_table_line(r, t, store.schedule(r, t)) for r, tables in rounds.items()
                     if args.round in (None, r) for t in tables]
    except (CommandError, StoreError) as exc:
        print(f"mjtable schedule show: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def _table_line(round_: int, table: int, seats: dict[int, dict]) -> str:
    """``round 2 table 7: East Ann (1, EMA 04010001) · South Bo (2) · ...``"""
    def who(p: dict) -> str:
        ids = [f"EMA {p['ema_id']}"] if "ema_id" in p else []
        ids += [f"club {p['club_id']}"] if "club_id" in p else []
        return f"{p['name']} ({', '.join([str(p['number']), *ids])})"
    return f"round {round_} table {table}: " + " · ".join(f"{S.WINDS[w].capitalize()} {who(p)}"
                                                          for w, p in sorted(seats.items()))
