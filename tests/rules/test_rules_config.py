"""Rule-set and table-config validation, and `mjtable check-config`.

Each broken file is a preset with one edit; the expected line is found in the edited text,
so the message must point at the place the user changed.
"""
from pathlib import Path

import pytest

from controller.cli import main
from controller.app.config import SHIPPED_CONFIG, load_table_config
from controller.rules import ConfigError, load_ruleset, preset_names, ruleset_from_text

EMA_TEXT = (Path(load_ruleset("ema-2016").source)).read_text()


def edited(*edits, text=EMA_TEXT):
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def line_of(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def errors(text, file="parlour.yaml"):
    with pytest.raises(ConfigError) as exc:
        ruleset_from_text(text, file)
    return str(exc.value).splitlines()


def test_every_preset_loads():
    assert set(preset_names()) >= {"ema-2016", "zung-jung", "wrc", "mleague", "sanma", "mcr"}
    for name in preset_names():
        rules = load_ruleset(name)
        assert rules.name == name
        assert 2 * sum(rules.stacks_per_side) == rules.tiles


@pytest.mark.parametrize("old,new,needle,expected", [
    ("  throws: 1 ", "  thorws: 1 ", "thorws", "dice.thorws: unknown key 'thorws' (did you mean 'throws'?)"),
    ("  per_throw: 2 ", "  per_throw: two ", "per_throw", "dice.per_throw: got 'two'; allowed: an integer from 1 to 3"),
    ("  per_throw: 2 ", "  per_throw: true ", "per_throw", "dice.per_throw: got true; allowed: an integer"),
    ("  throws: 1 ", "  throws: 3 ", "throws: 3", "dice.throws: 3 is out of range; allowed: an integer from 1 to 2"),
    ("  mode: final ", "  mode: finale ", "mode: finale", "chombo.mode: got 'finale' (did you mean 'final'?); allowed: final, table"),
    ("    - {han: 8, base: 4000, name: baiman}", "    - {han: 8, base: -4000, name: baiman}", "baiman",
     "payment.limits[2].base: -4000 is out of range"),
    ("  scheme: riichi", "  scheme: richi", "scheme: richi", "payment.scheme: got 'richi' (did you mean 'riichi'?)"),
])
def test_single_field_errors_name_line_path_value_and_allowed(old, new, needle, expected):
    text = edited((old, new))
    lines = errors(text)
    assert any(line.startswith(f"parlour.yaml:{line_of(text, needle)}: {expected}") for line in lines), lines


@pytest.mark.parametrize("old,new,needle,expected", [
    ("  stacks_per_side: [17, 17, 17, 17]", "  stacks_per_side: [17, 17, 17, 16]", "stacks_per_side",
     "tiles.stacks_per_side: [17, 17, 17, 16] make 134 tiles but count is 136"),
    ("  stacks: 7 ", "  stacks: 17 ", "stacks: 17", "dead_wall.stacks: 17 stacks is not shorter than a wall of 17"),
    ("  uma: [15000, 5000, -5000, -15000]", "  uma: [15000, 5000, -5000, -10000]", "uma:",
     "standings.uma: [15000, 5000, -5000, -10000] sums to 5000"),
    ("  oka: 0", "  oka: 5000", "oka:", "standings.oka: 5000 but 4 × (return 30000 − start 30000) = 0"),
    ("  throws: 1 ", "  throws: 2 ", "break_count", "dice.break_count: 'first' ignores the other 1 throw(s)"),
    # the dead wall grows by one tile of the live wall's end per kan: after 3 kans it reaches the
    # top tile of stack 8, not 9
    ("  indicator_stack: 3 ", "  indicator_stack: 6 ", "dora:",
     "dora: the indicator after 3 kan(s) is on stack 9, outside the dead wall (stacks 1-8 then)"),
    ("  kan_step: 1 ", "  kan_step: -1 ", "dora:", "dora: the indicator after 3 kan(s) is on stack 0"),
    ("  noten_total: 3000 ", "  noten_total: 3001 ", "noten_total", "draw.noten_total: 3001 does not split evenly"),
    ("  hand: 13 ", "  hand: 14 ", "deal:", "deal: deals 13 tiles per player but tiles.hand is 14"),
])
def test_inconsistent_figures(old, new, needle, expected):
    text = edited((old, new))
    lines = errors(text)
    assert any(line.startswith(f"parlour.yaml:{line_of(text, needle)}: {expected}") for line in lines), lines


@pytest.mark.parametrize("edits", [
    [("  indicator_stack: 3 ", "  indicator_stack: 5 ")],  # the 5th indicator: top of stack 9 after 4 kans
    [("  indicator_stack: 3 ", "  indicator_stack: 6 "), ("  max_indicators: 5 ", "  max_indicators: 3 ")],
    [("  kan_step: 1 ", "  kan_step: -1 "), ("  max_indicators: 5 ", "  max_indicators: 3 ")],
])
def test_indicators_may_reach_into_the_tiles_kans_take_from_the_live_wall(edits):
    ruleset_from_text(edited(*edits), "parlour.yaml")  # no ConfigError


def test_a_bottom_indicator_is_taken_in_before_the_top():
    # the live wall's last stack gives its top before its bottom, so the 1st kan takes in the bottom
    two = [("  indicator_stack: 3 ", "  indicator_stack: 7 "), ("  max_indicators: 5 ", "  max_indicators: 2 ")]
    ruleset_from_text(edited(*two, ("  tile: top", "  tile: bottom")))
    lines = errors(edited(*two))
    assert any("the indicator after 1 kan(s) is on stack 8" in line for line in lines), lines


def test_several_errors_at_once_and_missing_keys():
    text = edited(("  throws: 1 ", "  thorws: 1 "), ("  deposit: 1000", "  deposit: lots"), ("multiple_ron: allowed", "#"))
    lines = errors(text)
    assert len(lines) == 4, lines
    assert any("dice: missing required key 'throws'" in line for line in lines)
    assert any(f":{line_of(text, 'deposit')}: riichi.deposit: got 'lots'" in line for line in lines)
    top = line_of(text, "kind: ruleset")  # the mapping that lacks the key
    assert any(line.startswith(f"parlour.yaml:{top}: missing required key 'multiple_ron'") for line in lines)


def test_yaml_syntax_and_empty_and_wrong_top_level():
    assert errors("name: [unclosed\n")[0].startswith("parlour.yaml:2: not valid YAML")
    assert errors("") == ["parlour.yaml: the file is empty"]
    assert "allowed: a rule set with keys" in errors("- 1\n")[0]


def test_unknown_preset_lists_the_presets():
    with pytest.raises(ConfigError, match="ema-2016, mcr"):
        load_ruleset("ema-2017")


# ----------------------------------------------------------------------------- table config

TABLE_TEXT = Path(__file__).resolve().parents[2].joinpath("config", "table.yaml").read_text()


def table_dir(tmp_path, text=TABLE_TEXT):
    (tmp_path / "tables").mkdir()
    # a real profile: check-config compares it with the rule set
    (tmp_path / "tables" / "four-port.yaml").write_text((SHIPPED_CONFIG.parent / "tables" / "four-port.yaml").read_text())
    (tmp_path / "table.yaml").write_text(text)
    return tmp_path / "table.yaml"


def test_example_table_config_loads_with_paths_relative_to_it(tmp_path):
    config = load_table_config(table_dir(tmp_path))
    assert config.port == "socket://127.0.0.1:7700" and config.baud == 115200
    assert config.ruleset.name == "ema-2016" and config.display_mode == "difference"
    assert config.database == tmp_path / "var" / "mjtable.db"
    assert config.socket == tmp_path / "var" / "mjtable.sock"
    assert config.profile == SHIPPED_CONFIG.parent / "tables" / "four-port.yaml"  # by name: the config copied alone loads
    assert config.starting_dealer == "draw"
    mine = tmp_path / "mine"
    mine.mkdir()
    own = table_dir(mine, edited(("profile: four-port ", "profile: tables/four-port.yaml "), text=TABLE_TEXT))
    assert load_table_config(own).profile == mine / "tables" / "four-port.yaml"


def test_table_config_takes_a_ruleset_file_relative_to_it(tmp_path):
    path = table_dir(tmp_path, edited(("ruleset: ema-2016", "ruleset: rules/house.yaml"), text=TABLE_TEXT))
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "house.yaml").write_text(edited(("name: ema-2016", "name: house")))
    assert load_table_config(path).ruleset.name == "house"


