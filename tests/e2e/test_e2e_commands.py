"""Every command line README.md and docs/*.md show, run as shown where it can run here:
help, diagram, check-config on every preset and profile, the demo, the simulator on TCP
and with a fault scenario, the client commands of docs/API.md and both journal formats."""
import csv
import io
import json
import re
import select
import shutil
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest

from controller import rules as R
from .e2e_harness import (CALL_TIMEOUT, PROFILES, REPO, TableSession, check_against_engine, draw, mjtable,
                         pty_table, start_sim, stderr_of, wait_for, write_table_config)

# the table profile each preset is played on (the suite's games use the same pairs)
PLAYABLE = {"ema-2016": "four-port", "wrc": "four-port", "mleague": "four-port", "zung-jung": "basic",
            "mcr": "mcr-144", "sanma": "sanma-108"}
COMMANDS = ["sim", "check-config", "diagram", "run", "status", "start", "result", "riichi", "kan", "pause",
            "resume", "retry", "abandon", "journal", "demo", "maintenance"]


def test_every_command_is_listed_in_the_help():
    listed = mjtable("--help")
    assert listed.returncode == 0
    assert all(re.search(rf"^\s+{name}\b", listed.stdout, re.M) for name in COMMANDS), listed.stdout


def test_sim_help_shows_the_options_docs_simulator_lists():
    shown = mjtable("sim", "--help")
    assert shown.returncode == 0
    for option in ("--pty", "--tcp", "--profile", "--seed", "--speed", "--trace", "--faults", "--corrupt",
                   "--drop", "--reset-after", "--no-watchdog"):
        assert option in shown.stdout


def test_result_help_shows_the_winner_options_docs_api_lists():
    shown = mjtable("result", "ron", "--help")
    assert shown.returncode == 0
    for option in ("--discarder", "--winner", "--han", "--fu", "--yakuman", "--points", "--responsible", "--riichi",
                   "--hand", "--socket", "--config", "--json"):
        assert option in shown.stdout


def test_version_names_the_installed_package():
    shown = mjtable("--version")
    assert shown.returncode == 0 and version("mjtable") in shown.stdout


def test_sim_refuses_a_corruption_rate_above_one(procs):
    sim = procs.start("sim", "--pty", "--corrupt", "2", name="sim", stdout=subprocess.PIPE, text=True)
    readable, _, _ = select.select([sim.stdout], [], [], CALL_TIMEOUT)
    assert readable and sim.stdout.readline() == "", "it served a table"
    assert sim.wait(CALL_TIMEOUT) != 0 and "corrupt" in stderr_of(sim)


def test_diagram_prints_the_state_machine_as_mermaid():
    shown = mjtable("diagram")
    assert shown.returncode == 0
    assert "stateDiagram-v2" in shown.stdout and re.search(r"\bplaying\b", shown.stdout)


@pytest.mark.parametrize("path", sorted([*(REPO / "config" / "rulesets").glob("*.yaml"), *PROFILES.glob("*.yaml"),
                                         REPO / "config" / "table.yaml"]), ids=lambda p: p.name)
def test_check_config_accepts_the_shipped_files(path):
    checked = mjtable("check-config", str(path))
    assert checked.returncode == 0 and checked.stdout.startswith("ok: "), checked.stdout + checked.stderr


def test_check_config_accepts_a_table_config_for_each_preset_on_a_table_that_plays_it(tmp_path):
    for ruleset, profile in PLAYABLE.items():
        config = write_table_config(tmp_path, "/dev/ttyACM0", profile, ruleset)
        checked = mjtable("check-config", str(config))
        assert checked.returncode == 0, (ruleset, checked.stdout + checked.stderr)
        assert f"rule set {ruleset}" in checked.stdout and f"{profile}.yaml" in checked.stdout


def test_check_config_refuses_a_rule_set_the_table_cannot_play(tmp_path):
    config = write_table_config(tmp_path, "/dev/ttyACM0", "four-port", "mcr")
    checked = mjtable("check-config", str(config))
    assert checked.returncode != 0
    assert "mcr" in checked.stdout + checked.stderr and "four-port" in checked.stdout + checked.stderr


