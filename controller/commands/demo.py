"""`mjtable demo` (what `make demo` runs): a whole game on the simulated table.

The simulator runs in another process on a pseudo-terminal, exactly as a table would be
attached; the controller runs here on that pty, assembled as `mjtable run` assembles it
(controller/app/assembly.py: its SQLite store, control API, web page with /metrics); simulated players enter their results through the control API. `--fast` instead plays
the game in virtual time in this process. `--tables N` plays N such tables at once (table
ids demo-1 ... demo-N, one line per hand instead of the live view); `--mqtt URL` publishes
each on that broker as `mjtable run` would (docs/MQTT.md).
"""
from __future__ import annotations

import asyncio
import json
import logging
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HELP = "watch a whole game on the simulated table (live view)"
MAX_TABLES = 50
DEMO_FLUSH = 15.0  # seconds a demo table waits at its end for the broker to take its last events
DEMO_WEB = "127.0.0.1:8080"
SIM_STOP = 5.0  # seconds a simulator has to end on SIGTERM before it is killed
FAULT_SCENARIO = "jam: [{shuffle: 3, sensor: stacker}]\nreset: {at: [%s]}\n"


def add_arguments(parser) -> None:
    parser.add_argument("--ruleset", default="ema-2016", help="rule-set preset or file (default ema-2016)")
    parser.add_argument("--seed", type=int, default=1, help="seed for tiles, dice and the players' results")
    parser.add_argument("--speed", type=float, default=60.0,
                        help="mechanical and thinking time run this many times faster (default 60)")
    parser.add_argument("--fast", action="store_true", help="virtual time, in process, no live view")
    parser.add_argument("--journal", metavar="FILE", help="write the hand journal (JSON lines) here")
    parser.add_argument("--trace", metavar="FILE", help="write the simulator's hardware trace here")
    parser.add_argument("--faults", action="store_true", help="line noise, a jam and an MCU reset, to show recovery")
    parser.add_argument("--tables", type=int, default=1, metavar="N",
                        help="play N tables at once (ids demo-1 ... demo-N; seeds SEED ... SEED+N-1; "
                             "--journal and --trace FILE.EXT become FILE.demo-N.EXT)")
    parser.add_argument("--mqtt", metavar="URL", help="publish every table on this MQTT broker (mqtt://HOST[:PORT])")
    parser.add_argument("--mqtt-password-file", metavar="FILE",
                        help="log in to the broker as each table's id (demo-1, ...) with the password in FILE "
                             "(default: anonymous)")
    parser.add_argument("--web", metavar="HOST:PORT", default=DEMO_WEB,
                        help=f"serve the table's web page there (default {DEMO_WEB}; taken: any free port)")
    parser.add_argument("--no-web", action="store_true", help="no web page")
    parser.add_argument("--stay", action="store_true", help="keep the web page open after the game (Ctrl-C ends)")


def run(args) -> int:
    from controller import rules as R
    from mjtable_config.schema import ConfigError

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        rules = R.load_ruleset(args.ruleset)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    refused = _refused_options(args)
    if refused:
        print(f"mjtable demo: {refused}", file=sys.stderr)
        return 2
    if args.fast:
        return _fast(rules, args)
    return asyncio.run(_live(rules, args))


def _refused_options(args) -> str | None:
    from controller.api.mqtt.settings import parse_broker

    if not 1 <= args.tables <= MAX_TABLES:
        return f"--tables must be from 1 to {MAX_TABLES}"
    if args.fast and (args.tables > 1 or args.mqtt):
        return "--tables and --mqtt play in real time: leave out --fast"
    if args.mqtt_password_file and not args.mqtt:
        return "--mqtt-password-file needs --mqtt"
    if args.mqtt:
        try:
            parse_broker(args.mqtt)
        except ValueError as exc:
            return f"--mqtt {exc}"
    return None


