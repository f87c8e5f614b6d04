"""The client subcommands: `mjtable status|start|result|riichi|kan|pause|resume|retry|abandon|signal`.

Each one sends one request to the running controller's control API (docs/API.md) and
prints the answer for people, or as JSON with ``--json``.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from controller.api.client import Client, ClientError, RequestError
from controller.commands import CONFIG_HELP
from controller.commands.status_text import describe_status, time_limit_line
from controller.language import ENGLISH, Words, reader_words
from controller.club.players import SEATINGS, parse_player
from controller.club.time_limit import SIGNALS


# one line per command (this module serves several; see controller/cli.py)
HELP = {
    "status": "show the running controller's state: round, seats and scores, hand, faults",
    "start": "start a new game",
    "result": "enter the result of the hand in play",
    "riichi": "declare riichi for a seat (its 1,000 goes on the table)",
    "kan": "announce a kan (the table reveals the next dora indicator)",
    "pause": "pause the table (motion stops, nothing is lost)",
    "resume": "resume after a pause",
    "retry": "retry the operation that faulted",
    "abandon": "abandon the game in play (its hands stay in the journal)",
    "signal": "give a time-limited session's start signal or its warning signal",
}


class CommandError(Exception):
    """A problem the user fixes from the message alone."""


def path_from_config(config_file: str | None, name: str) -> tuple[Path, Path]:
    """``socket`` (api.socket) or ``database`` (state.database) of the table config that
    `mjtable run` uses too (controller.config.find_table_config), and that config's path."""
    # lazily: the config loader (rules, YAML) is not needed with --socket / --db
    from controller.app.config import ConfigError, find_table_config, load_table_config
    config = find_table_config(config_file)
    try:
        return getattr(load_table_config(config), name), config
    except ConfigError as exc:
        raise CommandError(str(exc)) from None


def add_database_options(parser: argparse.ArgumentParser) -> None:
    """--config / --db for the commands that read the state database file directly."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    where.add_argument("--db", metavar="PATH", help="state database file (default: the table config's state.database)")


def database_path(args: argparse.Namespace) -> Path:
    return Path(args.db) if args.db else path_from_config(args.config, "database")[0]


# -- arguments -------------------------------------------------------------------------


def _seat(text: str) -> int:
    if text not in ("0", "1", "2", "3"):
        raise argparse.ArgumentTypeError(f"a seat is 0, 1, 2 or 3, not {text!r}")
    return int(text)


def _responsible(text: str) -> int | None:
    return None if text.lower() == "none" else _seat(text)


def _dealer(text: str) -> int | str:
    return text if text == "draw" else _seat(text)


def _player(text: str) -> dict:
    try:
        return parse_player(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _NewWinner(argparse.Action):
    """``--winner S`` starts a winner; the options after it (--han, --fu, ...) describe it."""

    def __call__(self, parser, namespace, value, option_string=None):
        namespace.winners = [*(namespace.winners or []), {"seat": value}]


class _WinnerField(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):
        if not namespace.winners:
            parser.error(f"{option_string} must follow the --winner it belongs to")
        winner = namespace.winners[-1]
        if self.dest in winner:
            parser.error(f"{option_string} given twice for winner {winner['seat']}")
        winner[self.dest] = value


class _HandField(argparse.Action):
    """--tiles, --win, --meld, --flag, --dora, --ura: the winner's hand by its tiles (op score_tiles)."""

    def __call__(self, parser, namespace, value, option_string=None):
        if not namespace.winners:
            parser.error(f"{option_string} must follow the --winner it belongs to")
        hand = namespace.winners[-1].setdefault("tiles", {})
        key = self.dest.removeprefix("hand_")
        if key in ("melds", "flags"):
            hand.setdefault(key, []).append(value)
        elif key in hand:
            parser.error(f"{option_string} given twice for winner {namespace.winners[-1]['seat']}")
        else:
            hand[key] = value


def _meld(text: str) -> dict:
    from controller.rules.tiles import MELD_KINDS  # here: the other client commands load no rules

    kind, _, tiles = text.partition(":")
    kind = kind.replace("-", "_")
    if kind not in MELD_KINDS or not tiles:
        raise argparse.ArgumentTypeError(f"{text!r}: write KIND:TILES, KIND one of "
                                         f"{', '.join(k.replace('_', '-') for k in MELD_KINDS)} (pon:555z)")
    return {"kind": kind, "tiles": tiles}


