"""Host kills at random points: the controller process dies mid-game and a
new one starts on the same SQLite file and the same still-running table; it resumes the
game from the store, and the game ends with the clean run's journal.

In virtual time a kill is: cancel every task of the host (all tasks but this harness:
the simulator runs on loop timers, not tasks), hang up its line, drop its database
connection. The players are people: they outlive the host, keep their decisions for
the hand in play and re-enter them into the new controller.
"""
from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from controller import rules as R
from controller.game.controller import Controller
from controller.app.simulation import PlayerDriver, profile_for, table_rules
from controller.store.database import Store
from firmware_protocol.virtual_time import run_virtual
from sim.players import Players
from firmware_protocol.profile import load_profile
from sim.serve import connect_in_process
from sim.table import SimulatedTable

from .harness import COUNTS, assert_same_game, clean_game, count_link, operator

PRESETS = ["ema-2016", "mleague", "zung-jung", "wrc", "sanma"]
GAMES = 10
KILLS_PER_GAME = 5


class HandPlans:
    """The players' decisions for the hand in play (riichi, kans, result), drawn in the
    order the clean run's players draw them and kept until the hand is settled, so a
    hand replayed after a kill gets the same decisions. (A chombo re-deal is a new hand
    with the same seq, so the seq cannot be the key.)"""

    def __init__(self, rules: R.RuleSet, seed: int) -> None:
        self._players = Players(table_rules(rules), seed=seed)
        self._current: tuple[list[int], int, dict] | None = None

    def current(self) -> tuple[list[int], int, dict]:
        if self._current is None:
            riichi = self._players.riichi_declarations()
            kans = self._players.kans()
            self._current = (riichi, kans, self._players.result(riichi))
        return self._current

    def settled(self) -> None:
        self._current = None


class ReturningPlayers(PlayerDriver):
    """Players who, after a restart, only redo what the restored hand does not have yet."""

    def __init__(self, controller: Controller, plans: HandPlans) -> None:
        super().__init__(controller, players=None)
        self.plans = plans
        controller.subscribe(lambda e: plans.settled() if e["event"] == "hand_ended" else None)

    async def _play(self, seq: int) -> None:
        riichi, kans, result = self.plans.current()
        await asyncio.sleep(self.think() / 2)
        for seat in riichi:
            if seat not in self.controller.hand.riichi:
                await self._when_playing(lambda s=seat: self.controller.declare_riichi(s))
        while self.controller.hand.kans < kans:
            await self._when_playing(self.controller.declare_kan)
        await asyncio.sleep(self.think() / 2)
        await self._when_playing(lambda: self.controller.submit_result(seq, result))


class Host:
    """One controller process: started on the store file, killed at will."""

    def __init__(self, table: SimulatedTable, rules: R.RuleSet, db: Path, plans: HandPlans, seed: int) -> None:
        loop = asyncio.get_running_loop()

        async def connect():
            return connect_in_process(loop, table, seed=seed)
        self.controller = Controller(connect, rules, store=Store(db), seed=seed)
        ReturningPlayers(self.controller, plans)
        operator()(self.controller, table)
        self.last_fault = None
        self.controller.subscribe(lambda e: setattr(self, "last_fault", e["message"]) if e["event"] == "fault" else None)
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> R.Standings:
        await self.controller.start()  # restores the active game from the store, if any
        if self.controller.state is None:
            await self.controller.new_game(0)
        return await self.controller.play()

    def kill(self) -> None:
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            task.cancel()
        count_link(self.controller.table.stats)
        self.controller.table.close()
        self.controller.store.close()


async def _play_with_kills(ruleset: str, seed: int, db: Path, gaps: list[float], restart: list[float],
                           budget: float):
    """Play a game, killing the host `gaps[i]` seconds after its i-th start; return the
    last controller and the number of kills made. A game still running after `budget`
    simulated seconds is stuck (e.g. retrying a refused step forever): fail, don't hang."""
    rules = R.load_ruleset(ruleset)
    table = SimulatedTable(load_profile(profile_for(rules)), seed=seed)
    plans = HandPlans(rules, seed)
    kills = 0
    for gap, delay in zip(gaps, restart):
        host = Host(table, rules, db, plans, seed)
        done, _ = await asyncio.wait([host.task], timeout=gap)
        if done:
            break
        host.kill()
        kills += 1
        await asyncio.sleep(delay)  # the service manager restarts the controller
    else:
        host = Host(table, rules, db, plans, seed)
    done, _ = await asyncio.wait([host.task], timeout=budget)
    if not done:
        c = host.controller
        state, fault, hand = c.sm.state, c.fault and c.fault.describe(), c.hand and c.hand.to_dict()
        host.kill()
        raise AssertionError(f"game stuck after {kills} kills: state {state}, fault {fault}, "
                             f"last fault shown {host.last_fault!r}, hand {hand}")
    host.task.result()
    count_link(host.controller.table.stats)
    host.controller.table.close()
    return host.controller, kills


def _kill_schedule(seed: int, duration: float) -> tuple[list[float], list[float]]:
    """Time from each start to its kill (together less than a game), and restart delays:
    some longer than the table's 3 s watchdog, so the table has stopped by then."""
    rng = random.Random(f"kills:{seed}")
    gaps = [rng.uniform(0.5, duration / KILLS_PER_GAME) for _ in range(KILLS_PER_GAME)]
    return gaps, [rng.uniform(0.2, 8.0) for _ in range(KILLS_PER_GAME)]


@pytest.mark.parametrize("game", range(GAMES))
def test_game_with_host_kills_resumes_from_the_store_and_ends_as_the_clean_run(game, tmp_path):
    ruleset, seed = PRESETS[game % len(PRESETS)], 200 + game
    clean = clean_game(ruleset, seed)
    gaps, restart = _kill_schedule(seed, clean.elapsed)
    db = tmp_path / "db"
    controller, kills = run_virtual(_play_with_kills(ruleset, seed, db, gaps, restart, budget=3 * clean.elapsed))
    COUNTS["host kills"] += kills
    assert kills == KILLS_PER_GAME
    with Store(db) as store:
        game_record = store.latest_game()
        journal = store.hands(game_record.id)
    assert game_record.status == "finished"
    assert_same_game(journal, controller.standings, clean)