# ---------------------------------------------------------------- virtual time
def _fast(rules, args) -> int:
    from firmware_protocol.transport import Impairment
    from sim.faults import FaultPlan

    from controller.app.simulation import run_game
    from controller.commands.plain_view import plain_line

    faults = FaultPlan(jam={3: "stacker"}, reset_at=[900.0]) if args.faults else None
    noise = Impairment(corrupt=0.005, drop=0.005) if args.faults else None
    started = time.perf_counter()

    def watch(controller, table):
        def on_event(event):
            if event["event"] == "hand_ended":
                print(plain_line(controller.snapshot()))
            elif event["event"] == "fault":
                print(f"fault: {event.get('message')} (operator retries)")
                asyncio.get_running_loop().call_later(20.0, _retry, controller)
        controller.subscribe(on_event)

    game = run_game(rules, seed=args.seed, faults=faults, impairment=noise, on_controller=watch)
    wall = time.perf_counter() - started
    if args.journal:
        _write_lines(args.journal, game.hands + [_final(game.standings)])
    if args.trace:
        _write_lines(args.trace, [r.as_dict() for r in game.trace])
    _print_standings(game.standings)
    print(f"{len(game.hands)} hands, {game.elapsed / 60:.0f} simulated minutes in {wall:.2f} s")
    return 0


def _retry(controller) -> None:
    if controller.fault is not None or controller.sm.is_motion_fault():
        controller.retry()


def _final(standings) -> dict:
    return {"final": True, "scores": list(standings.scores), "final_scores": list(standings.final_scores),
            "ranks": list(standings.ranks)}


def _write_lines(path: str, records: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")


def _print_standings(standings, table: str = "") -> None:
    print(f"{table}final standings (after return points and uma):")
    order = sorted((r, seat) for seat, r in enumerate(standings.ranks) if r is not None)
    for rank, seat in order:
        print(f"  {rank}. seat {seat}: {standings.scores[seat]:>7} points, final {standings.final_scores[seat]:+}")


# ---------------------------------------------------------------- real time
async def _live(rules, args) -> int:
    stop = asyncio.Event()  # SIGINT or SIGTERM: every table closes, then its simulator
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with tempfile.TemporaryDirectory(prefix="mjtable-demo-") as tmp:
        games = [_live_table(rules, args, Path(tmp) / f"demo-{n}", n, stop) for n in range(1, args.tables + 1)]
        return max(await asyncio.gather(*games))


async def _live_table(rules, args, folder: Path, n: int, stop: asyncio.Event) -> int:
    folder.mkdir()
    seed = args.seed + n - 1  # table 1 plays the plain demo's game
    sim = _start_simulator(rules, args, folder, n, seed)
    try:
        device = await _until_stopped(stop, _device_path(sim))
        return 0 if device is None else await _play_live(rules, args, folder, device, n, seed, stop)
    finally:
        await _end_simulator(sim)


def _start_simulator(rules, args, tmp: Path, n: int, seed: int) -> subprocess.Popen:
    from controller.app.simulation import profile_for

    cmd = [sys.executable, "-m", "controller.cli", "sim", "--pty", "--speed", str(args.speed),
           "--seed", str(seed), "--profile", str(profile_for(rules))]
    if args.trace:
        cmd += ["--trace", _per_table(args.trace, args, n)]
    if args.faults:
        scenario = tmp / "faults.yaml"
        # the reset lands in the middle of the game, in the simulator's (scaled) seconds
        scenario.write_text(FAULT_SCENARIO % (2400.0))
        cmd += ["--faults", str(scenario), "--corrupt", "0.002", "--drop", "0.002"]
    # A session of its own: the terminal's Ctrl-C reaches the demo alone, which hangs up
    # before it ends the simulator (not a table lost under a running controller).
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)


async def _end_simulator(sim: subprocess.Popen) -> None:
    sim.terminate()
    try:
        await asyncio.to_thread(sim.wait, SIM_STOP)
    except subprocess.TimeoutExpired:
        sim.kill()
        await asyncio.to_thread(sim.wait)
    sim.stdout.close()