def _add_tile_options(group) -> None:
    from controller.rules.tiles import FLAGS  # here: the other client commands load no rules

    group.add_argument("--tiles", dest="hand_tiles", action=_HandField, metavar="TILES",
                       help="riichi rule sets, instead of --han/--fu: the concealed tiles with the winning tile "
                            "(123m406p789s11z: m p s z, 0 a red five); the rules engine counts yaku, han and fu")
    group.add_argument("--win", dest="hand_win", action=_HandField, metavar="TILE", help="with --tiles: the winning tile")
    group.add_argument("--meld", dest="hand_melds", type=_meld, action=_HandField, metavar="KIND:TILES",
                       help="with --tiles, once a meld: chi:123m, pon:555z, kan:1111s (open), added-kan:, closed-kan:")
    group.add_argument("--flag", dest="hand_flags", choices=FLAGS, action=_HandField,
                       help="with --tiles, once a flag: how the hand was won (riichi is the declaration's)")
    group.add_argument("--dora", dest="hand_dora", action=_HandField, metavar="TILES",
                       help="with --tiles: the dora indicators the table turned (3m, or 3m7z after a kan)")
    group.add_argument("--ura", dest="hand_ura", action=_HandField, metavar="TILES",
                       help="with --tiles, a winner in riichi: the ura dora indicators")


def _add_winner_options(parser: argparse.ArgumentParser, discard_win: bool) -> None:
    group = parser.add_argument_group("winner (repeat --winner for each winner, each followed by its value)")
    group.add_argument("--winner", type=_seat, action=_NewWinner, dest="winners", metavar="SEAT", required=True,
                       help="the winner's seat (0-3); the options below, after it, describe this winner")
    group.add_argument("--han", type=int, action=_WinnerField, metavar="N", help="han-fu rule sets: the hand's han")
    group.add_argument("--fu", type=int, action=_WinnerField, metavar="N", help="han-fu rule sets: the hand's fu")
    group.add_argument("--yakuman", type=int, action=_WinnerField, metavar="N", help="limit hands: number of yakuman")
    group.add_argument("--points", type=int, action=_WinnerField, metavar="N", help="point-based rule sets (Zung Jung, MCR)")
    _add_tile_options(group)
    if discard_win:
        group.add_argument("--responsible", type=_responsible, action=_WinnerField, metavar="SEAT|none",
                           help="point-based rule sets: who pays for the discard (none = no one)")


def _add_riichi_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--riichi", type=_seat, nargs="*", action="extend", metavar="SEAT",
                        help="seats that declared riichi in this hand (none given: nobody), replacing the "
                             "declarations the controller holds (default: those made with `mjtable riichi`)")


