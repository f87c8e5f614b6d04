"""A simulated table, its controller and an operator, in virtual time, for the stateful
property test (test_operator_sequences.py).

Everything runs on one `VirtualTimeLoop` owned by the `Rig`: the simulator, a `Controller`
with its `Service` (as `mjtable run` assembles them) on a SQLite store, and the operator's
requests, each answered by `controller.api.answer` exactly as the control socket answers
it (so a bug in a handler is the ``internal`` reply a client would get). The test calls
the rig's verbs between steps, while the loop stands still; `advance` lets virtual time run.

A restart is a kill, as in the chaos suite: every task on the loop is cancelled (the
simulator runs on loop timers, not tasks; a request in flight loses its connection), the
line is hung up, the store closed; a new Controller then starts on the same store file and
the same still-powered table.

The checks read the ground truth: the simulator's trace (what the table was told and did)
and the store (what was kept), against what the operator was answered.
"""
from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller import rules as R
from controller.api.server import answer
from controller.game.controller import Controller
from controller.api.handlers import Service
from controller.game.settings import Settings, durations_from
from controller.app.simulation import profile_for, table_rules
from firmware_protocol.codes import Code
from firmware_protocol.virtual_time import VirtualTimeLoop
from sim.faults import FaultPlan
from sim.players import Players
from sim.serve import connect_in_process
from sim.table import SimulatedTable
from sim.trace import Record

from controller.store.database import Store

RULESET = "ema-2016"
# The commands that move something at the table (`resume` sets it moving again).
MOTION = frozenset({"collect_tiles", "shuffle", "raise_walls", "roll_dice", "separate_dead_wall", "flip_dora",
                    "set_wind_marker", "resume"})
REPLY_DEADLINE = 120.0  # virtual seconds: every request is answered by then (the longest operation's limit)
STUCK_AFTER = 600.0     # virtual seconds without any change while the operator does what status says
GAME_BUDGET = 4 * 3600.0  # virtual seconds for the rest of a game, faults seen to included
POLL = 3.0              # virtual seconds between the operator's looks at the status


class Broken(AssertionError):
    """An invariant does not hold."""


@dataclass
class Request:
    """One request of the operator's, as a client sees it: answered, or its connection lost."""

    op: str
    args: dict
    sent_at: float
    trace_at: int                # trace records before it was sent
    game_id: int | None
    task: asyncio.Task
    done_at: int | None = None   # trace records when it was answered (or cut off)
    reply: dict | None = None

    @property
    def ok(self) -> bool:
        return self.reply is not None and self.reply.get("ok", False)

    def error_code(self) -> str | None:
        return None if self.reply is None or self.reply.get("ok") else self.reply["error"]["code"]


@dataclass
class PauseWindow:
    """From an acknowledged pause until the operator's resume reached the table (or the
    game was abandoned): trace indices."""

    sent_at: int
    ended_at: int | None = None


@dataclass
class Acknowledged:
    game_id: int
    seq: int
    result: dict


class Host:
    """One controller process on the rig's store and table."""

    def __init__(self, rig: "Rig") -> None:
        loop = rig.loop

        async def connect():
            if rig.unplugged:
                raise OSError("the table's cable is unplugged")
            return connect_in_process(loop, rig.table)

        self.store = Store(rig.db)
        self.controller = Controller(connect, rig.rules, store=self.store, ruleset_name=RULESET, seed=rig.seed,
                                     settings=Settings(durations=durations_from(rig.table.profile.timings)))
        self.service = Service(self.controller, starting_dealer=0)
        self.controller.subscribe(rig.events.append)
        self.task = loop.create_task(self.service.start())

    async def kill(self) -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks, timeout=1.0) if tasks else None
        self.controller.table.close()
        self.store.close()


