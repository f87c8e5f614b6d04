"""Which rule sets a table can play: refused at the self-test and at `start`, naming the
table and the rule set; optional devices never refuse a game."""
from __future__ import annotations

import asyncio
import dataclasses

import pytest

from controller import rules as R
from controller.errors import Refusal
from controller.table.capabilities import Capabilities, cannot_play
from controller.game.controller import Controller
from controller.api.handlers import Service
from firmware_protocol.virtual_time import run_virtual
from firmware_protocol.profile import CONFIG_DIR, load_profile
from sim.serve import connect_in_process
from sim.table import SimulatedTable

TABLES = {path.stem: load_profile(path) for path in sorted((CONFIG_DIR / "tables").glob("*.yaml"))}
PLAYABLE = {"four-port": {"ema-2016", "mleague", "wrc", "zung-jung"}, "basic": {"ema-2016", "mleague", "wrc",
            "zung-jung"}, "mcr-144": {"mcr"}, "sanma-108": {"sanma"}}
PLAYABLE["four-port-sticks"] = PLAYABLE["four-port"]  # the four-port table with a stick reader


def _capabilities(profile) -> Capabilities:
    return Capabilities.from_profile(dataclasses.asdict(profile))


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("preset", R.preset_names())
def test_each_table_plays_the_presets_of_its_tile_set(table, preset):
    reason = cannot_play(_capabilities(TABLES[table]), R.load_ruleset(preset))
    if preset in PLAYABLE[table]:
        assert reason is None
    else:
        assert TABLES[table].model in reason and preset in reason and "tiles" in reason


def test_walls_the_lifts_cannot_stack_and_too_few_dice_are_refused():
    four_port = _capabilities(TABLES["four-port"])
    crooked = dataclasses.replace(R.load_ruleset("ema-2016"), stacks_per_side=(16, 18, 17, 17))
    assert "at most [17, 17, 17, 17] per side" in cannot_play(four_port, crooked)
    one_die = dataclasses.replace(four_port, dice=1)
    assert "rolls 1 dice" in cannot_play(one_die, R.load_ruleset("ema-2016"))


def test_optional_devices_never_refuse_a_game():
    bare = dataclasses.replace(_capabilities(TABLES["four-port"]), dead_wall_separator=False, dora_flipper=False,
                               seat_displays=False, centre_display=False, wind_marker="none", seat_buttons=False)
    assert cannot_play(bare, R.load_ruleset("ema-2016")) is None
    assert bare.absent() == ["dead-wall separator", "dora flipper", "seat displays", "centre display",
                             "wind marker", "seat buttons"]


def _started(rules: R.RuleSet, table: str):
    """A controller for `rules` started against the simulated `table`, with its table."""
    async def start():
        loop = asyncio.get_running_loop()
        sim = SimulatedTable(TABLES[table])

        async def connect():
            return connect_in_process(loop, sim)
        controller = Controller(connect, rules)
        try:
            await controller.start()
            return controller, sim, None
        except Refusal as exc:
            return controller, sim, exc
        finally:
            controller.close()
    return run_virtual(start())


def test_self_test_refuses_a_rule_set_the_table_cannot_play_before_configuring():
    controller, sim, refused = _started(R.load_ruleset("mcr"), "four-port")
    assert refused is not None and refused.code == "not_allowed"
    assert "four-port-136" in refused.message and "mcr" in refused.message
    assert "144" in refused.message and "136" in refused.message
    assert sim.trace.named("configure", "cmd") == []  # nothing sent to the table


def test_identity_gives_the_capabilities_of_the_profile():
    controller, _, refused = _started(R.load_ruleset("ema-2016"), "basic")
    assert refused is None
    assert controller.table.capabilities == _capabilities(TABLES["basic"])


def test_start_with_a_rule_set_the_table_cannot_play_changes_nothing():
    async def scenario():
        loop = asyncio.get_running_loop()
        sim = SimulatedTable(TABLES["four-port"])

        async def connect():
            return connect_in_process(loop, sim)
        controller = Controller(connect, R.load_ruleset("ema-2016"))
        service = Service(controller)
        await service.start()
        try:
            with pytest.raises(Refusal) as refused:
                await service.handle("start", {"ruleset": "mcr"})
            state = (controller.sm.state, controller.rules.name, controller.ruleset_name, controller.state)
            await service.handle("start", {"ruleset": "wrc"})  # the same table plays another 136-tile set
            return refused.value, state, controller.ruleset_name
        finally:
            if service.game_task:
                service.game_task.cancel()
            controller.close()
    refused, state, after = run_virtual(scenario())
    assert refused.code == "not_allowed" and "four-port-136" in refused.message and "mcr" in refused.message
    assert state == ("idle", "ema-2016", "ema-2016", None)
    assert after == "wrc"