def _add_result_arguments(parser: argparse.ArgumentParser) -> None:
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    ron = kinds.add_parser("ron", help="win on a discard (several --winner for multiple ron)",
                           description="A win on a discard; several --winner for a multiple ron.")
    ron.add_argument("--discarder", type=_seat, required=True, metavar="SEAT", help="the seat whose discard won")
    _add_winner_options(ron, discard_win=True)
    tsumo = kinds.add_parser("tsumo", help="self-drawn win", description="A self-drawn win.")
    _add_winner_options(tsumo, discard_win=False)
    draw = kinds.add_parser("draw", help="exhaustive draw", description="An exhaustive draw.")
    draw.add_argument("--tenpai", type=_seat, nargs="*", action="extend", default=[], metavar="SEAT",
                      help="seats that were tenpai")
    chombo = kinds.add_parser("chombo", help="a penalty instead of a result",
                              description="A penalty (false win and the like) instead of a result.")
    chombo.add_argument("--offender", type=_seat, required=True, metavar="SEAT", help="the seat that pays the penalty")
    for kind in (ron, tsumo, draw):
        _add_riichi_option(kind)
    for kind in (ron, tsumo, draw, chombo):
        kind.add_argument("--hand", type=int, metavar="SEQ", help="the hand's seq (default: the hand in play, from status)")
        add_connection_options(kind)


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--socket", metavar="PATH", help="control socket (default: the table config's api.socket)")
    where.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    parser.add_argument("--json", action="store_true", help="print the raw JSON reply")


def add_arguments_for(parser: argparse.ArgumentParser, name: str) -> None:
    if name == "result":
        _add_result_arguments(parser)  # connection options sit on each kind, after the result's own
        return
    if name == "start":
        parser.add_argument("--ruleset", metavar="NAME", help="a rule-set preset or a rule set of the table "
                            "config's rule-set folder, by name (default: the table config's)")
        parser.add_argument("--dealer", type=_dealer, metavar="SEAT|draw", help="starting dealer seat, or draw for it")
        parser.add_argument("--players", type=_player, nargs="+", metavar="NAME[:EMA=ID][,CLUB=ID]",
                            help="the players in seat order (seat 0 first), e.g. \"Ann:EMA=04010001\" Bo Cy Di "
                                 "(default: anonymous seats)")
        parser.add_argument("--seating", choices=SEATINGS, help="as-given (default): the players sit in the "
                            "order given; draw: the table draws their seats")
        parser.add_argument("--round", type=int, metavar="N", help="a tournament round: the players and their "
                            "seats (East at seat 0) from the imported schedule, at this table's table.number")
        parser.add_argument("--time-limit", action="store_true", help="play the session on the rule set's clock: "
                            "the dice wait for `mjtable signal start`, the warning ends the game after its hands")
        parser.add_argument("--east-only", action="store_true", help="play the East round alone (rule sets whose "
                            "text has that form: match.east_only)")
    elif name == "signal":
        parser.add_argument("signal", choices=SIGNALS, help="start: the session begins (the dice may be thrown); "
                            "warning: the time signal before the end (the table's clock gives it too)")
    elif name == "riichi":
        parser.add_argument("seat", type=_seat, help="the seat declaring riichi")
    elif name == "status":
        parser.add_argument("--verbose", "-v", action="store_true", help="also the walls and the link statistics")
    add_connection_options(parser)


# -- requests ------------------------------------------------------------------------------


def _result_object(args: argparse.Namespace) -> dict:
    if args.kind == "chombo":
        return {"kind": "chombo", "offender": args.offender}
    if args.kind == "tsumo" and len(args.winners) != 1:
        raise CommandError("a tsumo has exactly one --winner")
    if args.kind == "draw":
        result = {"kind": "draw", "tenpai": args.tenpai}
    elif args.kind == "ron":
        result = {"kind": "ron", "discarder": args.discarder, "winners": args.winners}
    else:
        result = {"kind": "tsumo", "winners": args.winners}
    # without --riichi the controller uses the declarations it was given (`mjtable riichi`)
    return result if args.riichi is None else {**result, "riichi": args.riichi}


def _hand_in_play(client: Client) -> int:
    status = client.request("status")
    if status["state"] == "game_over":  # its last hand is shown still, but its result is in
        raise CommandError("the game is over: no hand waits for a result; `mjtable start` begins the next game")
    hand = status.get("hand_in_play") or {}
    if not isinstance(hand.get("seq"), int):
        raise CommandError("no hand is in play, so there is no result to enter")
    return hand["seq"]


def _request(client: Client, args: argparse.Namespace) -> dict:
    op = args.command
    if op == "result":
        result = _result_object(args)
        hand = args.hand if args.hand is not None else _hand_in_play(client)
        if not any("tiles" in w for w in result.get("winners", [])):
            return client.request("result", hand=hand, result=result)
        scored = client.request("score_tiles", hand=hand, result=result)  # refused: nothing entered
        return {**client.request("result", hand=hand, result=scored["result"]), "hands": scored["hands"]}
    if op == "start":
        fields = {"ruleset": args.ruleset, "dealer": args.dealer, "players": args.players, "seating": args.seating,
                  "round": args.round,
                  "time_limit": args.time_limit or None, "east_only": args.east_only or None}
        return client.request("start", **{k: v for k, v in fields.items() if v is not None})
    if op == "signal":
        return client.request("signal", signal=args.signal)
    if op == "riichi":
        return client.request("riichi", seat=args.seat)
    return client.request(op)


def answer(args: argparse.Namespace, request: Callable[[Client], dict], timeout: float = 10.0) -> dict | None:
    """The reply of ``request`` to the controller that --socket or --config names; None
    once the reason it failed is printed."""
    try:
        path, config = (Path(args.socket), None) if args.socket else path_from_config(args.config, "socket")
    except CommandError as exc:  # an unreadable table config: as `mjtable run` and check-config, exit 2
        print(f"mjtable {args.command}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        return request(Client(path, timeout=timeout))
    except ClientError as exc:
        where = f"; that is the api.socket of {config}" if config and not isinstance(exc, RequestError) else ""
        print(f"mjtable {args.command}: {exc}{where}{command_hint(str(exc))}", file=sys.stderr)
    except CommandError as exc:
        print(f"mjtable {args.command}: {exc}{command_hint(str(exc))}", file=sys.stderr)
    return None


# The API's refusals say what to do in words, to every client; at the console the command
# that does it is added (the phrase of the refusal: the command).
_HINTS = (
    ("no session yet: start one first", "mjtable session start"),
    ("); end it first", "mjtable session end"),
    ("start a game with its time limit first", "mjtable start --time-limit"),
    ("give the start signal first", "mjtable signal start"),
    ("import the tournament's players and schedule first", "mjtable schedule import"),
    ("resume it first", "mjtable resume"),
    ("resume carries on", "mjtable resume"),
    ("then retry, which stores it", "mjtable retry"),
    ("nothing changed; start the next game", "mjtable start"),
    ("correct its file on the table's controller", "mjtable check-config FILE"),
)


def command_hint(message: str) -> str:
    command = next((command for phrase, command in _HINTS if phrase in message), None)
    return f" (`{command}`)" if command else ""


def run(args: argparse.Namespace) -> int:
    reply = answer(args, lambda client: _request(client, args))
    if reply is None:
        return 1
    if args.json:
        print(json.dumps({"ok": True, **reply}))
    elif "state" in reply:  # status, and the replies that carry the state (start)
        print(describe_status(reply, verbose=getattr(args, "verbose", False), words=reader_words()))
    else:
        print(describe(reply, reader_words()))
    return 0


# -- output --------------------------------------------------------------------------------


def describe(reply: dict, words: Words = ENGLISH) -> str:
    """The reply for people: a result says whether it was recorded (in the reader's language);
    anything else as an outline."""
    if "hands" in reply:  # scored by tiles, then entered
        return "\n".join([*(hand_breakdown(hand, words) for hand in reply["hands"]),
                          describe({"duplicate": reply["duplicate"]}, words)])
    if "duplicate" in reply:
        if reply["duplicate"]:
            return words.say("that hand's result was already recorded; nothing changed")
        return words.say("recorded")
    if "time_limit" in reply:  # a signal given
        return time_limit_line(reply["time_limit"])
    return "\n".join(_outline(reply)) or "ok"


def hand_breakdown(hand: dict, words: Words = ENGLISH) -> str:
    """A hand scored by its tiles, for people: `seat 1: Riichi 1, Pinfu 1 = 2 han 30 fu` (the
    yaku as the rules engine names them)."""
    yakuman = words.say("yakuman")
    yaku = ", ".join(f"{y['name']} {yakuman if y['han'] >= 13 and hand['yakuman'] else y['han']}" for y in hand["yaku"])
    value = (words.say("{count} yakuman", count=hand["yakuman"]) if hand["yakuman"]
             else words.say("{han} han {fu} fu", han=hand["han"], fu=hand["fu"]))
    return (words.say("seat {seat}: {yaku} = {value}", seat=hand["seat"], yaku=yaku, value=value)
            + (f" ({hand['limit']})" if hand["limit"] else ""))


def _outline(value: dict, indent: str = "") -> list[str]:
    lines = []
    for key, item in value.items():
        label = f"{indent}{key.replace('_', ' ')}:"
        if isinstance(item, dict):
            lines += [label, *_outline(item, indent + "  ")]
        elif isinstance(item, list) and any(isinstance(i, (dict, list)) for i in item):
            lines.append(label)
            lines += [f"{indent}  - {json.dumps(i)}" for i in item]
        elif isinstance(item, list):
            lines.append(f"{label} {' '.join(str(i) for i in item)}")
        else:
            lines.append(f"{label} {'-' if item is None else item}")
    return lines
