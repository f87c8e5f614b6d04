"""MCU resets at random points: 20 seeded games with 5 resets each, drawn
over the clean game's duration; every game ends with the clean run's journal."""
from __future__ import annotations

import random

import pytest

from controller.app.simulation import run_game
from sim.faults import FaultPlan

from .harness import COUNTS, assert_same_game, clean_game, count_link, operator

PRESETS = ["ema-2016", "wrc", "mleague", "zung-jung", "sanma", "mcr"]
GAMES = 20
RESETS_PER_GAME = 5


def _reset_times(seed: int, duration: float) -> list[float]:
    rng = random.Random(f"resets:{seed}")
    return sorted(rng.uniform(0.5, duration) for _ in range(RESETS_PER_GAME))


@pytest.mark.parametrize("game", range(GAMES))
def test_game_with_random_mcu_resets_ends_as_the_clean_run(game):
    ruleset, seed = PRESETS[game % len(PRESETS)], 100 + game
    clean = clean_game(ruleset, seed)
    times = _reset_times(seed, clean.elapsed)
    run = run_game(ruleset, seed=seed, faults=FaultPlan(reset_at=times), on_controller=operator())
    reboots = [r for r in run.trace if r.name == "booted"]
    COUNTS["mcu resets"] += len(reboots)
    count_link(run.controller.table.stats)
    assert len(reboots) == RESETS_PER_GAME
    assert_same_game(run.hands, run.standings, clean)
