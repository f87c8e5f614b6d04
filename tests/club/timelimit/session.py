"""A game on the clock against the in-process simulator, in virtual time: the session's
clock is the virtual loop's, so a 90-minute session costs a fraction of a second.

The players submit a scripted result for each hand after `think` simulated seconds; the
director gives the start signal `start_after` seconds after the table says it waits for
it, and the warning by hand when `warn_when(controller, event)` first holds (else the
table's own clock gives it).
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from controller import rules as R
from controller.game.controller import Controller
from controller.game.settings import Settings, durations_from
from controller.app.simulation import profile_for
from controller.store.database import Store
from firmware_protocol.virtual_time import run_virtual
from sim.serve import connect_in_process
from sim.table import SimulatedTable

SEED = 3
DRAW = {"kind": "draw", "tenpai": []}      # all noten: the deal passes (EMA), one hand played
CHOMBO = {"kind": "chombo", "offender": 1}  # a re-deal: not a hand
LIMIT = 6 * 3600.0                          # simulated seconds: a session that never ends fails


@dataclass
class Session:
    controller: Controller
    table: SimulatedTable
    events: list[dict]

    def signals(self) -> list[dict]:
        return [e for e in self.events if e["event"] == "time_signal"]

    def hands(self) -> list[dict]:
        return [e["record"] for e in self.events if e["event"] == "hand_ended"]

    def trace(self, name: str) -> list:
        return [r for r in self.table.trace.records if r.name == name]


class Players:
    """Each hand's scripted result, `think` seconds after the hand comes into play."""

    def __init__(self, controller: Controller, results: list[dict], think: float) -> None:
        self.controller, self.results, self.think = controller, results, think
        controller.subscribe(self._on_event)

    def _on_event(self, event: dict) -> None:
        if event["event"] == "hand_started":
            self.controller.background.spawn(self._play(event["seq"]), "players")

    async def _play(self, seq: int) -> None:
        await asyncio.sleep(self.think)
        self.controller.submit_result(seq, self.results[seq - 1])


class Director:
    """The start signal once the table waits for it; the warning when `warn_when` holds."""

    def __init__(self, controller: Controller, start_after: float,
                 warn_when: Callable[[Controller, dict], bool] | None) -> None:
        self.controller, self.start_after, self.warn_when = controller, start_after, warn_when
        self.warned = False
        controller.subscribe(self._on_event)

    def _on_event(self, event: dict) -> None:
        c = self.controller
        if event["event"] == "waiting" and event["what"] == "the start signal":
            asyncio.get_running_loop().call_later(self.start_after, c.signal, "start")
        elif self.warn_when is not None and not self.warned and self.warn_when(c, event):
            self.warned = True
            c.signal("warning")


def host(table: SimulatedTable, rules: R.RuleSet, results: list[dict], *, think: float, start_after: float,
         warn_when=None, db=None) -> tuple[Controller, list[dict]]:
    loop = asyncio.get_running_loop()

    async def connect():
        return connect_in_process(loop, table, seed=SEED)
    settings = Settings(durations=durations_from(table.profile.timings), clock=loop.time)
    controller = Controller(connect, rules, store=Store(db) if db else None, settings=settings, seed=SEED)
    events: list[dict] = []
    controller.subscribe(events.append)
    Players(controller, results, think)
    Director(controller, start_after, warn_when)
    return controller, events


async def _session(results, *, ruleset, think, start_after, warn_when, time_limit) -> Session:
    rules = R.load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    table = SimulatedTable(profile_for(rules), seed=SEED)
    controller, events = host(table, rules, results, think=think, start_after=start_after, warn_when=warn_when)
    await controller.start()
    await controller.new_game(0, time_limit=time_limit)
    await controller.play()
    controller.close()
    return Session(controller, table, events)


def run_session(results: list[dict], *, ruleset: str | R.RuleSet = "ema-2016", think: float = 60.0,
                start_after: float = 30.0, warn_when=None, time_limit: bool = True) -> Session:
    """A whole game on the clock (or, `time_limit=False`, off it) in virtual time."""
    return run_virtual(asyncio.wait_for(_session(results, ruleset=ruleset, think=think, start_after=start_after,
                                                 warn_when=warn_when, time_limit=time_limit), LIMIT))


def after_dice_of(seq: int) -> Callable[[Controller, dict], bool]:
    """Just after the dice of hand `seq`: the machine goes on to the dead wall."""
    return lambda c, e: e["event"] == "state" and c.sm.game == "separating" and c.hand.seq == seq


def before_dice_of(seq: int) -> Callable[[Controller, dict], bool]:
    """The walls of hand `seq` are up, its dice not thrown yet."""
    return lambda c, e: e["event"] == "state" and c.sm.game == "rolling" and c.hand.seq == seq


async def _restarted(results, db, kill_when, *, think, start_after, warn_when) -> tuple[Session, Session]:
    rules = R.load_ruleset("ema-2016")
    table = SimulatedTable(profile_for(rules), seed=SEED)
    first, first_events = host(table, rules, results, think=think, start_after=start_after, warn_when=warn_when,
                               db=db)
    submit = first.db.submit

    def submit_then_die(method, *args, **kwargs):
        written = submit(method, *args, **kwargs)
        if kill_when(method, args):
            raise asyncio.CancelledError  # the host dies right after the write: nothing more runs
        return written
    first.db.submit = submit_then_die

    async def play():
        await first.start()
        await first.new_game(0, time_limit=True)
        await first.play()
    game = asyncio.ensure_future(play())
    await asyncio.wait([game])
    assert game.cancelled(), "the first host was to be killed"
    first.close()
    await asyncio.sleep(0)
    first.store.close()
    second, second_events = host(table, rules, results, think=think, start_after=start_after, warn_when=None,
                                 db=db)
    await second.start()
    await second.play()
    second.close()
    second.store.close()
    return Session(first, table, first_events), Session(second, table, second_events)


def run_restarted(results: list[dict], db, kill_when: Callable[[str, tuple], bool], *, think: float = 60.0,
                  start_after: float = 30.0, warn_when=None) -> tuple[Session, Session]:
    """A game on the clock whose host is killed right after the store write `kill_when`
    picks (method, args); a new host on the same store, table and clock carries it on."""
    return run_virtual(asyncio.wait_for(_restarted(results, db, kill_when, think=think, start_after=start_after,
                                                   warn_when=warn_when), LIMIT))
