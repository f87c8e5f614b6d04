"""A folder where a configuration file belongs (a table config given every way a user gives
one, a rule set named by a table config or by `mjtable demo`) is one clear line naming the
folder and what was expected, and exit status 2, never a traceback."""
from __future__ import annotations

import pytest

from .cli_harness import mjtable

EXPECTED = "a folder; allowed: a YAML file"
TABLE = ("kind: table\nserial: {port: /dev/ttyUSB0, baud: 115200}\nprofile: four-port\n"
         "ruleset: %s\nstate: {database: state.db}\napi: {socket: api.sock}\n")


def _refused_as_a_folder(done, folder: str) -> None:
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr and done.stdout == "", done
    assert "Errno" not in done.stderr, done.stderr
    assert [line for line in done.stderr.splitlines() if EXPECTED in line] == [
        next(line for line in done.stderr.splitlines() if line.endswith(f"{folder}: {EXPECTED}"))], done.stderr


@pytest.mark.parametrize("command, env", [
    (["check-config", "settings"], None),
    (["run", "--config", "settings"], None),
    (["status"], {"MJTABLE_CONFIG": "settings"}),
    (["status", "--config", "settings"], None),
], ids=["check-config", "run --config", "MJTABLE_CONFIG status", "status --config"])
def test_a_folder_given_as_the_table_config(short_tmp, command, env):
    (short_tmp / "settings").mkdir()
    _refused_as_a_folder(mjtable(*command, cwd=short_tmp, env=env, check=False), "settings")


@pytest.mark.parametrize("command", [["check-config", "table.yaml"], ["run", "--config", "table.yaml"]],
                         ids=["check-config", "run"])
def test_a_folder_named_as_the_rule_set(short_tmp, command):
    (short_tmp / "house").mkdir()
    (short_tmp / "table.yaml").write_text(TABLE % (short_tmp / "house"))
    _refused_as_a_folder(mjtable(*command, cwd=short_tmp, check=False), str(short_tmp / "house"))


def test_a_folder_given_to_the_demo_as_its_rule_set(short_tmp):
    (short_tmp / "house").mkdir()
    _refused_as_a_folder(mjtable("demo", "--fast", "--ruleset", "./house", cwd=short_tmp, check=False), "house")