def test_start_refuses_a_rule_set_the_table_cannot_play(procs):
    table = pty_table(procs, "four-port", "ema-2016")
    refused = table.cli("start", "--ruleset", "mcr")
    assert refused.returncode == 1 and "mcr" in refused.stderr and "136" in refused.stderr
    assert table.status()["state"] == "idle"


def replay_demo_journal(path, ruleset: str) -> None:
    journal = [json.loads(line) for line in path.read_text().splitlines()]
    check_against_engine(R.load_ruleset(ruleset), journal, dealer=journal[0]["dealer"])


@pytest.mark.parametrize("ruleset, extra", [("ema-2016", []), ("zung-jung", ["--faults"])])
def test_demo_fast_plays_a_whole_game_whose_journal_the_rules_engine_agrees_with(tmp_path, ruleset, extra):
    journal = tmp_path / "journal.jsonl"
    played = mjtable("demo", "--fast", "--ruleset", ruleset, *extra, "--journal", str(journal), timeout=60)
    assert played.returncode == 0, played.stderr
    replay_demo_journal(journal, ruleset)


def test_demo_fast_with_journal_and_trace(tmp_path):
    journal, trace = tmp_path / "journal.jsonl", tmp_path / "trace.jsonl"
    played = mjtable("demo", "--fast", "--journal", str(journal), "--trace", str(trace), timeout=60)
    assert played.returncode == 0, played.stderr
    replay_demo_journal(journal, "ema-2016")
    records = trace_records(trace)
    assert {r["dir"] for r in records} == {"cmd", "reply", "event"}
    assert any(r["name"] == "dice_rolled" for r in records)


def test_a_controller_reaches_the_simulator_over_tcp(procs):
    _, url = start_sim(procs, "--tcp", "127.0.0.1:0", "--speed", "5000")
    assert re.fullmatch(r"socket://127\.0\.0\.1:\d+", url), url
    table = TableSession(procs, url, "four-port", "ema-2016")
    assert table.status()["state"] == "idle"


def test_the_client_commands_of_the_api_docs(procs):
    """docs/API.md's CLI lines in a game with the dealer drawn."""
    table = pty_table(procs, "four-port", "ema-2016", seed=2)
    table.ok("start", "--ruleset", "ema-2016", "--dealer", "draw", where="--config")
    results = [("result", "ron", "--discarder", "2", "--winner", "1", "--han", "3", "--fu", "40", "--riichi", "1"),
               ("result", "draw", "--tenpai", "0", "3", "--riichi", "0"),
               ("result", "ron", "--discarder", "0", "--winner", "1", "--han", "3", "--fu", "40",
                "--winner", "3", "--yakuman", "1"),
               ("result", "tsumo", "--winner", "1", "--han", "4", "--fu", "30"),
               ("result", "chombo", "--offender", "3")]
    seq = 0
    for result in results:
        seq = table.wait_hand_after(seq)["hand_in_play"]["seq"]
        table.ok(*result)
    label = table.wait_hand_after(seq)["hand"]
    shown = table.ok("status", where="--config")  # for people
    assert "playing" in shown and label in shown
    refused = table.cli("retry")
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and refused.stdout == ""
    journal = table.journal()
    check_against_engine(R.load_ruleset("ema-2016"), journal, dealer=journal[0]["dealer"], finished=False)
    assert [r["result"]["kind"] for r in journal] == ["ron", "draw", "ron", "tsumo", "chombo"]
    assert journal[1]["riichi_sticks_after"] == 1  # --riichi given: seat 0's stick stays on the table
    table.ok("abandon")
    assert table.status()["state"] == "idle"
    exported = table.ok("journal", "--format", "csv", where="--config")
    rows = list(csv.DictReader(io.StringIO(exported)))
    assert [row["hand"] for row in rows] == [r["hand"] for r in journal]  # abandoned: no final row
    assert [int(rows[1][f"payments_{s}"]) for s in range(4)] == journal[1]["payments"]
    assert json.loads(rows[2]["result"]) == journal[2]["result"]
    copy = procs.folder / "journal.jsonl"
    assert mjtable("journal", "--db", str(procs.folder / "state.db"), "--output", str(copy)).returncode == 0
    assert [json.loads(line) for line in copy.read_text().splitlines()] == journal


