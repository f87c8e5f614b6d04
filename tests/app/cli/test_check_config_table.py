"""`mjtable check-config` on a table config refuses a rule set the table cannot play: the
table config names the hardware profile, whose tiles, walls and dice must fit (the same
check the controller makes on the table's identify reply)."""
from __future__ import annotations

import pytest

from controller.rules import preset_names
from firmware_protocol.profile import DEFAULT_PROFILE

from .cli_harness import mjtable

PROFILE_FOR = {"mcr": "mcr-144", "sanma": "sanma-108"}  # the others play on 136 tiles


def write_config(folder, ruleset: str, profile: str):
    (folder / "table.yaml").write_text(f"kind: table\nserial: {{port: /dev/ttyUSB0, baud: 115200}}\n"
                                       f"profile: {profile}\nruleset: {ruleset}\n"
                                       "state: {database: state.db}\napi: {socket: api.sock}\n")
    return folder / "table.yaml"


@pytest.mark.parametrize("ruleset", preset_names())
def test_every_preset_passes_on_its_table(short_tmp, ruleset):
    write_config(short_tmp, ruleset, PROFILE_FOR.get(ruleset, "four-port"))
    done = mjtable("check-config", "table.yaml", cwd=short_tmp)
    assert done.stdout.startswith("ok: table config table.yaml:") and f"rule set {ruleset}," in done.stdout


@pytest.mark.parametrize("ruleset, profile, gap", [
    ("mcr", "four-port", "its tile sets hold 136 tiles, the rules play with 144"),
    ("ema-2016", "mcr-144", "its tile sets hold 144 tiles, the rules play with 136"),
    ("sanma", "basic", "its tile sets hold 136 tiles, the rules play with 108"),
])
def test_a_rule_set_the_table_cannot_play_is_refused_naming_both(short_tmp, ruleset, profile, gap):
    write_config(short_tmp, ruleset, profile)
    done = mjtable("check-config", "table.yaml", cwd=short_tmp, check=False)
    assert done.returncode == 2 and done.stdout == ""
    model = {"four-port": "four-port-136", "mcr-144": "mcr-144", "basic": "basic-136"}[profile]
    assert done.stderr.splitlines() == [
        f"table.yaml: the table profile {profile}.yaml: table {model} cannot play rule set {ruleset}: {gap}",
        "table.yaml: not valid"]


def test_walls_and_dice_are_compared_too(short_tmp):
    text = DEFAULT_PROFILE.read_text()
    for old, new in (("stacks: [17, 17, 17, 17]", "stacks: [16, 18, 16, 18]"), ("dice: 2", "dice: 1")):
        assert old in text
        text = text.replace(old, new, 1)
    (short_tmp / "odd.yaml").write_text(text)
    write_config(short_tmp, "ema-2016", "odd.yaml")
    done = mjtable("check-config", "table.yaml", cwd=short_tmp, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].split("cannot play rule set ema-2016: ")[1].split("; ") == [
        "its lifts stack at most [16, 18, 16, 18] per side, the rules need [17, 17, 17, 17]",
        "it rolls 1 dice, the rules throw 2 at a time"]


def test_a_profile_name_that_is_not_shipped_lists_the_shipped_ones(short_tmp):
    write_config(short_tmp, "ema-2016", "six-port")
    done = mjtable("check-config", "table.yaml", cwd=short_tmp, check=False)
    assert done.returncode == 2
    assert "'six-port': no such file" in done.stderr and "basic, four-port, four-port-sticks, mcr-144, sanma-108" in done.stderr
