"""Protocol 1.1 end to end, through the console scripts (`mjtable sim --pty`, `mjtable run`,
`mjtable maintenance`): the counters and the sensor test with their state rules, a table
of protocol 1.0 driven through a whole game as before, and the stick reader's mismatch."""
from __future__ import annotations

import json

from controller import rules as R
from .e2e_harness import (PROFILES, SPEED, TableSession, check_against_engine, hand_records, payments_by_hand,
                         play_game, ron, start_sim, stderr_of)
from firmware_protocol.catalog import COMMANDS_1_1
from .test_e2e_ema import DOUBLE_RON, DRAW_WITH_DECLARERS, FINAL, HANDS, PLAIN_HANDS


def sim_table(procs, profile_text: str, ruleset: str = "ema-2016") -> tuple[TableSession, list]:
    """A simulator on a pty with this profile and a trace, the controller on it; the
    trace's records, read when called."""
    profile, trace = procs.folder / "profile.yaml", procs.folder / "trace.jsonl"
    profile.write_text(profile_text)
    _, port = start_sim(procs, "--pty", "--profile", str(profile), "--speed", str(SPEED), "--trace", str(trace))
    session = TableSession(procs, port, profile, ruleset)
    return session, lambda: [json.loads(line) for line in trace.read_text().splitlines()]


def four_port(*more: str) -> str:
    """The shipped four-port profile, with ``more`` lines."""
    return "\n".join([(PROFILES / "four-port.yaml").read_text(), *more, ""])


def test_maintenance_shows_the_counters_and_tests_each_subsystem_outside_a_game_only(procs):
    table, _ = sim_table(procs, four_port())
    counters = table.ok("maintenance")
    assert "shuffle cycles        0" in counters and "faults by sensor      none" in counters
    tested = table.ok("maintenance", "test").splitlines()
    assert tested[0].split() == ["centre", "passed"] and "display 3     passed" in tested
    assert tested[-1] == "14 tests, all passed"  # 6 subsystems, and each seat's display and buttons
    assert "sensors active: hopper, stacker" in tested  # one set in the hopper, one stacked at power-on
    one = json.loads(table.ok("maintenance", "test", "buttons", "--seat", "2", "--json"))
    assert [(t["subsystem"], t["seat"], t["passed"]) for t in one["tests"]] == [("buttons", 2, True)]

    table.ok("start", where="--config")
    table.wait_hand_after(0)
    for refused in (("maintenance", "test", "lifts"), ("maintenance", "serviced")):
        done = table.cli(*refused)
        assert done.returncode == 1 and "during a game (state playing)" in done.stderr, done.stderr
    played = table.ok("maintenance")  # reading the counters is harmless: allowed in play
    assert "shuffle cycles        1" in played and "cycles since service  1" in played

    table.ok("abandon")
    serviced = table.ok("maintenance", "serviced")
    assert "shuffle cycles        1" in serviced and "cycles since service  0" in serviced


def test_a_table_of_protocol_1_0_plays_a_whole_game_unchanged(procs):
    table, trace = sim_table(procs, four_port('protocol: "1.0"'))
    game = play_game(table, HANDS)
    assert payments_by_hand(game.journal) == [DRAW_WITH_DECLARERS, DOUBLE_RON, *PLAIN_HANDS]
    assert game.journal[-1] == FINAL
    check_against_engine(R.load_ruleset("ema-2016"), game.journal)
    records = trace()
    assert not {r["name"] for r in records if r["dir"] == "cmd"} & set(COMMANDS_1_1)
    # each controller process (the game restarts one) offers 1.1 once, then speaks 1.0
    offers = [r["args"]["protocol_version"] for r in records if r["name"] == "identify"]
    assert offers[0] == 0x11 and offers.count(0x11) == 2 and set(offers) == {0x11, 1}
    assert "identity_1_1" not in {r["name"] for r in records}
    refused = table.cli("maintenance")
    assert refused.returncode == 1 and "(protocol 1.0) has no counters" in refused.stderr
    assert table.status()["sticks"] is None


def test_a_misreading_stick_reader_shows_the_mismatch_and_the_ledger_counts(procs):
    profile = (PROFILES / "four-port-sticks.yaml").read_text().replace("misread_rate: 0.0", "misread_rate: 1.0")
    table, trace = sim_table(procs, profile)
    table.ok("start", where="--config")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    table.ok("result", *ron(2, (1, 3, 40)))
    table.wait_hand_after(seq)
    sticks = table.status()["sticks"]
    assert sticks["hand"] == seq and not sticks["agrees"] and sticks["mismatched"] == [0, 1, 2, 3]
    assert "E306" in sticks["message"] and "the ledger counts" in sticks["message"]
    assert table.journal()[0]["payments"] == [0, 5200, -5200, 0]  # the ledger, not the trays
    assert table.status()["fault"] is None
    assert "sticks: E306 after hand 1: seat 0 tray" in table.ok("status", where="--config")  # for people
    shown = [r["args"]["text"] for r in trace() if r["name"] == "show_text" and r["dir"] == "cmd"]
    assert "sticks? seats 0 1 2 3" in shown  # the centre display's 40 bytes hold no more
    assert "stick reader: E306 after hand 1: seat 0 tray" in stderr_of(table.run)


def test_an_exact_stick_reader_agrees(procs):
    table, _ = sim_table(procs, (PROFILES / "four-port-sticks.yaml").read_text())
    table.ok("start", where="--config")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    table.ok("result", *ron(2, (1, 3, 40)))
    table.wait_hand_after(seq)
    assert table.status()["sticks"] == {"hand": seq, "agrees": True, "trays": [30000, 35200, 24800, 30000],
                                        "mismatched": [], "wrong_slot": [], "message": None}
