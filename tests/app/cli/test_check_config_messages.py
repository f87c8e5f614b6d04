"""One validator for every configuration file: through the installed console script, a
broken rule set, table config and table hardware profile each get the same kind of message,
one line per problem naming the file, the line and the key path (`mjtable check-config`,
and `mjtable sim --profile` for the profile)."""
from __future__ import annotations

import re
from pathlib import Path

from controller.rules import load_ruleset
from firmware_protocol.profile import DEFAULT_PROFILE

from .cli_harness import mjtable

# file:line: key.path: what is wrong
PROBLEM = re.compile(r"^(?P<file>[^:\s]+\.yaml):(?P<line>\d+): (?P<path>[a-z_]+(?:\.[a-z_]+|\[\d+\])*): (?P<text>.+)$")


def edited(text: str, *edits: tuple[str, str]) -> str:
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def problems(stderr: str, prefix: str = "") -> list[tuple[str, int, str, str]]:
    """Each problem line as (file, line, key path, text); every line but a final summary must be one."""
    lines = stderr.removeprefix(prefix).splitlines()
    if lines and lines[-1].endswith(": not valid"):
        lines.pop()
    found = [PROBLEM.match(line) for line in lines]
    assert lines and all(found), stderr
    return [(m["file"], int(m["line"]), m["path"], m["text"]) for m in found]


def write(folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(text)
    return text


def bad_profile(folder: Path) -> str:
    return write(folder, "odd.yaml", edited(DEFAULT_PROFILE.read_text(), ("\ndice: 2", "\ndice: 7"),
                                            ("  shuffle: 30.0", "  shufle: 30.0")))


def test_a_rule_set_a_table_config_and_a_profile_read_alike(short_tmp):
    rules = write(short_tmp, "house.yaml", edited(Path(load_ruleset("ema-2016").source).read_text(),
                                                  ("  throws: 1 ", "  thorws: 1 "), ("  deposit: 1000", "  deposit: -1")))
    write(short_tmp, "table.yaml", "kind: table\nserial: {port: /dev/ttyUSB0, baud: 12}\nprofile: four-port\n"
                  "ruleset: ema-2016\nstate: {database: state.db}\napi: {socket: api.sock}\ndisplay: {mod: rank}\n")
    profile = bad_profile(short_tmp)
    expected = {
        "house.yaml": [("house.yaml", line_of(rules, "dice:"), "dice",
                        "missing required key 'throws'"),
                       ("house.yaml", line_of(rules, "thorws"), "dice.thorws",
                        "unknown key 'thorws' (did you mean 'throws'?)"),
                       ("house.yaml", line_of(rules, "deposit"), "riichi.deposit",
                        "-1 is out of range; allowed: an integer from 1 to 1000000")],
        "table.yaml": [("table.yaml", 2, "serial.baud", "12 is out of range; allowed: an integer from 300 to 4000000"),
                       ("table.yaml", 7, "display.mod", "unknown key 'mod' (did you mean 'mode'?)")],
        "odd.yaml": [("odd.yaml", line_of(profile, "dice: 7"), "dice", "7 is out of range; allowed: an integer from 1 to 4"),
                     ("odd.yaml", line_of(profile, "timings:"), "timings", "missing required key 'shuffle'"),
                     ("odd.yaml", line_of(profile, "shufle"), "timings.shufle",
                      "unknown key 'shufle' (did you mean 'shuffle'?)")],
    }
    for name, wanted in expected.items():
        done = mjtable("check-config", name, cwd=short_tmp, check=False)
        assert done.returncode == 2 and done.stdout == "", done
        found = problems(done.stderr)
        assert [got[:3] for got in found] == [want[:3] for want in wanted], done.stderr
        assert all(got[3].startswith(want[3]) for got, want in zip(found, wanted)), done.stderr


def test_a_table_config_lists_its_profiles_problems_in_the_profiles_own_words(short_tmp):
    profile = bad_profile(short_tmp)
    write(short_tmp, "table.yaml", "kind: table\nserial: {port: /dev/ttyUSB0, baud: 115200}\nprofile: odd.yaml\n"
          "ruleset: ema-2016\nstate: {database: state.db}\napi: {socket: api.sock}\n")
    checked = mjtable("check-config", "table.yaml", cwd=short_tmp, check=False)
    assert checked.returncode == 2
    assert [(f, n, p) for f, n, p, _ in problems(checked.stderr)] == [
        ("odd.yaml", line_of(profile, "dice: 7"), "dice"),
        ("odd.yaml", line_of(profile, "timings:"), "timings"),
        ("odd.yaml", line_of(profile, "shufle"), "timings.shufle")]


def test_the_simulator_refuses_a_bad_profile_with_the_same_lines(short_tmp):
    bad_profile(short_tmp)
    checked = mjtable("check-config", "odd.yaml", cwd=short_tmp, check=False)
    served = mjtable("sim", "--pty", "--profile", "odd.yaml", cwd=short_tmp, check=False)
    assert served.returncode == 2 and served.stdout == ""
    assert problems(served.stderr, prefix="mjtable sim: ") == problems(checked.stderr)


def test_the_simulator_lists_every_problem_of_a_fault_scenario(short_tmp):
    write(short_tmp, "faults.yaml", "jam: [{shuffle: 2, sensor: elbow}]\nlink: {corupt: 0.1}\n")
    served = mjtable("sim", "--pty", "--faults", "faults.yaml", cwd=short_tmp, check=False)
    assert served.returncode == 2
    assert [(f, n, p) for f, n, p, _ in problems(served.stderr, prefix="mjtable sim: ")] == [
        ("faults.yaml", 1, "jam[0].sensor"), ("faults.yaml", 2, "link.corupt")]
    assert "(did you mean 'corrupt'?)" in served.stderr
