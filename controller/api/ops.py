"""The control API's ops, each declared once: its name, argument shape, least role on the
web page, whether it only reads, and its handler.

Every transport reads this table: the socket server and MQTT check a request's shape here
(controller/api/server.py), the web server the caller's role too (controller/api/web/access.py), and
`Service.handle` runs the handler. A handler is given the `Service` and the checked
arguments; it returns the reply's fields or raises `Refusal`, having changed nothing. The
wire format is docs/API.md's, whose op list tests/api/test_ops_doc.py checks against this.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from controller.club import players as P
from controller import rules as R
from controller.club import schedule as S
from firmware_protocol.catalog import TEST_SUBSYSTEMS
from firmware_protocol.codes import Code

from controller.errors import Refusal
from controller.game.faults import remedy
from controller.api.qr import qr_svg
from controller.club.journal import game_journal
from controller.club.players import SEATINGS
from controller.game.clock import check_time_limit
from controller.store.database import StoreError
from controller.store.writer import kept_database
from controller.club.time_limit import SIGNALS

ROLES = ("spectator", "player", "operator")  # each with the rights of the ones before it


@dataclass(frozen=True)
class Arg:
    check: Callable[[Any], bool]
    expected: str
    required: bool = True


@dataclass(frozen=True)
class Op:
    name: str
    handler: Callable[..., Awaitable[dict | None]] | None  # (service, **args); None: the transport's own
    args: dict[str, Arg] = field(default_factory=dict)
    role: str = "operator"  # the least role that may run it on the web page
    read: bool = False      # changes nothing (the web page's GET routes serve only these)


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_SEAT = Arg(lambda v: is_int(v) and 0 <= v <= 3, "a seat number 0-3")
RESULT_KINDS = ("ron", "tsumo", "draw", "chombo")
_RESULT = {
    "hand": Arg(lambda v: is_int(v) and v >= 0, "the seq of the hand in play (an integer, from status)"),
    "result": Arg(
        lambda v: isinstance(v, dict) and v.get("kind") in RESULT_KINDS,
        f"a result object with \"kind\" one of {', '.join(RESULT_KINDS)}",
    ),
}


# ---- the game ----

async def _status(service) -> dict:
    return {**service.controller.snapshot(), "sticks": service.controller.sticks.status()}


async def _start(service, ruleset: str | None = None, dealer: int | str | None = None, players: list | None = None,
                 seating: str | None = None, round: int | None = None, time_limit: bool = False,
                 east_only: bool = False) -> dict:
    async with service.starting:  # one start at a time: the next finds the first's game running
        return await _start_game(service, ruleset, dealer, players, seating, round, time_limit, east_only)


async def _start_game(service, ruleset, dealer, players, seating, round, time_limit, east_only) -> dict:
    c = service.controller
    c.check_start()
    await service.last_game_ended()
    c.check_start()  # as the last game left the table
    service.maintenance.refuse_game()
    if ruleset is None or ruleset == c.default_rules[1]:
        rules = c.default_rules  # the config's, even after a game that named another (or was East only)
    else:
        rules = _named_ruleset(ruleset, service.rulesets)
    if east_only:
        if not rules[0].match.east_only:
            raise Refusal("bad_request", f"rule set {rules[1]} has no East-only form in its text (match.east_only); "
                                         "a copy with match.rounds: 1 plays the East round alone")
        rules = (rules[0].east_only_form(), rules[1])
    # checked before the rule set changes: a refused start changes nothing
    place = None
    if round is not None:
        seated, dealer, seating, place = await _round_seating(service, round, rules[0], players, seating, dealer)
        time_limit = time_limit or rules[0].time_limit is not None  # a round runs on the rule set's clock
    else:
        seated = P.check_players(players, rules[0].seats) if players is not None else []
    seating = seating or "as-given"
    if seating == "draw" and not seated:
        raise Refusal("bad_request", "seating draw needs the players: name them with players")
    if time_limit:
        check_time_limit(*rules)
    c.use_rules(*rules)
    chosen = service.starting_dealer if dealer is None else dealer
    if chosen != "draw" and chosen not in c.rules.seats:
        raise Refusal("bad_request", f"dealer must be one of {list(c.rules.seats)} or 'draw'")
    await c.new_game(chosen, seated, seating, place, time_limit=time_limit)
    service.run_game()
    return c.snapshot()


def _named_ruleset(name: str, folder) -> tuple[R.RuleSet, str]:
    try:
        ref = R.find_ruleset(name, folder)
    except R.ConfigError as exc:
        raise Refusal("bad_request", exc.issues[0].message) from None
    try:
        return R.load_ruleset(ref), ref  # on the loop, but bounded: at most 64 KB
    except R.ConfigError as exc:  # where, not what: the reply never quotes a file
        raise Refusal("bad_request", f"the rule set {name!r} is not valid: {exc.places()}; "
                       f"correct its file on the table's controller") from None


async def _round_seating(service, round_: int, rules: R.RuleSet, players, seating, dealer):
    """The players of this table in ``round_``, East first at the first seat (its starting
    dealer), as the schedule seats them: (players, dealer, seating, place)."""
    given = [name for name, value in (("players", players), ("seating", seating), ("dealer", dealer))
             if value is not None]
    if given:
        raise Refusal("bad_request", f"a round takes its seats and its East from the schedule: "
                                     f"start it without {' and '.join(given)}")
    table = service.table_number
    if table is None:
        raise Refusal("not_allowed", "this table has no number: set table.number in the table config "
                                     "to take its seats from the schedule")
    db = kept_database(service.controller.db, "it has no schedule")
    try:
        found = await db.call("schedule", round_, table)
        rounds = {} if found else await db.call("schedule_rounds")
    except StoreError as exc:
        raise Refusal("store_failed", f"{exc}; no game was started") from None
    if not found:
        raise Refusal("not_allowed", S.not_scheduled(rounds, round_, table))
    if sorted(found) != list(range(len(rules.seats))):
        raise Refusal("not_allowed", f"the schedule seats {len(found)} players at table {table} in "
                                     f"round {round_}; rule set {rules.name} seats {len(rules.seats)}")
    seated = [P.Player.from_dict(found[wind]) for wind in sorted(found)]
    return seated, rules.seats[0], "schedule", S.RoundTable(round_, table)


async def _result(service, hand: int, result: dict) -> dict:
    return await service.controller.enter_result(hand, result)


async def _riichi(service, seat: int) -> None:
    await service.controller.declare_riichi(seat)


async def _kan(service) -> None:
    await service.controller.declare_kan()


async def _pause(service) -> None:
    await service.controller.pause()


async def _resume(service) -> None:
    await service.controller.resume()


async def _retry(service) -> None:
    fault = service.controller.fault
    if fault is not None and fault.code == Code.GAME_STOPPED:
        raise Refusal("not_allowed", f"{fault.describe()}: nothing to retry; {remedy(fault.code)}")
    service.controller.retry()


async def _abandon(service) -> None:
    task = service.controller.game.task  # the abandoned game's: abandon replaces the game
    recorded = service.controller.abandon()  # refuses (changing nothing) when there is nothing to abandon now
    if task is not None:
        task.cancel()
    await recorded  # ok once the store has it


# ---- a tournament's schedule (docs/TOURNAMENT.md) and its clock (docs/API.md "Time limit") ----

async def _schedule_import(service, players: list, tables: list) -> dict:
    """Replace the roster and the schedule as a whole; warns when this table is not in it."""
    try:
        schedule = S.from_request(players, tables)
    except S.ScheduleError as exc:
        raise Refusal("bad_request", "the schedule is refused:\n" + "\n".join(exc.problems)) from None
    roster = {number: p.to_dict() for number, p in schedule.roster.items()}
    table = service.table_number
    try:
        await kept_database(service.controller.db, "it has no schedule").call(
            "import_schedule", roster, schedule.rows())
    except StoreError as exc:
        raise Refusal("store_failed", f"{exc}; the schedule stored before is kept") from None
    return {"players": len(roster), "rounds": sorted({t.round for t in schedule.tables}),
            "table": table, "rounds_here": schedule.rounds_at(table) if table else [],
            "warnings": S.import_warnings(schedule, table)}


async def _signal(service, signal: str) -> dict:
    return {"time_limit": service.controller.signal(signal)}


# ---- maintenance (protocol 1.1 tables; docs/MAINTENANCE.md) ----

async def _counters(service) -> dict:
    return await service.maintenance.counters()


async def _record_service(service) -> dict:
    return await service.maintenance.reset_service_counter()


async def _sensor_test(service, subsystem: str | None = None, seat: int | None = None) -> dict:
    return await service.maintenance.sensor_test(subsystem, seat)


# ---- club sessions (docs/SESSIONS.md) ----

async def _session_start(service, name: str = "", show_totals: bool = False) -> dict:
    return await service.controller.sessions.start(name, show_totals)


async def _session_end(service) -> dict:
    return await service.controller.sessions.end()


async def _session_show(service, session: int | None = None, on_table: bool = False) -> dict:
    return await service.controller.sessions.show(session, on_table)


# ---- the web page's reads (the socket has them too) ----

async def _journal(service, game: int | None = None) -> dict:
    db = kept_database(service.controller.db, "no journal")
    try:
        return await db.read(lambda store: game_journal(store, game))
    except StoreError as exc:
        raise Refusal("not_allowed", str(exc)) from None


async def _preview(service, hand: int, result: dict) -> dict:
    return service.controller.results.preview(hand, result)


# ---- the page ----

async def _qr(service) -> dict:
    """The page's address drawn as a QR code, for the operator to show the players' phones."""
    if service.page_url is None:
        raise Refusal("not_allowed", "the table's page is not served, so it has no address to show")
    return {"url": service.page_url, "svg": qr_svg(service.page_url)}


async def _score_tiles(service, hand: int, result: dict) -> dict:
    return service.controller.results.by_tiles(hand, result)


TABLE: tuple[Op, ...] = (
    Op("status", _status, role="spectator", read=True),
    Op("start", _start, {
        "ruleset": Arg(lambda v: isinstance(v, str) and v != "", "a rule set name", required=False),
        "dealer": Arg(lambda v: v == "draw" or _SEAT.check(v), 'a seat number 0-3 or "draw"', required=False),
        "players": Arg(lambda v: isinstance(v, list) and all(isinstance(p, dict) for p in v),
                       'a list of player objects ({"name": ..., "ema_id": ..., "club_id": ...}), in seat order',
                       required=False),
        "seating": Arg(lambda v: v in SEATINGS, " or ".join(f'"{s}"' for s in SEATINGS), required=False),
        "round": Arg(lambda v: is_int(v) and v >= 1, "a round of the imported schedule (an integer from 1)",
                     required=False),
        "time_limit": Arg(lambda v: isinstance(v, bool), "true (the rule set's time limit) or false", required=False),
        "east_only": Arg(lambda v: isinstance(v, bool), "true (the East round alone, where the rule set's text "
                         "has that form) or false", required=False),
    }),
    Op("result", _result, _RESULT, role="player"),
    Op("riichi", _riichi, {"seat": _SEAT}, role="player"),
    Op("kan", _kan, role="player"),
    Op("pause", _pause),
    Op("resume", _resume),
    Op("retry", _retry),
    Op("abandon", _abandon),
    # a connection becomes an event stream (controller/api/server.py answer_line; the web page's GET /api/events)
    Op("subscribe", None, role="spectator", read=True),
    Op("schedule_import", _schedule_import, {
        "players": Arg(lambda v: isinstance(v, list), 'a list of players ({"number": ..., "name": ..., ...})'),
        "tables": Arg(lambda v: isinstance(v, list), "a list of tables, each [round, table, east, south, west, north]"),
    }),
    Op("signal", _signal, {"signal": Arg(lambda v: v in SIGNALS, " or ".join(f'"{s}"' for s in SIGNALS))}),
    Op("counters", _counters, read=True),
    Op("record_service", _record_service),
    Op("sensor_test", _sensor_test, {
        "subsystem": Arg(lambda v: v in TEST_SUBSYSTEMS, f"one of {', '.join(TEST_SUBSYSTEMS)}", required=False),
        "seat": Arg(_SEAT.check, _SEAT.expected, required=False),
    }),
    Op("session_start", _session_start, {
        "name": Arg(lambda v: isinstance(v, str), "the session's name (a string)", required=False),
        "show_totals": Arg(lambda v: isinstance(v, bool), "true or false: the totals on the displays after "
                           "each game", required=False),
    }),
    Op("session_end", _session_end),
    Op("session_show", _session_show, {
        "session": Arg(lambda v: is_int(v) and v > 0, "a session id (a positive integer)", required=False),
        "on_table": Arg(lambda v: isinstance(v, bool), "true or false: the totals on the displays now", required=False),
    }),
    Op("journal", _journal, {
        "game": Arg(lambda v: is_int(v) and v >= 1, "a game id (an integer, from games)", required=False),
    }, role="spectator", read=True),
    Op("preview", _preview, _RESULT, role="player", read=True),
    Op("score_tiles", _score_tiles, {**_RESULT, "result": Arg(
        lambda v: isinstance(v, dict) and v.get("kind") in ("ron", "tsumo") and isinstance(v.get("winners"), list),
        'a win (\"kind\" ron or tsumo) whose winners give \"tiles\" for their han and fu')},
       role="player", read=True),
    Op("qr", _qr, role="operator", read=True),
)
BY_NAME: dict[str, Op] = {op.name: op for op in TABLE}
