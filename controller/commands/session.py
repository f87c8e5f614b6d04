"""`mjtable session start|end|show`: club sessions and their running totals (docs/SESSIONS.md).

Through the running controller (`mjtable run`), like the other client commands: it
knows which session is open and puts the totals on the table's displays. When no
controller answers, `session show` reads the state database itself, as `mjtable journal`
does (the totals of last night after the table was switched off). A request refused (no
session open, one open already, an unknown session) is exit status 2; a controller that
cannot be reached, 1.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys

from controller.club.exports import write_csv
from controller.club.sessions import chosen_session, session_games, session_report
from controller.api.client import Client, ClientError, RequestError
from controller.commands.client import CommandError, add_connection_options, answer, database_path
from controller.errors import Refusal
from controller.store.database import Store, StoreError

TOTALS_COLUMNS = ("place", "name", "ema_id", "club_id", "games", "table_points", "score", "average_rank")
HELP = "club sessions: start one, end it, show its games and each player's running totals"
STATUS = {"finished": "finished", "abandoned": "abandoned", "active": "in play"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="open a session: the games started from now on belong to it",
                               description="Open a session: the games started from now on belong to it.")
    start.add_argument("--name", default="", help="the session's name (e.g. \"Friday club\")")
    start.add_argument("--show-totals", action="store_true",
                       help="after each game the seat displays show each player's running total")
    end = actions.add_parser("end", help="close the open session (a game in play stays in it)",
                             description="Close the open session; a game in play stays in it.")
    show = actions.add_parser("show", help="the session's games and each player's running totals",
                              description="A session's games and each player's running totals.")
    show.add_argument("--session", type=int, metavar="ID", help="the session (default: the open one, else the latest)")
    show.add_argument("--on-table", action="store_true",
                      help="also show each seated player's total on the table's displays now (between games)")
    show.add_argument("--csv", action="store_true", help="the running totals as CSV, one row per player, "
                      "best first (for a spreadsheet or the club's site)")
    for action in (start, end, show):
        add_connection_options(action)
    show.add_argument("--db", metavar="PATH", help="the state database to read when no controller answers "
                      "(default: the table config's state.database)")


def _request(client: Client, args: argparse.Namespace) -> dict:
    if args.action == "start":
        return client.request("session_start", name=args.name, show_totals=args.show_totals)
    if args.action == "end":
        return client.request("session_end")
    chosen = {"session": args.session} if args.session is not None else {}
    return client.request("session_show", **chosen, **({"on_table": True} if args.on_table else {}))


class Refused(CommandError):
    """Refused by the rules of sessions (exit status 2), here or by the controller."""


def run(args: argparse.Namespace) -> int:
    refused = False

    def request(client: Client) -> dict:
        nonlocal refused
        try:
            return _request(client, args)
        except RequestError:
            refused = True
            raise
        except ClientError:
            if args.action != "show" or args.on_table or (args.socket and not args.db):
                raise
            try:
                return _from_database(args)
            except Refused:
                refused = True
                raise
    reply = answer(args, request)
    if reply is None:
        return 2 if refused else 1
    if getattr(args, "csv", False):
        write_csv(({"place": place, **{k: total.get(k) for k in TOTALS_COLUMNS[1:]}}
                   for place, total in enumerate(reply["totals"], 1)), TOTALS_COLUMNS, sys.stdout)
    else:
        print(json.dumps({"ok": True, **reply}) if args.json else describe(args.action, reply))
    return 0


def _from_database(args: argparse.Namespace) -> dict:
    """`session show` from the state database file, without a controller."""
    try:
        with Store(database_path(args), create=False) as store:
            async def call(method: str, *values, **named):
                return getattr(store, method)(*values, **named)

            async def report() -> dict:
                session = await chosen_session(call, args.session)
                return session_report(session, await session_games(call, session.id))
            return asyncio.run(report())
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    except Refusal as exc:
        raise Refused(exc.message) from None


# -- output --------------------------------------------------------------------------------


def describe(action: str, reply: dict) -> str:
    session = reply["session"]
    if action == "start":
        return f"session {session['id']}{_called(session)} started: the games started from now on belong to it" + \
            ("; the totals show on the table after each game" if session["show_totals"] else "")
    lines = [f"session {session['id']}{_called(session)} ended"] if action == "end" else []
    return "\n".join(lines + describe_report(reply))


def describe_report(report: dict) -> list[str]:
    """The session, its games, then the totals, best first."""
    session = report["session"]
    state = f"ended {session['ended_at']}" if session["ended_at"] else "open"
    lines = [f"session {session['id']}{_called(session)} · started {session['started_at']} · {state} · "
             f"{session['games']} game(s)"]
    for game in report["games"]:
        names = ", ".join(p["name"] for p in game["players"]) or "anonymous"
        lines.append(f"  game {game['id']:<4} {STATUS.get(game['status'], game['status']):<9}  "
                     f"{'counted' if game['counted'] else 'not counted':<11}  {names}")
    if not report["totals"]:
        return lines + ["no totals yet: no finished game with named players"]
    lines.append(f"{'place':<6} {'player':<30} {'games':>5} {'table points':>13} {'score':>9} {'average rank':>13}")
    for place, total in enumerate(report["totals"], 1):
        lines.append(f"{place:<6} {_who(total):<30} {total['games']:>5} {total['table_points']:>+13d} "
                     f"{total['score']:>9} {total['average_rank']:>13.2f}")
    return lines


def _who(total: dict) -> str:
    ids = [f"{label} {total[key]}" for key, label in (("ema_id", "EMA"), ("club_id", "club")) if key in total]
    return total["name"] + (f" ({', '.join(ids)})" if ids else "")


def _called(session: dict) -> str:
    return f" ({session['name']})" if session.get("name") else ""
