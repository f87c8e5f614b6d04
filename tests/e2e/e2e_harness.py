"""The end-to-end harness: the installed `mjtable` console script, run as a user runs it.

`pty_table` starts a simulated table (`mjtable sim --pty`) and a `TableSession`, the
controller on it (`mjtable run --config <tmp config>`), in a folder of their own. Every
action of a game goes through the CLI client commands (`mjtable riichi`, `mjtable kan`,
`mjtable result ...`), and the journal comes from `mjtable journal --format jsonl`. Only the waits between
hands poll the control socket in process: one status request costs a millisecond there
and a fresh interpreter (~0.15 s) through the CLI.

Not in conftest.py: conftest modules hold fixtures, which pytest finds by itself; tests
import helpers from modules.
"""
from __future__ import annotations

import json
import select
import signal
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from controller import rules as R
from controller.api.client import Client

from ..support import processes
from ..support.folders import short_folder
from ..support.processes import MJTABLE, Processes, stderr_of, wait_until_serving  # noqa: F401 (e2e tests import them from here)

REPO = Path(__file__).resolve().parents[2]
PROFILES = REPO / "config" / "tables"
SPEED = 5000          # mechanical seconds per wall-clock second: a hand's setup takes a few ms
CALL_TIMEOUT = 30.0   # any one CLI call
WAIT_TIMEOUT = 20.0   # a hand coming into play, a controller answering
STARTING_DEALER = 0   # the configs fix it, so that the hand-written figures know the dealer


