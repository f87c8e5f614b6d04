"""A whole game on the in-process simulator, in virtual time.

Tests, `mjtable demo --fast`, the benchmarks and the chaos suite all play games this way:
the simulated table, the controller and the simulated players share one event loop whose
clock jumps over mechanical seconds, so a hanchan costs a fraction of a second.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from firmware_protocol.transport import Impairment
from firmware_protocol.virtual_time import run_virtual
from sim.faults import FaultPlan
from sim.players import Players, TableRules
from firmware_protocol.profile import DEFAULT_PROFILE
from sim.serve import connect_in_process
from sim.table import SimulatedTable

from controller import rules as R
from controller.game.controller import Controller
from controller.game.settings import Settings, durations_from
from controller.errors import Refusal


DEFAULT_PROFILES = {136: "four-port.yaml", 144: "mcr-144.yaml", 108: "sanma-108.yaml"}


def profile_for(rules: R.RuleSet) -> Path:
    return DEFAULT_PROFILE.parent / DEFAULT_PROFILES[rules.tiles]


def table_rules(rules: R.RuleSet) -> TableRules:
    """What the simulated players need to know of the rule set."""
    points = isinstance(rules.payment, R.ruleset.PointScoring)
    return TableRules(seats=tuple(rules.seats), scoring="points" if points else "han_fu",
                      min_points=rules.payment.min_points if points else 0, riichi=rules.has_riichi,
                      multiple_ron=rules.multiple_ron == "allowed",
                      immunity=points and rules.payment.scheme == "zung_jung")


@dataclass
class GameRun:
    standings: R.Standings
    hands: list[dict]
    trace: list            # sim.trace.Record: t, dir, name, args
    controller: Controller
    table: SimulatedTable
    elapsed: float            # simulated seconds


class PlayerDriver:
    """Plays each hand for the simulated players: riichi, kans, then the result."""

    def __init__(self, controller: Controller, players: Players, *, think: Callable[[], float] | None = None) -> None:
        self.controller = controller
        self.players = players
        self.think = think or (lambda: 60.0)
        controller.subscribe(self._on_event)
        self._task: asyncio.Task | None = None

    def _on_event(self, event: dict) -> None:
        if event["event"] == "hand_started":
            self._task = asyncio.ensure_future(self._play(event["seq"]))

    async def _play(self, seq: int) -> None:
        riichi = [seat for seat in self.players.riichi_declarations() if self._may_declare(seat)]
        kans = self.players.kans()
        await asyncio.sleep(self.think() / 2)
        for seat in riichi:
            await self._when_playing(lambda s=seat: self.controller.declare_riichi(s))
        for _ in range(kans):
            await self._when_playing(self.controller.declare_kan)
        await asyncio.sleep(self.think() / 2)
        result = self.players.result(riichi)
        await self._when_playing(lambda: self.controller.submit_result(seq, result))

    def _may_declare(self, seat: int) -> bool:
        """A player with too few points to declare riichi (where the rules say so) does not."""
        try:
            R.check_riichi(self.controller.rules, self.controller.state.scores, (seat,))
        except R.ResultError:
            return False
        return True

    async def _when_playing(self, action) -> None:
        """Players act only while the hand is in play; a fault or pause makes them wait."""
        while True:
            if self.controller.sm.in_play():
                try:
                    outcome = action()
                    if asyncio.iscoroutine(outcome):
                        await outcome
                    return
                except Refusal as exc:
                    if exc.code != "not_allowed":
                        raise
            await asyncio.sleep(5.0)


async def play_game(rules: R.RuleSet, *, seed: int = 0, dealer: int = 0, profile=None,
                    faults: FaultPlan | None = None, impairment: Impairment | None = None, store=None,
                    settings: Settings | None = None, on_controller: Callable[[Controller, SimulatedTable], None] | None = None,
                    ) -> GameRun:
    loop = asyncio.get_running_loop()
    start = loop.time()
    table = SimulatedTable(profile or profile_for(rules), seed=seed, faults=faults)  # a Profile or its file

    connections = 0

    async def connect():
        # A new line's noise is new: the same seed would replay the same damage for ever.
        nonlocal connections
        connections += 1
        return connect_in_process(loop, table, impairment=impairment, seed=seed + 7919 * (connections - 1))

    settings = settings or Settings(durations=durations_from(table.profile.timings))
    controller = Controller(connect, rules, store=store, settings=settings, seed=seed)
    hands: list[dict] = []
    controller.subscribe(lambda e: hands.append(e["record"]) if e["event"] == "hand_ended" else None)
    PlayerDriver(controller, Players(table_rules(rules), seed=seed))
    if on_controller:
        on_controller(controller, table)
    await controller.start()
    if controller.state is None:
        await controller.new_game(dealer)
    standings = await controller.play()
    controller.close()
    return GameRun(standings, hands, table.trace.records, controller, table, loop.time() - start)


def run_game(rules: R.RuleSet | str, *, limit: float = 14400.0, **kwargs) -> GameRun:
    """Play one whole game in virtual time; returns when it is over.

    `limit` (simulated seconds) turns a game that can never end — which in virtual time
    would spin through heartbeats for ever — into a TimeoutError.
    """
    if isinstance(rules, str):
        rules = R.load_ruleset(rules)
    return run_virtual(asyncio.wait_for(play_game(rules, **kwargs), limit))
