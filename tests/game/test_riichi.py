"""Declaring riichi: the rule set's minimum score is checked at the declaration, so a seat
that may not declare is told at once and the hand goes on; M.League has no minimum."""
import asyncio
import dataclasses

import pytest

from controller import rules as R
from controller.errors import Refusal
from controller.app.simulation import run_game


def _declare_when_poor(seat: int, outcome: dict):
    """In the first hand: leave `seat` with 900 points, then declare riichi for it."""
    def attach(controller, table):
        async def declare():
            controller.game.state = dataclasses.replace(
                controller.state, scores=tuple(900 if s == seat else v for s, v in enumerate(controller.state.scores)))
            try:
                await controller.declare_riichi(seat)
            except Refusal as exc:
                outcome["refused"] = exc
            outcome["declared"] = list(controller.hand.riichi)
            outcome["shown"] = controller.snapshot()["scores"][seat]

        def on_event(event):
            if event["event"] == "hand_started" and event["seq"] == 1:
                outcome["task"] = asyncio.ensure_future(declare())
        controller.subscribe(on_event)
    return attach


def test_a_declaration_below_the_minimum_is_refused_at_once_and_the_game_goes_on():
    rules, outcome = R.load_ruleset("sanma"), {}
    run = run_game(rules, seed=5, on_controller=_declare_when_poor(1, outcome))
    assert outcome["refused"].code == "not_allowed"
    assert "needs at least 1000 points" in str(outcome["refused"])
    assert 1 not in outcome["declared"] and outcome["shown"] == 900
    assert run.standings is not None


@pytest.mark.parametrize("name", ["mleague", "ema-2016"])
def test_rule_sets_without_a_minimum_take_a_declaration_below_1000(name):
    outcome = {}
    run = run_game(R.load_ruleset(name), seed=5, on_controller=_declare_when_poor(1, outcome))
    assert "refused" not in outcome and 1 in outcome["declared"]
    assert outcome["shown"] == -100  # the bet is on the table: play goes on below zero
    assert run.standings is not None
