"""Kans in a whole game: up to four a hand, each revealing the next indicator the rules'
geometry gives; a fifth is refused and the hand goes on."""
import asyncio

import pytest

from controller import rules as R
from controller.errors import Refusal
from controller.app.simulation import run_game


def _four_kans_then_a_fifth(outcome):
    """In the first hand, right as play starts: four kans, then a fifth (refused)."""
    def attach(controller, table):
        async def kans():
            for _ in range(4):
                await controller.declare_kan()
            try:
                await controller.declare_kan()
            except Refusal as exc:
                outcome["fifth"] = exc
            outcome["kans"] = controller.hand.kans

        def on_event(event):
            if event["event"] == "hand_started" and event["seq"] == 1:
                outcome["task"] = asyncio.ensure_future(kans())
        controller.subscribe(on_event)
    return attach


@pytest.mark.parametrize("name", ["ema-2016", "sanma"])
def test_four_kans_reveal_five_indicators_and_a_fifth_kan_is_refused(name):
    rules, outcome = R.load_ruleset(name), {}
    run = run_game(rules, seed=3, on_controller=_four_kans_then_a_fifth(outcome))
    assert outcome["kans"] == 4
    assert outcome["fifth"].code == "not_allowed" and "at most 4 kans" in str(outcome["fifth"])
    first = run.hands[0]
    setup = R.setup_hand(rules, first["dealer"], [first["dice"]])
    assert first["dora_indicators"] == [list(p) for p in setup.dora_indicators]
    assert len(first["dora_indicators"]) == 5
    # the table was told to flip exactly those stacks, in that order, in the first hand
    flips = [(r.args["seat"], r.args["stack"]) for r in run.trace if r.name == "flip_dora" and r.dir == "cmd"]
    assert flips[:5] == list(setup.dora_indicators)
    assert run.standings is not None
