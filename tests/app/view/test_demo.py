"""`mjtable demo --fast` through the installed console script, as README shows it."""
import json
import re
import subprocess
from pathlib import Path

import pytest

from ...support.processes import MJTABLE



def json_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo")
    proc = subprocess.run([MJTABLE, "demo", "--fast", "--journal", "journal.jsonl", "--trace", "trace.jsonl"],
                          cwd=folder, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc, json_lines(folder / "journal.jsonl"), json_lines(folder / "trace.jsonl")


def test_journal_has_every_hand_then_the_standings(demo):
    proc, journal, _ = demo
    *hands, final = journal
    played = int(re.search(r"^(\d+) hands, ", proc.stdout, re.M).group(1))
    assert len(hands) == played > 0 and final["final"] is True
    assert hands[0]["hand"] == "E1"
    # Each hand's scores follow from the one before and its payments: none is missing.
    for before, hand in zip(hands, hands[1:]):
        assert [s + p for s, p in zip(before["scores"], hand["payments"])] == hand["scores"]
    assert final["scores"] == hands[-1]["scores"]


def test_trace_is_the_tables_record_of_the_same_game(demo):
    _, journal, trace = demo
    assert all(set(record) == {"t", "dir", "name", "args"} for record in trace)
    assert trace[0]["name"] == "identify" and trace[0]["dir"] == "cmd"
    assert [r["t"] for r in trace] == sorted(r["t"] for r in trace)
    thrown = [r["args"]["values"] for r in trace if r["dir"] == "event" and r["name"] == "dice_rolled"]
    assert thrown == [hand["dice"] for hand in journal[:-1]]


def test_a_heartbeat_goes_out_only_on_a_line_idle_for_the_interval(demo):
    """Every command feeds the table's watchdog (PROTOCOL.md): a heartbeat right after a
    command would only crowd the line. The demo table's watchdog is 3 s: a beat a second."""
    _, _, trace = demo
    [identity] = [r["args"] for r in trace if r["dir"] == "reply" and r["name"].startswith("identity")]
    interval = identity["heartbeat_timeout_ms"] / 3000
    commands = [r for r in trace if r["dir"] == "cmd"]
    idle = [now["t"] - before["t"] for before, now in zip(commands, commands[1:]) if now["name"] == "heartbeat"]
    assert len(idle) > 100 and min(idle) >= interval - 0.005  # the link's few ms of delivery