def test_a_jam_is_shown_in_status_and_on_the_displays_and_retry_carries_on(procs):
    table, trace = jammed_table(procs)
    assert "stacker" in json.dumps(table.status()["fault"])
    table.ok("retry")
    assert table.wait_hand_after(1)["fault"] is None
    shown = [r["args"]["code"] for r in trace_records(trace) if r["dir"] == "cmd" and r["name"] == "show_error"]
    assert shown[:1] == [200]  # E200, the jam, on the displays


def test_a_successful_retry_clears_the_error_from_the_displays(procs):
    table, trace = jammed_table(procs)
    table.ok("retry")
    table.wait_hand_after(1)

    def shown():
        return [r["args"]["code"] for r in trace_records(trace) if r["dir"] == "cmd" and r["name"] == "show_error"]
    # cleared once the jammed shuffle's work has run, which the next hand need not wait for
    wait_for(lambda: shown()[-1:] == [0], "E200 cleared from the displays")


def jammed_table(procs) -> tuple[TableSession, Path]:
    """docs/SIMULATOR.md's fault scenario file: the stacker jams in the second shuffle, during
    the first hand; that hand is played, then the table stands faulted. The table and its trace."""
    scenario, trace = procs.folder / "jam.yaml", procs.folder / "trace.jsonl"
    scenario.write_text("jam: [{shuffle: 2, sensor: stacker}]\n")
    _, port = start_sim(procs, "--pty", "--speed", "5000", "--faults", str(scenario), "--trace", str(trace))
    table = TableSession(procs, port, "four-port", "ema-2016")
    table.ok("start", where="--config")
    table.wait_hand_after(0)
    table.ok("result", *draw())
    wait_for(lambda: table.polled_status()["state"] == "fault", "the jam")
    return table, trace


def trace_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_status_for_people_names_the_wind_and_leaves_link_statistics_to_verbose(procs):
    table = pty_table(procs, "four-port", "ema-2016")
    table.ok("start", where="--config")
    table.wait_hand_after(0)
    shown = table.ok("status", where="--config")
    assert "East" in shown and "srtt" not in shown
    assert "srtt" in table.ok("status", "--verbose", where="--config")


def test_bare_status_finds_the_controller_a_bare_run_started(procs):
    """README step 3 and 4 from the repository folder: `mjtable run`, then `mjtable status`."""
    made = [p for p in (REPO / "var", REPO / "config" / "var") if not p.exists()]
    try:
        run = procs.start("run", name="run", cwd=REPO)  # no table needed: the control socket opens first

        def answered():
            assert run.poll() is None, stderr_of(run)
            return mjtable("status", cwd=REPO).returncode == 0
        wait_for(answered, "a bare `mjtable status` to answer", timeout=20, interval=0.1)
    finally:
        procs.stop_all()
        for path in made:
            shutil.rmtree(path, ignore_errors=True)


def test_docs_simulator_python_prompt_snippet_talks_to_the_simulator(procs):
    """docs/SIMULATOR.md's "From a Python prompt" block, run as a reader would paste it, on
    `mjtable sim --pty --no-watchdog --speed 10` (its port put in for /dev/pts/7)."""
    text = (REPO / "docs" / "SIMULATOR.md").read_text()
    block = re.search(r"By hand from a Python prompt.*?```python\n(.*?)```", text, re.S).group(1)
    sim = procs.start("sim", "--pty", "--no-watchdog", "--speed", "10", name="sim", stdout=subprocess.PIPE, text=True)
    assert select.select([sim.stdout], [], [], CALL_TIMEOUT)[0], stderr_of(sim)
    port = sim.stdout.readline().strip()
    assert '"/dev/pts/7"' in block
    setup, calls = block.split('talk("identify"', 1)
    scope: dict = {}
    exec(setup.replace('"/dev/pts/7"', repr(port)), scope)  # noqa: S102 - the documented snippet itself
    names = lambda got: [m.name for m in got]  # noqa: E731
    identity = scope["talk"]("identify", protocol_version=1)
    assert names(identity) == ["identity"] and identity[0].args["tiles"] == 136
    assert names(scope["talk"]("raise_walls", wait=1)) == ["ok", "walls_raised"]
    rolled = scope["talk"]("roll_dice", count=2)
    assert names(rolled) == ["ok", "dice_rolled"] and len(rolled[1].args["values"]) == 2
    assert scope["talk"]("get_status")
    assert calls.count("talk(") == 3  # after identify: the block's calls are the ones run here
    scope["port"].close()