def test_table_config_errors_include_the_rule_sets(tmp_path):
    text = edited(("  port: socket://", "  port: sockit://"), ("mode: difference", "mode: differences"),
                  ("ruleset: ema-2016", "ruleset: house.yaml"), ("starting_dealer: draw", "starting_dealer: 5"),
                  text=TABLE_TEXT)
    path = table_dir(tmp_path, text)
    (tmp_path / "house.yaml").write_text(edited(("  throws: 1 ", "  throws: 0 ")))
    with pytest.raises(ConfigError) as exc:
        load_table_config(path)
    lines = str(exc.value).splitlines()
    assert any(f"table.yaml:{line_of(text, 'port:')}: serial.port: got 'sockit://" in line for line in lines)
    assert any(f"table.yaml:{line_of(text, 'mode:')}: display.mode: got 'differences'" in line for line in lines)
    assert any("game.starting_dealer: got 5; allowed: an integer from 0 to 3 or draw" in line for line in lines)
    house = (tmp_path / "house.yaml").read_text()
    assert any(f"house.yaml:{line_of(house, 'throws: 0')}: dice.throws: 0 is out of range" in line for line in lines)


def test_starting_dealer_must_play_in_sanma(tmp_path):
    text = edited(("ruleset: ema-2016", "ruleset: sanma"), ("starting_dealer: draw", "starting_dealer: 3"),
                  text=TABLE_TEXT)
    with pytest.raises(ConfigError, match="game.starting_dealer: 3 is not a seat in play in sanma"):
        load_table_config(table_dir(tmp_path, text))


