"""The CLI through the installed console script, the way README and docs/INSTALL.md tell a
user: `mjtable sim --pty`, `mjtable run`, the client commands, `mjtable journal`."""
from __future__ import annotations

import json
import re
from importlib.metadata import version

import pytest

from controller import rules as R
from controller.commands.client import HELP as CLIENT_HELP
from controller.app.config import SHIPPED_CONFIG, SYSTEM_CONFIG

from .cli_harness import mjtable, wait_until


def status_of(table, cwd) -> dict:
    return json.loads(mjtable("status", "--json", "--config", str(table.config), cwd=cwd).stdout)


def wait_for_result(table, cwd, seq: int) -> None:
    wait_until(lambda: (lambda s: s["waiting_for"] == "result" and s["hand_in_play"]["seq"] == seq)(
        status_of(table, cwd)), f"hand {seq} to wait for its result")


def journal(table, cwd) -> list[dict]:
    out = mjtable("journal", "--config", str(table.config), cwd=cwd).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_riichi_declared_with_the_cli_counts_and_an_explicit_list_replaces_it(table, short_tmp):
    config = ["--config", str(table.config)]
    mjtable("start", *config, cwd=short_tmp)
    wait_for_result(table, short_tmp, 1)
    mjtable("riichi", "0", *config, cwd=short_tmp)
    mjtable("riichi", "3", *config, cwd=short_tmp)
    assert mjtable("result", "draw", "--tenpai", "0", "3", *config, cwd=short_tmp).stdout == "recorded\n"
    wait_for_result(table, short_tmp, 2)
    # hand 2: nobody declared with `mjtable riichi`; the result's own list counts
    mjtable("result", "draw", "--tenpai", "2", "--riichi", "2", *config, cwd=short_tmp)

    first, second = journal(table, short_tmp)
    # EMA 2016, exhaustive draw: the noten players pay 3,000 in all to the tenpai players
    # (1,500 each from seats 1 and 2 to seats 0 and 3); the declarers 0 and 3 each put their
    # 1,000 on the table, where both sticks stay until the next win.
    assert first["result"] == {"kind": "draw", "tenpai": [0, 3], "riichi": [0, 3]}
    assert first["payments"] == [1500 - 1000, -1500, -1500, 1500 - 1000]
    assert first["riichi_sticks_after"] == 2
    assert first["scores"] == [30500, 28500, 28500, 30500]
    # one tenpai player (2) receives 1,000 from each noten player and bets 1,000 himself
    assert second["result"] == {"kind": "draw", "tenpai": [2], "riichi": [2]}
    assert second["payments"] == [-1000, -1000, 3000 - 1000, -1000]
    assert second["riichi_sticks_after"] == 3
    # and the rules engine agrees, hand by hand
    rules = R.load_ruleset("ema-2016")
    state = R.new_game(rules, 0)
    for record in (first, second):
        outcome = R.apply_result(rules, state, record["result"])
        assert (list(outcome.payments), outcome.riichi_sticks_after) == (record["payments"],
                                                                         record["riichi_sticks_after"])
        state = outcome.state
        assert list(state.scores) == record["scores"]


def test_status_speaks_to_people_and_json_to_scripts(table, short_tmp):
    config = ["--config", str(table.config)]
    mjtable("start", *config, cwd=short_tmp)
    wait_for_result(table, short_tmp, 1)
    out = mjtable("status", *config, cwd=short_tmp).stdout
    assert out.startswith("state: playing (waiting for: result)\n")
    assert "round: East · hand E1 · honba 0 · riichi sticks 0" in out
    seats = [line.split() for line in out.splitlines() if line.startswith("  seat ")]
    assert seats == [["seat", "0", "East", "30000", "dealer"], ["seat", "1", "South", "30000"],
                     ["seat", "2", "West", "30000"], ["seat", "3", "North", "30000"]]
    assert "link" not in out and "srtt" not in out
    verbose = mjtable("status", "--verbose", *config, cwd=short_tmp).stdout
    assert "\nlink:\n" in verbose and "  retransmits: " in verbose
    assert status_of(table, short_tmp)["round_wind"] == 0