async def _device_path(sim: subprocess.Popen) -> str:
    line = await asyncio.to_thread(sim.stdout.readline)
    if not line.startswith("/dev/"):
        raise SystemExit(f"mjtable demo: the simulator did not start ({line.strip() or 'no output'})")
    return line.strip()


async def _until_stopped(stop: asyncio.Event, work):
    """``work``'s result, or None once ``stop`` is set first (``work`` then cancelled)."""
    task = asyncio.ensure_future(work)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([task, stopping], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if task.done():
        return task.result()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return None


async def _play_live(rules, args, tmp: Path, device: str, n: int, seed: int, stop: asyncio.Event) -> int:
    from sim.players import Players

    from controller.app.assembly import Application
    from controller.club.journal import journal_records, write_jsonl
    from controller.app.simulation import table_rules

    label = "" if args.tables == 1 else f"demo-{n}: "
    web, secret = (None, None) if args.no_web else _web_plan(args.web)
    app = Application(_plan(rules, args, tmp, device, n, seed, web))
    players = _ApiPlayers(app.controller, app.plan.socket, Players(table_rules(rules), seed=seed), args.speed)
    views: list = []  # the view, once the page's address is out: that line comes first
    try:
        over = await _until_stopped(stop, _game(app, players, views, args, n, f"{label}the table's web page: %s  "
                                                f"(operator secret for this demo: {secret})"))
        if over and args.journal:  # while the store is open
            with open(_per_table(args.journal, args, n), "w", encoding="utf-8") as f:
                write_jsonl(journal_records(app.store), f)
        if over and app.web is not None and args.stay:
            print(f"the game is over; the web page stays at {app.web.url} until Ctrl-C", flush=True)
            await stop.wait()
    finally:
        await players.close()
        for view in views:
            view.close()
        await app.close(flush=DEMO_FLUSH)
    if not over:
        print(f"{label}stopped before the game's end", flush=True)
        return 0
    _print_standings(app.controller.standings, label)
    return 0


async def _game(app, players, views: list, args, n: int, page_line: str) -> bool:
    """Start the table, print its page's address (into ``page_line``), then watch the game to its end."""
    await app.start()
    if app.web is not None:
        print(page_line % app.web.url, flush=True)
    view, refresh = _watch(app.controller, args.tables, n)
    views.append(view)
    await players.request("start")
    await app.game
    refresh.now()
    return True


def _plan(rules, args, tmp: Path, device: str, n: int, seed: int, web):
    """Table n's application: what `mjtable run` builds from a table config."""
    from firmware_protocol.transport import SerialTransport

    from controller.app.assembly import Plan

    async def connect():
        return SerialTransport.open(device, 1_000_000, loop=asyncio.get_running_loop())

    return Plan(database=tmp / "demo.db", connect=connect, rules=rules, ruleset_name=args.ruleset,
                socket=tmp / "api.sock", table_address=device, exclusive=False, seed=seed,
                web=web, mqtt=_mqtt_settings(args, n), mqtt_page_url=True)


def _web_plan(listen: str):
    """(plan, secret): the demo's page on ``listen`` (else any free port), with a secret of its own.
    Of several tables the first takes ``listen``, the others any free port."""
    import secrets

    from controller.app.assembly import WebPlan
    from controller.api.listen import parse_listen
    from controller.api.web.secret import GENERATED_BYTES, hash_secret

    try:
        host, port = parse_listen(listen)
    except ValueError:
        raise SystemExit(f"mjtable demo: --web {listen!r}: allowed: HOST:PORT") from None
    secret = secrets.token_urlsafe(GENERATED_BYTES)
    return WebPlan(host, port, lambda: hash_secret(secret), any_port_if_taken=True), secret


def _mqtt_settings(args, n: int):
    """Table n on the broker, as `mjtable run` with an mqtt: section would publish it; None without --mqtt."""
    if not args.mqtt:
        return None
    from controller.api.mqtt.settings import MqttSettings

    table_id = f"demo-{n}"
    password_file = Path(args.mqtt_password_file) if args.mqtt_password_file else None
    return MqttSettings(broker=args.mqtt, table_id=table_id, username=table_id if password_file else None,
                        password_file=password_file, clear_at_stop=True)  # a demo table is gone once it ends


def _watch(controller, tables: int, n: int):
    """(view, refresher): the live view of the one table, or a line per hand of each of several."""
    from controller.commands.view import make_view

    if tables > 1:
        lines = _TableLines(controller, f"demo-{n}")
        return lines, lines
    view = make_view(sys.stdout)
    refresh = _Refresher(asyncio.get_running_loop(), lambda: view.update(controller.snapshot()))
    controller.subscribe(lambda event: refresh.soon())
    return view, refresh


class _TableLines:
    """One line per hand, led by the table's id: several tables share the terminal."""

    def __init__(self, controller, table_id: str) -> None:
        self.controller, self.table_id = controller, table_id
        controller.subscribe(self._on_event)

    def _on_event(self, event: dict) -> None:
        if event["event"] == "hand_ended":
            from controller.commands.plain_view import plain_line

            print(f"{self.table_id}: {plain_line(self.controller.snapshot())}", flush=True)

    def now(self) -> None:
        pass  # the last hand's line is out already

    def close(self) -> None:
        pass


def _per_table(path: str, args, n: int) -> str:
    """FILE for the one table; FILE's name with .demo-N before its suffix for each of several."""
    if args.tables == 1:
        return path
    given = Path(path)
    return str(given.with_name(f"{given.stem}.demo-{n}{given.suffix}"))
class _Refresher:
    """Redraws at most ten times a second, however many events arrive."""

    def __init__(self, loop, draw) -> None:
        self._loop, self._draw, self._pending = loop, draw, None

    def soon(self) -> None:
        if self._pending is None:
            self._pending = self._loop.call_later(0.1, self.now)

    def now(self) -> None:
        self._pending = None
        self._draw()


class _ApiPlayers:
    """The seated players: they enter riichi, kans and results through the control API."""

    def __init__(self, controller, socket_path: Path, players, speed: float) -> None:
        self.socket_path, self.players, self.speed = socket_path, players, speed
        self._tasks: set[asyncio.Task] = set()
        self._leave = controller.subscribe(self.on_event)

    def on_event(self, event: dict) -> None:
        if event["event"] == "hand_started":
            self._spawn(self._play(event["seq"]))
        elif event["event"] == "fault":
            self._spawn(self._operator())

    def _spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _play(self, seq: int) -> None:
        riichi = self.players.riichi_declarations()
        kans = self.players.kans()
        await asyncio.sleep(self.players.thinking_time() / self.speed / 2)
        # A declaration the rules refuse (too few points) is withdrawn by its player.
        riichi = [seat for seat in riichi if (await self.request("riichi", seat=seat))["ok"]]
        for _ in range(kans):
            await self.request("kan")
        await asyncio.sleep(self.players.thinking_time() / self.speed / 2)
        await self.request("result", hand=seq, result=self.players.result(riichi))

    async def _operator(self) -> None:
        await asyncio.sleep(3.0)  # the operator walks over, clears the jam, presses retry
        await self.request("retry")

    async def close(self) -> None:
        """The players leave: what they were about to enter is dropped with the game, and a
        fault while the table closes calls no operator to a control socket that is gone."""
        self._leave()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def request(self, op: str, **args) -> dict:
        reader, writer = await asyncio.open_unix_connection(str(self.socket_path))
        try:
            writer.write(json.dumps({"op": op, **args}).encode() + b"\n")
            await writer.drain()
            return json.loads(await reader.readline())
        finally:
            writer.close()
