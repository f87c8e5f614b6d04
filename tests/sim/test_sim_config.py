"""Hardware profiles and fault scenarios: strict YAML with errors that say where."""
from __future__ import annotations

import re

import pytest

from firmware_protocol.transport import Impairment
from mjtable_config.schema import ConfigError
from sim import load_fault_plan, load_profile
from firmware_protocol.profile import CONFIG_DIR

FOUR_PORT = (CONFIG_DIR / "tables" / "four-port.yaml").read_text()


def write(tmp_path, text: str, name: str = "table.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["four-port", "basic", "mcr-144", "sanma-108"])
def test_shipped_profiles_load(name):
    profile = load_profile(CONFIG_DIR / "tables" / f"{name}.yaml")
    assert 2 * sum(profile.stacks) == profile.tiles


def test_four_port_timings():
    t = load_profile(CONFIG_DIR / "tables" / "four-port.yaml").timings
    assert (t.collect, t.shuffle, t.raise_walls, t.dice, t.separate, t.build_limit) == (6, 30, 6, 2, 2, 80)


@pytest.mark.parametrize("change,where,message", [
    (("dice: 2", "dice: 2\ndie: 3"), ":11: die:", "unknown key 'die' (did you mean 'dice'?)"),
    (("  shuffle: 30.0", "  shufle: 30.0"), ":23: timings.shufle:", "unknown key 'shufle' (did you mean 'shuffle'?)"),
    (("dice: 2", "dice: two"), ":10: dice:", "got 'two'; allowed: an integer from 1 to 4"),
    (("dice: 2", "dice: 5"), ":10: dice:", "5 is out of range; allowed: an integer from 1 to 4"),
    (("dora_flipper: true", "dora_flipper: 1"), ":12: dora_flipper:", "got 1; allowed: true or false"),
    (("wind_marker: motorised", "wind_marker: servo"), ":15: wind_marker:", "allowed: none, lamp, motorised"),
    (("[17, 17, 17, 17]", "[17, 17, x, 17]"), ":7: stacks[2]:", "got 'x'; allowed: an integer"),
    # at the key of the mapping that lacks it
    (("  receive_window: 4\n", ""), ":17: link:", "missing required key 'receive_window'"),
    (("  shuffle: 30.0", "  shuffle: 90.0"), ":23: timings.shuffle:", "longer than build_limit 80.0"),
])
def test_profile_errors_name_file_line_and_key(tmp_path, change, where, message):
    path = write(tmp_path, FOUR_PORT.replace(*change, 1))
    with pytest.raises(ConfigError) as err:
        load_profile(path)
    lines = str(err.value).splitlines()
    assert any(line.startswith(str(path) + where) and message in line for line in lines), lines


def test_profile_geometry_must_hold_the_set(tmp_path):
    path = write(tmp_path, FOUR_PORT.replace("[17, 17, 17, 17]", "[17, 17, 17, 16]"))
    with pytest.raises(ConfigError, match=re.escape(f"{path}:7: stacks: [17, 17, 17, 16] hold 134 tiles")):
        load_profile(path)


def test_every_profile_problem_is_listed_at_once(tmp_path):
    edits = (("dice: 2", "dice: two"), ("dora_flipper: true", "dora_flipper: 1"), ("  shuffle: 30.0", "  shufle: 30.0"))
    text = FOUR_PORT
    for old, new in edits:
        text = text.replace(old, new, 1)
    with pytest.raises(ConfigError) as err:
        load_profile(write(tmp_path, text))
    # in file order: the timings mapping lacks shuffle (its first line), then the unknown shufle
    assert [line.split(": ")[1] for line in str(err.value).splitlines()] == [
        "dice", "dora_flipper", "timings", "timings.shufle"]


def test_fault_scenario_file(tmp_path):
    plan = load_fault_plan(write(tmp_path, """
link: {corrupt: 0.01, drop: 0.02}
jam: [{shuffle: 2, sensor: stacker}]
missing_tile: [1]
extra_tile: [3]
lift_stuck: [{raise: 2, lift: 1}]
build_timeout: [4]
lid_open: [{at: 100, for: 10.5}]
reset: {at: [300.0], after_command: [50]}
""", "faults.yaml"))
    assert plan.link == Impairment(corrupt=0.01, drop=0.02)
    assert (plan.jam, plan.missing_tile, plan.extra_tile, plan.lift_stuck) == ({2: "stacker"}, {1}, {3}, {2: 1})
    assert (plan.build_timeout, plan.reset_at, plan.reset_after_command) == ({4}, [300.0], {50})
    assert (plan.lid_open[0].at, plan.lid_open[0].duration) == (100.0, 10.5)


@pytest.mark.parametrize("text,message", [
    ("jam: [{shuffle: 2, sensor: elbow}]", ":1: jam[0].sensor: got 'elbow'"),
    ("link: {noise: 0.1}", ":1: link.noise: unknown key"),
    ("lift_stuck: [{raise: 1, lift: 7}]", ":1: lift_stuck[0].lift: 7 is out of range; allowed: an integer from 0 to 3"),
    ("missing_tile: [0]", ":1: missing_tile[0]: 0 is out of range; allowed: an integer ≥ 1"),
])
def test_fault_scenario_errors(tmp_path, text, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_fault_plan(write(tmp_path, text, "faults.yaml"))