def mjtable(*args: str, cwd: Path | None = None, timeout: float = CALL_TIMEOUT) -> subprocess.CompletedProcess:
    """One `mjtable ...` call; its exit status, stdout and stderr."""
    return subprocess.run([MJTABLE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def wait_for(condition, what: str, timeout: float = WAIT_TIMEOUT, interval: float = 0.01):
    return processes.wait_for(condition, what, timeout, interval)


def start_sim(procs: Processes, *args: str) -> tuple[subprocess.Popen, str]:
    """`mjtable sim ... ARGS`; the process and the port it prints (a pty path or socket:// URL)."""
    sim = procs.start("sim", *args, name="sim", stdout=subprocess.PIPE, text=True)
    readable, _, _ = select.select([sim.stdout], [], [], WAIT_TIMEOUT)
    assert readable, f"mjtable sim printed no port: {stderr_of(sim)}"
    return sim, sim.stdout.readline().strip()


@contextmanager
def traced_four_port_table(prefix: str, session_class: type["TableSession"], ruleset: str = "ema-2016"):
    """A four-port table (seat displays) whose simulator writes its trace, in a short folder
    named from ``prefix``: (session, trace file, folder); every process stopped after."""
    with short_folder(prefix) as folder:
        procs = Processes(folder)
        trace = folder / "trace.jsonl"
        try:
            _, port = start_sim(procs, "--pty", "--profile", str(PROFILES / "four-port.yaml"),
                                "--speed", str(SPEED), "--trace", str(trace))
            yield session_class(procs, port, "four-port", ruleset), trace, folder
        finally:
            procs.stop_all()


def profile_file(profile: str | Path) -> Path:
    """A table profile: the name of one in config/tables/, or a file."""
    return profile if isinstance(profile, Path) else PROFILES / f"{profile}.yaml"


def pty_table(procs: Processes, profile: str | Path, ruleset: str, seed: int = 1) -> "TableSession":
    """`mjtable sim --pty --profile ...` and a controller on it."""
    _, port = start_sim(procs, "--pty", "--profile", str(profile_file(profile)), "--speed", str(SPEED),
                        "--seed", str(seed))
    assert port.startswith("/dev/"), port
    return TableSession(procs, port, profile, ruleset)


def first_ron_on(procs: Processes, profile_text: str, name: str) -> list[int]:
    """An EMA game on a table of this profile text: the first hand's payments after a ron
    of 3 han 40 fu by seat 1 on seat 2's discard (5,200 paid when the table is driven right)."""
    path = procs.folder / f"{name}.yaml"
    path.write_text(profile_text)
    table = pty_table(procs, path, "ema-2016")
    table.ok("start", where="--config")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    table.ok("result", *ron(2, (1, 3, 40)))
    table.wait_hand_after(seq)
    return table.journal()[0]["payments"]


def write_table_config(folder: Path, port: str, profile: str | Path, ruleset: str, extra: str = "") -> Path:
    """A table config as docs/INSTALL.md shows it, with every path inside ``folder``; ``extra``:
    more sections (YAML lines)."""
    config = folder / "table.yaml"
    config.write_text(f"""kind: table
serial: {{port: {port}, baud: 115200}}
profile: {profile_file(profile)}
ruleset: {ruleset}
state: {{database: state.db}}
api: {{socket: api.sock}}
timeouts: {{reconnect_backoff_max: 1}}
game: {{starting_dealer: {STARTING_DEALER}}}
{extra}""")
    return config


class TableSession:
    """`mjtable run --config ...` on a table at ``port``, the controller restartable."""

    def __init__(self, procs: Processes, port: str, profile: str | Path, ruleset: str, extra: str = "") -> None:
        self.procs = procs
        self.config = write_table_config(procs.folder, port, profile, ruleset, extra)
        self.socket = procs.folder / "api.sock"
        self.client = Client(self.socket, timeout=5)
        self.run: subprocess.Popen | None = None
        self.start_controller()

    # -- the controller process ------------------------------------------------------

    def start_controller(self) -> None:
        self.run = self.procs.start("run", "--config", str(self.config), name="run")
        wait_until_serving(self.run, self.client)

    def stop_controller(self, sig: signal.Signals) -> None:
        self.run.send_signal(sig)
        self.run.wait(WAIT_TIMEOUT)

    # -- the CLI ---------------------------------------------------------------------

    def cli(self, *args: str, where: str = "--socket") -> subprocess.CompletedProcess:
        """A client command against this table: `mjtable ARGS --socket <its api.socket>`, or with
        ``where="--config"`` `mjtable ARGS --config <its table config>` (docs/INSTALL.md's form,
        which reads the config first: 0.25 s a call rather than 0.1 s, so kept for a few)."""
        return mjtable(*args, where, str(self.config if where == "--config" else self.socket))

    def ok(self, *args: str, where: str = "--socket") -> str:
        done = self.cli(*args, where=where)
        assert done.returncode == 0, f"mjtable {' '.join(args)}: exit {done.returncode}: {done.stderr}"
        return done.stdout

    def status(self) -> dict:
        """`mjtable status --json --config ...`."""
        return json.loads(self.ok("status", "--json", where="--config"))

    def journal(self) -> list[dict]:
        """`mjtable journal --format jsonl --config ...`: the latest game's records."""
        return [json.loads(line) for line in self.ok("journal", "--format", "jsonl", where="--config").splitlines()]

    # -- waits (in process: cheap) ---------------------------------------------------

    def polled_status(self) -> dict:
        return self.client.request("status")

    def wait_hand_after(self, seq: int) -> dict:
        """Wait for a hand later than ``seq`` to be in play; the status then."""
        def in_play():
            status = self.polled_status()
            hand = status.get("hand_in_play") or {}
            return status if status["state"] == "playing" and hand.get("seq", 0) > seq else None
        return wait_for(in_play, f"a hand after #{seq} to be in play")

    def wait_game_over(self) -> None:
        wait_for(lambda: self.polled_status().get("finished"), "the game to end")


# -- playing a game through the CLI ---------------------------------------------------------


@dataclass(frozen=True)
class Hand:
    """One hand as the players play it: declarations, then the result as typed at the CLI."""
    result: tuple[str, ...]            # `mjtable result` arguments, e.g. ("ron", "--discarder", "2", ...)
    riichi: tuple[int, ...] = ()       # `mjtable riichi SEAT`, in this order
    kans: int = 0                      # `mjtable kan` this many times
    paused: bool = False               # `mjtable pause` before the result, `mjtable resume` after
    restart: signal.Signals | None = None  # stop `mjtable run` so, start it again, before the result
    refused: tuple[tuple[str, ...], ...] = ()  # results the rules must refuse, typed before the real one


def ron(discarder: int, *winners: tuple) -> tuple[str, ...]:
    """`result ron` arguments; each winner is (seat, han, fu), (seat, "yakuman", n), (seat, "points", p)
    or, for a point-based rule set, (seat, "points", p, responsible) with responsible a seat or "none"."""
    return ("ron", "--discarder", str(discarder), *_winner_args(winners))


def tsumo(winner: tuple) -> tuple[str, ...]:
    return ("tsumo", *_winner_args([winner]))


def draw(*tenpai: int) -> tuple[str, ...]:
    return ("draw", "--tenpai", *map(str, tenpai))


def chombo(offender: int) -> tuple[str, ...]:
    return ("chombo", "--offender", str(offender))


def _winner_args(winners) -> list[str]:
    args: list[str] = []
    for seat, *value in winners:
        args += ["--winner", str(seat)]
        if value[0] in ("yakuman", "points"):
            args += [f"--{value[0]}", str(value[1])]
            args += ["--responsible", str(value[2])] if len(value) > 2 else []
        else:
            han, fu = value
            args += ["--han", str(han)] + (["--fu", str(fu)] if fu is not None else [])
    return args


@dataclass
class PlayedHand:
    hand: Hand
    seq: int
    riichi_status: dict | None = None          # `status --json` after the declarations
    restarted_status: dict | None = None       # `status --json` once the restarted controller is up
    refusals: list[subprocess.CompletedProcess] = field(default_factory=list)
    kan_exits: list[int] = field(default_factory=list)
    paused_result: subprocess.CompletedProcess | None = None  # the result typed while paused


@dataclass
class PlayedGame:
    hands: list[PlayedHand]
    journal: list[dict]


def play_hand(session: TableSession, hand: Hand, seq: int) -> PlayedHand:
    played = PlayedHand(hand, seq)
    for seat in hand.riichi:
        session.ok("riichi", str(seat))
    if hand.riichi:
        played.riichi_status = session.status()
    # a refused kan (say, no indicator left) is recorded for the tests to judge; play goes on
    played.kan_exits = [session.cli("kan").returncode for _ in range(hand.kans)]
    if hand.restart is not None:
        session.stop_controller(hand.restart)
        session.start_controller()
        played.restarted_status = session.status()
    played.refusals = [session.cli("result", *args) for args in hand.refused]
    if hand.paused:
        session.ok("pause")
        played.paused_result = session.cli("result", *hand.result)
        session.ok("resume")
        if played.paused_result.returncode == 0:
            return played
    session.ok("result", *hand.result)
    return played


def play_game(session: TableSession, hands: list[Hand], *start_args: str) -> PlayedGame:
    """`mjtable start`, every hand through the CLI, the game over by the rules; the journal."""
    session.ok("start", *start_args, where="--config")
    played, seq = [], 0
    for hand in hands:
        seq = session.wait_hand_after(seq)["hand_in_play"]["seq"]
        played.append(play_hand(session, hand, seq))
    session.wait_game_over()
    return PlayedGame(played, session.journal())


# -- checks ------------------------------------------------------------------------------------


def hand_records(journal: list[dict]) -> list[dict]:
    return [r for r in journal if not r.get("final")]


def throws(rules: R.RuleSet, dice: list[int]) -> list[list[int]]:
    """The journal's flat dice list as the rule set's throws."""
    n = rules.dice.per_throw
    return [dice[i:i + n] for i in range(0, len(dice), n)]


def check_against_engine(rules: R.RuleSet, journal: list[dict], dealer: int = STARTING_DEALER,
                         finished: bool = True) -> None:
    """Replay the journal's results with the rules engine from a new game: every hand's
    counters, dealer, wall breaker, dead wall, indicators, payments and scores, then the
    final standings, must agree."""
    state = R.new_game(rules, dealer)
    for i, record in enumerate(hand_records(journal)):
        where = f"hand {i + 1} ({record['hand']})"
        assert record["ruleset"] == rules.name, where
        before = {"hand": R.hand_label(state), "honba": state.honba, "riichi_sticks": state.riichi_sticks,
                  "dealer": state.dealer}
        assert {k: record[k] for k in before} == before, where
        setup = R.setup_hand(rules, state.dealer, throws(rules, record["dice"]))
        assert record["breaker"] == setup.breaker, where  # the seat the first throw names
        assert record["dead_wall"] == [list(p) for p in setup.dead_wall], where
        shown = record["dora_indicators"]
        assert shown == [list(p) for p in setup.dora_indicators[:len(shown)]] and len(shown) <= len(
            setup.dora_indicators), where
        outcome = R.apply_result(rules, state, record["result"])
        assert record["payments"] == list(outcome.payments), where
        assert record["scores"] == list(outcome.state.scores), where
        assert record["riichi_sticks_after"] == outcome.riichi_sticks_after, where
        state = outcome.state
    assert state.finished == finished
    if finished:
        standings = R.final_standings(rules, state)
        penalties = {"penalties": list(state.penalties)} if any(state.penalties) else {}
        assert journal[-1] == {"final": True, "scores": list(standings.scores),
                               "final_scores": list(standings.final_scores), "ranks": list(standings.ranks),
                               **penalties}
    else:
        assert not journal[-1].get("final")


def payments_by_hand(journal: list[dict]) -> list[tuple[str, list[int], int]]:
    """(label, payments, sticks left) of every hand, to compare with hand-written figures."""
    return [(r["hand"], r["payments"], r["riichi_sticks_after"]) for r in hand_records(journal)]