def test_missing_profile_is_reported(tmp_path):
    path = table_dir(tmp_path, edited(("profile: four-port ", "profile: tables/four-port.yaml "), text=TABLE_TEXT))
    (tmp_path / "tables" / "four-port.yaml").unlink()
    with pytest.raises(ConfigError, match="profile: 'tables/four-port.yaml': no such file"):
        load_table_config(path)


# ----------------------------------------------------------------------------- check-config

@pytest.mark.parametrize("name", ["ema-2016", "zung-jung", "wrc", "mleague", "sanma", "mcr"])
def test_check_config_accepts_every_preset(name, capsys):
    assert main(["check-config", str(Path(load_ruleset(name).source))]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ok: rule set {name}:") and out.count("\n") == 1


def test_check_config_accepts_a_table_config(tmp_path, capsys):
    assert main(["check-config", str(table_dir(tmp_path))]) == 0
    assert capsys.readouterr().out.startswith("ok: table config table.yaml:")


def test_check_config_prints_every_error_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "house.yaml"
    bad.write_text(edited(("  throws: 1 ", "  thorws: 1 "), ("  deposit: 1000", "  deposit: -1")))
    assert main(["check-config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "dice.thorws: unknown key" in err and "riichi.deposit: -1 is out of range" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("content", ["", "just: nonsense\n", "a: [\n"])
def test_check_config_on_unreadable_or_unknown_files(tmp_path, capsys, content):
    path = tmp_path / "x.yaml"
    path.write_text(content)
    assert main(["check-config", str(path)]) == 2
    assert main(["check-config", str(tmp_path / "missing.yaml")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_check_config_hands_profiles_to_the_simulators_loader(tmp_path, capsys):
    path = tmp_path / "profile.yaml"
    path.write_text("kind: table-profile\nmodel: x\n")
    status = main(["check-config", str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert status == 2  # not a complete profile, whether or not the simulator's loader is present