class Rig:
    def __init__(self, folder: Path, seed: int) -> None:
        self.loop = VirtualTimeLoop()
        self.unhandled: list[str] = []
        self.loop.set_exception_handler(self._unhandled)
        self.seed = seed
        self.rules = R.load_ruleset(RULESET)
        self.players = Players(table_rules(self.rules), seed=seed)
        self.db = folder / "state.db"
        self.unplugged = False
        self.lid_open = False
        self.events: list[dict] = []
        self.requests: list[Request] = []
        self.pauses: list[PauseWindow] = []
        self.acknowledged: list[Acknowledged] = []
        self.table = self._run(self._power_on())
        self.host = self._run(self._new_host())

    # ---- the loop ----
    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    async def _power_on(self) -> SimulatedTable:
        return SimulatedTable(profile_for(self.rules), seed=self.seed, faults=FaultPlan(), loop=self.loop)

    async def _new_host(self) -> Host:
        return Host(self)

    def _unhandled(self, loop, context: dict) -> None:
        exc = context.get("exception")
        if exc is not None and not isinstance(exc, asyncio.CancelledError):
            self.unhandled.append(f"{context.get('message')}: {type(exc).__name__}: {exc}")

    @property
    def now(self) -> float:
        return self.loop.time()

    @property
    def trace(self) -> list[Record]:
        return self.table.trace.records

    @property
    def controller(self) -> Controller:
        return self.host.controller

    def advance(self, seconds: float) -> None:
        self._run(asyncio.sleep(seconds))
        self._collect_replies()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._run(self.host.kill())
        self.table.close()
        self.loop.close()

    # ---- the operator's requests ----
    def send(self, op: str, **args: Any) -> Request:
        """Send a request now (it runs once time advances)."""
        coro = answer(self.host.service, op, args)
        request = Request(op, args, self.now, len(self.trace), self.controller.game_id, self.loop.create_task(coro))
        request.task.add_done_callback(lambda _: setattr(request, "done_at", len(self.trace)))
        self.requests.append(request)
        return request

    def ask(self, op: str, **args: Any) -> dict:
        """A request answered at once (status): its reply."""
        return self._run(answer(self.host.service, op, args))

    def status(self) -> dict:
        return self.ask("status")

    def result_for_hand_in_play(self) -> tuple[int, dict] | None:
        status = self.status()
        hand = status.get("hand_in_play")
        if hand is None or status.get("waiting_for") != "result":
            return None
        return hand["seq"], self.players.result(list(hand["riichi"]))

    def _collect_replies(self) -> None:
        for request in self.requests:
            if request.reply is None and request.task.done() and not request.task.cancelled():
                request.reply = request.task.result()
                self._heard(request)

    def _heard(self, request: Request) -> None:
        """What an answer tells the operator: paused, resumed, a result kept."""
        if not request.ok:
            return
        open_window = self.pauses and self.pauses[-1].ended_at is None
        if request.op == "pause" and not open_window:
            self.pauses.append(PauseWindow(request.trace_at))
        elif request.op == "abandon" and open_window:
            self.pauses[-1].ended_at = request.done_at
        elif request.op == "result":
            self.acknowledged.append(Acknowledged(request.game_id, request.args["hand"], request.args["result"]))

    # ---- what happens to the table ----
    def jam_next_shuffle(self) -> None:
        self.table.faults.jam[self.table.firmware.mechanics.started["shuffle"] + 1] = "stacker"

    def stick_next_lift(self) -> None:
        self.table.faults.lift_stuck[self.table.firmware.mechanics.started["raise_walls"] + 1] = 1

    def open_lid(self) -> None:
        self.lid_open = True
        self.table.open_lid()

    def close_lid(self) -> None:
        self.lid_open = False
        self.table.close_lid()

    def cut_line(self, for_seconds: float = 0.0) -> None:
        """Pull the cable (the host reconnects once it is back)."""
        self.table.firmware.detach()
        if for_seconds:
            self.unplugged = True
            self.loop.call_later(for_seconds, setattr, self, "unplugged", False)

    def reset_mcu(self) -> None:
        self.table.reset_mcu()

    def restart(self, down_for: float) -> None:
        """Kill the controller; the service manager starts a new one `down_for` seconds later."""
        self._run(self.host.kill())
        self._collect_replies()
        self._run(asyncio.sleep(down_for))
        self.host = self._run(self._new_host())

    # ---- the operator does what the status says ----
    def play_to_game_over(self) -> dict:
        """Resume a pause, close the lid and retry a fault, enter each hand's result, until
        the game is over (or none is running). Fails when nothing changes for STUCK_AFTER
        virtual seconds, or the game does not end within GAME_BUDGET."""
        began = self.now
        progress, since = None, self.now
        while True:
            status = self.status()
            state = status["state"]
            if state in ("game_over", "idle") and not self._unanswered():
                self.check()
                return status
            self._do_what_status_says(status)
            self.advance(POLL)
            self.check_requests_and_pauses()
            marker = (self.controller.game_id, state, status.get("hands_played"), status.get("waiting_for"),
                      (status.get("hand_in_play") or {}).get("seq"))
            if marker != progress:
                progress, since = marker, self.now
            if self.now - since > STUCK_AFTER or self.now - began > GAME_BUDGET:
                raise Broken(f"stuck: the operator did what the status says for {self.now - since:.0f} s "
                             f"(virtual) and nothing moved on: state {state}, fault {status['fault']!r}, "
                             f"waiting for {status['waiting_for']!r}, hand {status.get('hand_in_play')}")

    def _unanswered(self) -> bool:
        return any(r.reply is None and not r.task.done() for r in self.requests)

    def _do_what_status_says(self, status: dict) -> None:
        if self._unanswered():
            return  # one request at a time, as a person at the table
        state = status["state"]
        if state == "paused":
            if self.lid_open:  # a paused table refuses to resume with its lid open, and says so
                self.close_lid()
            self.send("resume")
        elif state == "fault":
            if self.lid_open:
                self.close_lid()
            self.send("retry")
        elif (due := self.result_for_hand_in_play()) is not None:
            seq, result = due
            self.send("result", hand=seq, result=result)

    def start_at_game_over(self) -> Request | None:
        """Play the game out, then `start` the instant the state says game over (a client
        polling status does so within milliseconds)."""
        over = self.loop.create_future()

        def on_event(event: dict) -> None:
            if event["event"] == "state" and event["state"] == "game_over" and not over.done():
                over.set_result(None)
        unsubscribe = self.controller.subscribe(on_event)
        try:
            while not over.done():
                status = self.status()
                if status["state"] in ("idle", "game_over"):
                    break
                self._do_what_status_says(status)
                self._run(asyncio.wait([over], timeout=POLL))
                self._collect_replies()
                self.check_requests_and_pauses()
        finally:
            unsubscribe()
        return self.send("start") if over.done() else None

    # ---- the invariants ----
    def check(self) -> None:
        self.check_requests_and_pauses()
        self._check_results_stored_once()
        self._check_journals_against_trace()

    def check_requests_and_pauses(self) -> None:
        """The checks cheap enough for every look at the status."""
        self._check_replies()
        self._check_no_game_stopped()
        self._check_pauses_hold()
        if self.unhandled:
            raise Broken(f"unhandled exceptions on the loop: {self.unhandled}")

    def _check_replies(self) -> None:
        for r in self.requests:
            if r.error_code() == "internal":
                raise Broken(f"{r.op} {r.args} sent at {r.sent_at:.1f} s was answered internal: {r.reply}")
            if r.reply is None and not r.task.done() and self.now - r.sent_at > REPLY_DEADLINE:
                raise Broken(f"{r.op} {r.args} sent at {r.sent_at:.1f} s unanswered after "
                             f"{self.now - r.sent_at:.0f} s (state {self.controller.sm.state})")

    def _check_no_game_stopped(self) -> None:
        for event in self.events:
            if event["event"] == "fault" and event.get("code") == Code.GAME_STOPPED:
                raise Broken(f"a game ended in E{Code.GAME_STOPPED}: {event.get('message')}")

    def _check_pauses_hold(self) -> None:
        trace = self.trace
        for window in self.pauses:
            self._close_by_resume(window)
            end = window.ended_at if window.ended_at is not None else len(trace)
            stop = next((i for i in range(window.sent_at, end) if trace[i].dir == "cmd" and trace[i].name == "stop"),
                        window.sent_at)
            operators = self._operators_resumes()
            moved = [f"{trace[i].t:.2f} {trace[i].name}" for i in range(stop + 1, end)
                     if trace[i].dir == "cmd" and trace[i].name in MOTION and i not in operators]
            refused = [f"{trace[i - 1].t:.2f} {trace[i - 1].name}" for i in range(stop + 1, end)
                       if _refused_stopped(trace, i)]
            if moved or refused:
                raise Broken(f"paused at {trace[stop].t if stop < len(trace) else self.now:.2f} s (virtual, the "
                             f"table's clock) and not resumed by the operator, yet the table was sent {moved}"
                             + (f"; refused as STOPPED: {refused}" if refused else ""))

    def _operators_resumes(self) -> set[int]:
        """The trace indices of the `resume` commands the operator's own requests sent (one
        the table refused, e.g. with its lid open, leaves the table stopped and paused)."""
        trace = self.trace
        return {i for r in self.requests if r.op == "resume"
                for i in range(r.trace_at, r.done_at if r.done_at is not None else len(trace))
                if trace[i].dir == "cmd" and trace[i].name == "resume"}

    def _close_by_resume(self, window: PauseWindow) -> None:
        """The operator's `resume` (acknowledged or cut off by a restart) that the table took."""
        if window.ended_at is not None:
            return
        trace = self.trace
        for r in self.requests:
            if r.op != "resume" or r.trace_at < window.sent_at:
                continue
            end = r.done_at if r.done_at is not None else len(trace)
            for i in range(r.trace_at, min(end, len(trace) - 1)):
                if trace[i].dir == "cmd" and trace[i].name == "resume" and trace[i + 1].name == "ok":
                    window.ended_at = i
                    return

    def _check_results_stored_once(self) -> None:
        store = self.host.store
        for ack in self.acknowledged:
            hands = store.hands(ack.game_id)
            if len(hands) < ack.seq:
                raise Broken(f"the result of hand {ack.seq} of game {ack.game_id} was acknowledged but is not "
                             f"stored ({len(hands)} hands are)")
            kept = hands[ack.seq - 1]["result"]
            sent = {**ack.result, "riichi": kept["riichi"]} if "riichi" in kept else ack.result
            if kept != sent:
                raise Broken(f"hand {ack.seq} of game {ack.game_id}: acknowledged {ack.result}, stored {kept}")

    def _check_journals_against_trace(self) -> None:
        """Each stored hand's dice are the last throws the table rolled before its dead wall
        was separated, and that separation is where the journal's dice put the break."""
        store = self.host.store
        throws, per_throw = self.rules.dice.throws, self.rules.dice.per_throw
        separations = _separations(self.trace)
        at = 0
        for game in sorted(store.games(), key=lambda g: g.id):
            for seq, hand in enumerate(store.hands(game.id), 1):
                dice = [hand["dice"][i:i + per_throw] for i in range(0, len(hand["dice"]), per_throw)]
                setup = R.setup_hand(self.rules, hand["dealer"], dice)
                args = {"breaker": setup.break_after[0], "position": setup.break_after[1],
                        "length": len(setup.dead_wall)}
                while at < len(separations) and separations[at].args != args:
                    at += 1
                if at == len(separations):
                    raise Broken(f"game {game.id} hand {seq} ({hand['hand']}): the journal's dice {hand['dice']} "
                                 f"break the wall at {args}; the table separated no dead wall there after the "
                                 f"hands before it")
                rolled = separations[at].rolled[-throws:]
                if rolled != dice:
                    raise Broken(f"game {game.id} hand {seq} ({hand['hand']}): the journal says dice {dice}, "
                                 f"the table rolled {rolled} before separating the dead wall")
                if [list(p) for p in setup.dead_wall] != hand["dead_wall"]:
                    raise Broken(f"game {game.id} hand {seq}: the journal's dead wall {hand['dead_wall']} is not "
                                 f"its dice's {setup.dead_wall}")
                at += 1


@dataclass
class Separation:
    """A dead wall the table separated, with every throw it rolled since the one before."""

    args: dict
    rolled: list[list[int]] = field(default_factory=list)


def _separations(trace: list[Record]) -> list[Separation]:
    done: list[Separation] = []
    rolled: list[list[int]] = []
    asked: dict | None = None
    for r in trace:
        if r.dir == "event" and r.name == "dice_rolled":
            rolled.append(list(r.args["values"]))
        elif r.dir == "cmd" and r.name == "separate_dead_wall":
            asked = dict(r.args)
        elif r.dir == "event" and r.name == "dead_wall_separated" and asked is not None:
            done.append(Separation(asked, rolled))
            rolled, asked = [], None
    return done


def _refused_stopped(trace: list[Record], i: int) -> bool:
    """Record ``i`` is the table's STOPPED refusal of the motion command before it."""
    r = trace[i]
    return (r.dir == "reply" and r.name == "rejected" and r.args.get("code") == Code.STOPPED
            and trace[i - 1].dir == "cmd" and trace[i - 1].name in MOTION)
