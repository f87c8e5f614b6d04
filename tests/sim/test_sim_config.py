"""Hardware profiles and fault scenarios: strict YAML with errors that say where."""
from __future__ import annotations

import re

import pytest

from firmware_protocol.transport import Impairment
from sim import load_fault_plan, load_profile
from sim.profile import CONFIG_DIR
from sim.strict_yaml import ConfigError

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
    (("dice: 2", "dice: 2\ndie: 3"), ":11: die:", "unknown key"),
    (("  shuffle: 30.0", "  shufle: 30.0"), ":23: timings.shufle:", "unknown key"),
    (("dice: 2", "dice: two"), ":10: dice:", "expected a int"),
    (("dora_flipper: true", "dora_flipper: 1"), ":12: dora_flipper:", "expected a bool"),
    (("wind_marker: motorised", "wind_marker: servo"), ":15: wind_marker:", "not one of none, lamp, motorised"),
    (("[17, 17, 17, 17]", "[17, 17, x, 17]"), ":7: stacks.[2]:", "expected a int"),
    (("  receive_window: 4\n", ""), ":18: link:", "missing key 'receive_window'"),  # the mapping's first line
])
def test_profile_errors_name_file_line_and_key(tmp_path, change, where, message):
    path = write(tmp_path, FOUR_PORT.replace(*change, 1))
    with pytest.raises(ConfigError) as err:
        load_profile(path)
    assert str(err.value).startswith(str(path) + where) and message in str(err.value)


def test_profile_geometry_must_hold_the_set(tmp_path):
    with pytest.raises(ConfigError, match="stacks"):
        load_profile(write(tmp_path, FOUR_PORT.replace("[17, 17, 17, 17]", "[17, 17, 17, 16]")))


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
    ("jam: [{shuffle: 2, sensor: elbow}]", ":1: jam.[0].sensor:"),
    ("link: {noise: 0.1}", ":1: link.noise: unknown key"),
    ("lift_stuck: [{raise: 1, lift: 7}]", "a lift is a seat"),
])
def test_fault_scenario_errors(tmp_path, text, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_fault_plan(write(tmp_path, text, "faults.yaml"))