def test_a_bare_client_command_finds_the_controller_run_with_the_same_config(table, short_tmp):
    log = table.log("run")
    assert f"config {table.config}; database {table.folder}/var/state.db; control socket " \
           f"{table.folder}/var/api.sock" in log
    elsewhere = short_tmp / "elsewhere"
    elsewhere.mkdir()
    env = {"MJTABLE_CONFIG": str(table.config)}
    assert mjtable("status", cwd=elsewhere, env=env).stdout.startswith("state: idle")
    mjtable("start", cwd=elsewhere, env=env)
    wait_for_result(table, elsewhere, 1)
    mjtable("result", "draw", "--tenpai", cwd=elsewhere, env=env)
    records = [json.loads(line) for line in mjtable("journal", cwd=elsewhere, env=env).stdout.splitlines()]
    assert [r["result"]["kind"] for r in records] == ["draw"]


def test_without_config_or_variable_the_system_then_the_shipped_config_is_used(short_tmp):
    config = SYSTEM_CONFIG if SYSTEM_CONFIG.is_file() else SHIPPED_CONFIG
    if config == SHIPPED_CONFIG and (SHIPPED_CONFIG.parent / "var" / "mjtable.sock").exists():
        pytest.skip("a controller runs on the shipped config")
    done = mjtable("status", cwd=short_tmp, check=False)
    assert done.returncode == 1
    assert done.stderr.startswith("mjtable status: no controller is running at ")
    assert done.stderr.rstrip().endswith(f"that is the api.socket of {config}")
    if config == SHIPPED_CONFIG:
        assert f"running at {SHIPPED_CONFIG.parent / 'var' / 'mjtable.sock'} " in done.stderr


def test_every_command_has_its_own_help_line(short_tmp):
    out = " ".join(mjtable("--help", cwd=short_tmp).stdout.split())
    for name, line in CLIENT_HELP.items():
        assert f"{name} {' '.join(line.split())}" in out
    assert len(set(CLIENT_HELP.values())) == len(CLIENT_HELP)


@pytest.mark.parametrize("kind, options", [
    ("ron", ["--discarder", "--winner", "--han", "--fu", "--yakuman", "--points", "--responsible", "--riichi",
             "--hand", "--socket", "--config", "--json"]),
    ("tsumo", ["--winner", "--han", "--fu", "--riichi", "--hand"]),
    ("draw", ["--tenpai", "--riichi", "--hand"]),
    ("chombo", ["--offender", "--hand"]),
])
def test_every_result_option_has_help(short_tmp, kind, options):
    lines = mjtable("result", kind, "--help", cwd=short_tmp).stdout.splitlines()
    for option in options:
        at = next(i for i, line in enumerate(lines) if re.match(rf"\s+{option}\b", line))
        # the help is on the option's line after its metavar, or on the next, further indented
        words = re.sub(rf"^\s+{option}( [A-Z|a-z.\[\] ]+?)?(\s{{2,}}|$)", "", lines[at], count=1)
        assert words.strip() or lines[at + 1].startswith(" " * 20), (option, lines[at:at + 2])


def test_version_is_the_installed_distribution(short_tmp):
    assert mjtable("--version", cwd=short_tmp).stdout == f"mjtable {version('mjtable')}\n"


@pytest.mark.parametrize("option, value", [("--corrupt", "2"), ("--drop", "-0.1"), ("--corrupt", "lots")])
def test_sim_refuses_a_rate_outside_0_to_1(short_tmp, option, value):
    done = mjtable("sim", "--pty", option, value, cwd=short_tmp, check=False)
    assert done.returncode == 2
    assert f"argument {option}: a rate is a fraction from 0 to 1" in done.stderr


def test_sim_takes_a_shipped_profile_by_name_and_lists_them_for_another(short_tmp):
    done = mjtable("sim", "--pty", "--profile", "six-port", cwd=short_tmp, check=False)
    assert done.returncode == 2
    assert done.stderr == "mjtable sim: no table profile named 'six-port'; allowed: basic, four-port, four-port-sticks, " \
                          "mcr-144, sanma-108 or a path to a YAML file\n"


def test_run_says_when_it_cannot_make_the_state_folder(short_tmp):
    (short_tmp / "taken").write_text("a file, not a folder")
    (short_tmp / "table.yaml").write_text("kind: table\nserial: {port: /dev/null, baud: 115200}\nprofile: four-port\n"
                                          "ruleset: ema-2016\nstate: {database: taken/state.db}\n"
                                          "api: {socket: api.sock}\n")
    done = mjtable("run", "--config", "table.yaml", cwd=short_tmp, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("mjtable run: cannot make the folder of state.database "
                                                   "taken/state.db: ")
