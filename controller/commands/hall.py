"""`mjtable hall import|serve|standings|export|correct`: the tournament hall (docs/HALL.md).

``import`` checks the tournament's files (every problem at once, exit 2, nothing
changed) and enters them in the hall's database; ``serve`` runs the hall on the broker
(results in, each exactly once; the tables' tiles and the standings on its page);
``standings`` and ``export`` read the database file, so they work whether the hall runs
or not; ``correct`` and ``penalty`` record a correction or penalty (who, when, why) and
``seating swiss`` seats a round: sent to the running hall on its control socket (it owns
its database), or made here when no hall runs.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from controller.commands.floor import add_broker_arguments, broker_connection, serve_page
from controller.hall.penalties import PENALTY_KINDS

HELP = "the tournament hall: the tournament entered once, every table's results in, the standings and exports"
DEFAULT_DB = "hall.db"
DEFAULT_LISTEN = "127.0.0.1:8089"
EXPORTS = ("ema", "ema-xlsx", "standings", "rounds", "penalties")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    enter = actions.add_parser("import", help="check the tournament's files and enter them in the hall's database")
    enter.add_argument("--players", required=True, metavar="PLAYERS.csv",
                       help="number,first_name,last_name,ema_id,country,ema_member[,substitute]")
    enter.add_argument("--header", required=True, metavar="HEADER.csv", help="key,value: the tournament's header")
    enter.add_argument("--tables", required=True, metavar="TABLES.csv", help="number,table_id of every table")
    enter.add_argument("seating", metavar="SEATING",
                       help="schedule.csv (round,table,east,south,west,north) or Pantheon's seating text")
    serve = actions.add_parser("serve", help="run the hall on the broker: results in, standings live")
    add_broker_arguments(serve, DEFAULT_LISTEN, "the hall")
    serve.add_argument("--director-username", metavar="NAME",
                       help="the broker's account the page's orders to the tables go out as (the ACL's director; "
                            "default: --username's)")
    serve.add_argument("--director-password-file", type=Path, metavar="FILE", help="a file holding its password")
    standings = actions.add_parser("standings", help="print the standings over the whole field")
    export = actions.add_parser("export", help="the EMA results workbook (CSV or .xlsx), the standings, the rounds, "
                                                 "the penalties and corrections")
    export.add_argument("what", choices=EXPORTS)
    export.add_argument("--round", type=int, metavar="N", help="rounds: only round N")
    export.add_argument("--out", metavar="FILE", help="write here (required for ema-xlsx; default stdout)")
    correct = actions.add_parser("correct", help="a correction of a player's table points (a penalty: `penalty`)")
    correct.add_argument("player", type=int, help="the player's tournament number")
    correct.add_argument("points", type=int, help="table points added (negative: taken off), e.g. -2000")
    correct.add_argument("--who", required=True, help="who decided it")
    correct.add_argument("--why", required=True, help="why")
    correct.add_argument("--round", type=int, metavar="N", help="the round it belongs to")
    penalty = actions.add_parser("penalty", help="a penalty the EMA's rules give (besides the tables' chombo): "
                                                 "points, late, warning, disqualified")
    penalty.add_argument("player", type=int, help="the player's tournament number")
    penalty.add_argument("kind", choices=PENALTY_KINDS,
                         help="points: --points N deducted after the uma; late: --minutes M (1-10), 1,000 a minute; "
                              "warning: no points; disqualified: ranked at the bottom")
    penalty.add_argument("--points", type=int, metavar="N", help="points: the table points deducted, e.g. 8000")
    penalty.add_argument("--minutes", type=int, metavar="M", help="late: the minutes late, 1-10")
    penalty.add_argument("--who", required=True, help="who decided it")
    penalty.add_argument("--why", required=True, help="why")
    penalty.add_argument("--round", type=int, metavar="N", help="the round it belongs to")
    seating = actions.add_parser("seating", help="generate a seating (shuffled, or Swiss by the standings), "
                                                 "show it, and report repeat meetings")
    seat = seating.add_subparsers(dest="seating", metavar="HOW", required=True)
    generate = seat.add_parser("generate", help="every round shuffled, as few repeat meetings as possible "
                                                "(Pantheon's seating text, for `hall import`)")
    generate.add_argument("--players", required=True, metavar="PLAYERS.csv", help="as `hall import` takes it")
    generate.add_argument("--rounds", required=True, type=int, metavar="N")
    generate.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    generate.add_argument("--out", metavar="FILE", help="write the seating here (default stdout)")
    swiss = seat.add_parser("swiss", help="round N by the standings, added to the hall's seating")
    swiss.add_argument("--round", required=True, type=int, metavar="N")
    swiss.add_argument("--seed", type=int, default=1, help="the winds' draw's seed (default 1)")
    show = seat.add_parser("show", help="print the hall's seating by name, and the repeat meetings")
    tables = actions.add_parser("tables", help="to every table at once: the seating, the start of a round, "
                                               "a time signal")
    add_broker_arguments(tables, None, "the hall")
    order = tables.add_subparsers(dest="order", metavar="ORDER", required=True)
    order.add_parser("seating", help="every table its schedule (each checks it as `schedule import` does)")
    start = order.add_parser("start", help="start round N on every table")
    start.add_argument("round", type=int, metavar="N")
    signal_ = order.add_parser("signal", help="the session's time signal on every table")
    signal_.add_argument("signal", choices=("start", "warning"))
    tables.add_argument("--timeout", type=float, default=10.0, help="seconds the tables have to answer (default 10)")
    for sub in (enter, serve, standings, export, correct, penalty, swiss, show, tables):
        sub.add_argument("--db", default=DEFAULT_DB, metavar="PATH", help=f"the hall's database (default {DEFAULT_DB})")


def run(args: argparse.Namespace) -> int:
    from controller.hall.store import HallStoreError

    try:
        return {"import": _import, "serve": _serve, "standings": _standings, "export": _export,
                "correct": _correct, "penalty": _penalty, "seating": _seating, "tables": _tables}[args.action](args)
    except HallStoreError as exc:
        print(f"mjtable hall {args.action}: {exc}", file=sys.stderr)
        return 2


def _import(args: argparse.Namespace) -> int:
    from controller.club.schedule import ScheduleError, spans
    from controller.hall.entry import read_tournament
    from controller.hall.store import HallStore

    try:
        tournament = read_tournament(args.players, args.header, args.tables, args.seating)
    except ScheduleError as exc:
        print("mjtable hall import: the tournament is refused, nothing changed:", file=sys.stderr)
        print("\n".join(f"  {p}" for p in exc.problems), file=sys.stderr)
        return 2
    store = HallStore(args.db)
    try:
        store.enter(tournament)
    finally:
        store.close()
    rounds = {s.round for s in tournament.seating}
    subs = sum(p.substitute for p in tournament.players.values())
    print(f"entered {tournament.header['title']}: {len(tournament.players)} players ({subs} substitutes), "
          f"{len(tournament.tables)} tables, {spans(rounds, 'round')}")
    return 0


def _reader(args: argparse.Namespace):
    from controller.hall.store import HallStore
    return HallStore(args.db, lock=False)


def _lines(store):
    from controller.hall.standings import standings
    return standings(store.players(), store.results(), store.seating(), store.corrections())


def _standings(args: argparse.Namespace) -> int:
    from controller.hall.standings import ema_points

    store = _reader(args)
    try:
        for line in _lines(store):
            p = line.player
            print(f"{line.position:4d}  {p.first_name} {p.last_name} ({p.number}, {p.country})  "
                  f"{ema_points(line.table_points)}  score {line.score}  games {line.games}"
                  + (f"  corrections {ema_points(line.corrections)}" if line.corrections else "")
                  + (f"  penalties {ema_points(line.penalties)}" if line.penalties else "")
                  + (f"  warnings {line.warnings}" if line.warnings else "")
                  + ("  DISQUALIFIED" if line.disqualified else ""))
    finally:
        store.close()
    return 0


def _export(args: argparse.Namespace) -> int:
    from controller.club.exports import write_csv
    from controller.hall import standings as S

    if args.what == "ema-xlsx" and not args.out:
        print("mjtable hall export: ema-xlsx needs --out FILE.xlsx", file=sys.stderr)
        return 2
    store = _reader(args)
    try:
        if args.what == "ema-xlsx":
            S.write_ema_xlsx(store.header(), _lines(store), args.out)
            return 0
        out = open(args.out, "w", newline="", encoding="utf-8") if args.out else sys.stdout
        try:
            if args.what == "ema":
                S.write_ema_csv(store.header(), _lines(store), out)
            elif args.what == "standings":
                write_csv(S.standings_rows(_lines(store)), S.STANDINGS_COLUMNS, out)
            elif args.what == "penalties":
                write_csv(S.penalty_rows(store.players(), store.corrections()), S.PENALTY_COLUMNS, out)
            else:
                write_csv(S.round_rows(store.players(), store.results(), store.seating(), args.round),
                          S.ROUND_COLUMNS, out)
        finally:
            if args.out:
                out.close()
    finally:
        store.close()
    return 0


def _correct(args: argparse.Namespace) -> int:
    return _record(args, {"player": args.player, "kind": "correction", "points": args.points, "who": args.who,
                          "why": args.why, "round": args.round})


def _penalty(args: argparse.Namespace) -> int:
    return _record(args, {"player": args.player, "kind": args.kind, "points": args.points,
                          "minutes": args.minutes, "who": args.who, "why": args.why, "round": args.round})


def _record(args: argparse.Namespace, request: dict) -> int:
    from controller.hall.standings import ema_points

    reply = _director(args, "record", request)
    if reply is None:
        return 2
    c = reply["correction"]
    what = "correction" if c["kind"] == "correction" else f"penalty ({c['kind']})"
    print(f"{what} {c['id']}: player {c['player']}" + (f" {ema_points(c['points'])}" if c["points"] else "")
          + f" by {c['who']}: {c['why']}")
    return 0


def _director(args: argparse.Namespace, op: str, request: dict) -> dict | None:
    """A director's change (controller/hall/director.py): sent to the running hall on its
    control socket, or, when no hall runs, made here on the database (its lock taken as
    the hall takes it). The reply's fields; None after saying why it was refused."""
    from controller.errors import Refusal
    from controller.hall import control, director
    from controller.hall.store import HallStore

    request = {k: v for k, v in request.items() if v is not None}
    try:
        reply = control.ask(control.socket_path(args.db), op, request)
    except OSError as exc:
        print(f"mjtable hall {args.action}: the running hall does not answer on {control.socket_path(args.db)}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return None
    if reply is None:
        store = HallStore(args.db)
        try:
            return director.handle(store, op, request)
        except Refusal as refusal:
            reply = {"ok": False, "error": {"message": refusal.message}}
        finally:
            store.close()
    if not reply.get("ok"):
        print(f"mjtable hall {args.action}: {reply['error']['message']}; nothing changed", file=sys.stderr)
        return None
    return reply


def _seating(args: argparse.Namespace) -> int:
    from controller.club.schedule import ScheduleError
    from controller.hall import seating as S
    from controller.hall.entry import read_players

    if args.seating == "generate":
        try:
            players = [n for n, p in read_players(args.players).items() if not p.substitute]
            rounds = S.shuffled(players, args.rounds, args.seed)
        except ScheduleError as exc:
            print("mjtable hall seating: " + "\n  ".join(["the players are refused:", *exc.problems]), file=sys.stderr)
            return 2
        except ValueError as exc:
            print(f"mjtable hall seating: {exc}", file=sys.stderr)
            return 2
        _write(S.pantheon_text(rounds), args.out)
        print("\n".join(S.repeat_report(rounds)), file=sys.stderr if not args.out else sys.stdout)
        return 0
    if args.seating == "swiss" and _director(args, "swiss", {"round": args.round, "seed": args.seed}) is None:
        return 2
    store = _reader(args)
    try:
        players, rounds = store.players(), _rounds(store.seating())
    finally:
        store.close()
    for round_, tables in rounds.items():
        for table, numbers in enumerate(tables, 1):
            print(f"round {round_} table {table}: " + " · ".join(
                f"{wind} {players[n].name} ({n})" for wind, n in zip(("East", "South", "West", "North"), numbers)))
    print("\n".join(S.repeat_report(rounds.values())))
    return 0


def _tables(args: argparse.Namespace) -> int:
    from controller.hall.orders import answer_lines, schedule_request, send, too_large

    found = broker_connection(args, "hall tables")
    if found is None:
        return 2
    store = _reader(args)
    try:
        tables = store.tables()
        if args.order == "seating":
            request, done = schedule_request(store.players(), store.seating()), "the seating is taken"
        elif args.order == "start":
            request, done = {"op": "start", "round": args.round}, f"round {args.round} started"
        else:
            request, done = {"op": "signal", "signal": args.signal}, f"{args.signal} signal given"
    finally:
        store.close()
    if (why := too_large(request)) is not None:
        print(f"mjtable hall tables: {why}", file=sys.stderr)
        return 2
    replies = asyncio.run(send(found[0], args.prefix, tables, request, args.timeout))
    print("\n".join(answer_lines(tables, replies, done, args.timeout)))
    return 0 if all(r is not None and r.get("ok") for r in replies.values()) else 1


def _rounds(seating) -> dict[int, list[list[int]]]:
    rounds: dict[int, list[list[int]]] = {}
    for s in seating:
        rounds.setdefault(s.round, []).append(list(s.numbers))
    return rounds


def _write(text: str, out: str | None) -> None:
    if out:
        Path(out).write_text(text)
    else:
        sys.stdout.write(text)


def _serve(args: argparse.Namespace) -> int:
    from controller.hall.store import HallStore

    found = broker_connection(args, "hall serve")
    if found is None:
        return 2
    try:
        orders = _director_connection(args, found[0])
    except OSError as exc:
        print(f"mjtable hall serve: --director-password-file: {exc.strerror or exc}", file=sys.stderr)
        return 2
    store = HallStore(args.db)
    try:
        if not store.tables():
            print(f"mjtable hall serve: {args.db} has no tournament: `mjtable hall import` first", file=sys.stderr)
            return 2
        return asyncio.run(_hall(store, *found, args.prefix, orders))
    finally:
        store.close()


def _director_connection(args: argparse.Namespace, hall):
    """The broker connection of the page's orders: the director's account when given (the
    ACL lets the hall's own account only read and confirm results), else the hall's."""
    from dataclasses import replace

    if args.director_username is None:
        return hall
    password = args.director_password_file.read_text().strip() if args.director_password_file else None
    return replace(hall, username=args.director_username, password=password)


def _operator_hash(db: Path) -> str:
    """The hall's operator secret's hash, kept next to its database; made (and printed
    once) at the first start."""
    from controller.api.web.secret import secret_file, stored_or_new

    path = secret_file(db)
    hashed, new = stored_or_new(path)
    if new is not None:
        print(f"mjtable hall serve: the hall's operator secret (shown once; its hash is kept in {path}): {new}",
              file=sys.stderr, flush=True)
    return hashed


async def _hall(store, connection, host: str, port: int, prefix: str, orders) -> int:
    from controller.api.web.access import Access
    from controller.hall import control
    from controller.hall.page import HallBoard, HallView, build_app
    from controller.hall.service import Hall

    hall = Hall(store, HallBoard(prefix))
    view = HallView(hall, Access(_operator_hash(store.path)), orders)
    hall.on_change, hall.on_result, hall.on_broker = view.changed, view.results_changed, view.broker_state

    async def following() -> None:  # the broker's results, and the director's changes on the control socket
        await asyncio.gather(hall.follow(connection), control.serve(control.socket_path(store.path), hall.direct))

    return await serve_page(build_app(view), host, port, "hall serve", "hall", following)
