"""Hostile or broken config files through the installed console script, as an operator meets
them: `mjtable check-config FILE` and `mjtable run --config FILE` each answer with a clear
message (the file, the key path, what is allowed) and exit 2, never a traceback or a hang.
Each command has a timeout: one that would hang fails by it instead of stopping the suite."""
import os
import subprocess
from pathlib import Path

import pytest

from controller.rules import load_ruleset
from firmware_protocol.profile import DEFAULT_PROFILE

from ..support.processes import MJTABLE

EMA = Path(load_ruleset("ema-2016").source).read_text()


def table_text(**top: str) -> str:
    fields = {"kind": "table", "serial": "{port: 'socket://127.0.0.1:9', baud: 115200}",
              "profile": str(DEFAULT_PROFILE), "ruleset": "ema-2016", "state": "{database: var/state.db}",
              "api": "{socket: var/api.sock}"} | top
    return "".join(f"{key}: {value}\n" for key, value in fields.items())


def mjtable(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MJTABLE_CONFIG"}
    return subprocess.run([MJTABLE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(params=["check-config", "run"])
def refuses(request, tmp_path):
    """refuses(config_path, *words): the command exits 2 naming every word, without a traceback."""
    def check(config: Path, *words: str) -> str:
        args = ("check-config", str(config)) if request.param == "check-config" else ("run", "--config", str(config))
        done = mjtable(*args, cwd=tmp_path)
        assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
        assert "Traceback" not in done.stderr and "Error:" not in done.stderr, done.stderr[-2000:]
        for word in words:
            assert word in done.stderr, done.stderr[-2000:]
        return done.stderr
    return check


def write(tmp_path: Path, text: str, name: str = "table.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("depth", [100, 3000])
def test_yaml_nested_deep(tmp_path, refuses, depth):
    refuses(write(tmp_path, table_text(game="[" * depth + "]" * depth)), "table.yaml:7", "not valid YAML", "nest")


@pytest.mark.parametrize("name", ["a" * 300, "a" * 300 + ".yaml"], ids=["preset name", "path"])
def test_a_ruleset_value_longer_than_a_file_name(tmp_path, refuses, name):
    refuses(write(tmp_path, table_text(ruleset=name)), "ruleset")


def test_profile_name_longer_than_a_file_name(tmp_path, refuses):
    refuses(write(tmp_path, table_text(profile="p" * 300)), "profile", "File name too long")


@pytest.mark.parametrize("value", [".nan", ".inf", "-.nan"])
def test_a_float_timeout_that_is_not_a_finite_number(tmp_path, refuses, value):
    refuses(write(tmp_path, table_text(timeouts=f"{{reconnect_backoff_max: {value}}}")),
            "timeouts.reconnect_backoff_max", "a number from 0.1 to 3600")


def test_an_integer_of_5000_digits(tmp_path, refuses):
    stderr = refuses(write(tmp_path, table_text(serial="{port: /dev/ttyUSB0, baud: " + "9" * 5000 + "}")),
                     "serial.baud", "an integer from 300 to 4000000")
    assert len(stderr) < 1000


def test_a_fifo_as_the_config(tmp_path, refuses):
    fifo = tmp_path / "table.yaml"
    os.mkfifo(fifo)
    refuses(fifo, "table.yaml", "not a regular file")


def test_dev_zero_as_the_config(refuses):
    refuses(Path("/dev/zero"), "/dev/zero", "not a regular file")


def test_a_config_over_64_kb(tmp_path, refuses):
    refuses(write(tmp_path, table_text() + "".join(f"k{i}: 1\n" for i in range(200_000))), "larger than 64 KB")


def test_many_unknown_keys_list_twenty_and_count_the_rest(tmp_path, refuses):
    stderr = refuses(write(tmp_path, table_text() + "".join(f"k{i}: 1\n" for i in range(5000))),
                     "k0: unknown key 'k0'", "and 4980 more problems")
    assert len(stderr.splitlines()) <= 22


def test_a_profile_with_broken_yaml(tmp_path, refuses):
    profile = write(tmp_path, DEFAULT_PROFILE.read_text() + "\n  broken: [\n", "profile.yaml")
    refuses(write(tmp_path, table_text(profile=str(profile))), "profile.yaml", "not valid YAML")


def test_a_profile_nested_too_deep(tmp_path, refuses):
    profile = write(tmp_path, DEFAULT_PROFILE.read_text() + "deep: " + "[" * 3000 + "]" * 3000 + "\n", "profile.yaml")
    refuses(write(tmp_path, table_text(profile=str(profile))), "profile.yaml", "not valid YAML", "nest")


def test_a_profile_timing_that_is_not_a_finite_number(tmp_path, refuses):
    text = DEFAULT_PROFILE.read_text()
    assert "  shuffle: 30.0" in text
    profile = write(tmp_path, text.replace("  shuffle: 30.0", "  shuffle: .nan"), "profile.yaml")
    refuses(write(tmp_path, table_text(profile=str(profile))), "profile.yaml", "timings.shuffle", "finite number")


def test_a_fifo_as_the_profile(tmp_path, refuses):
    os.mkfifo(tmp_path / "profile.yaml")
    refuses(write(tmp_path, table_text(profile=str(tmp_path / "profile.yaml"))), "profile.yaml",
            "not a regular file")


@pytest.mark.parametrize("old, new, words", [
    ("kan_step: 1", "kan_step: 0", ["dora.kan_step", "allowed: 1 or -1"]),
    ("yakuman_base: 8000", "yakuman_base: 1000", ["payment.yakuman_base", "below mangan_base 2000"]),
])
def test_an_inconsistent_rule_set(tmp_path, refuses, old, new, words):
    assert old in EMA
    house = write(tmp_path, EMA.replace(old, new), "house.yaml")
    refuses(write(tmp_path, table_text(ruleset=str(house))), "house.yaml", *words)


def test_a_rule_set_over_64_kb(tmp_path, refuses):
    house = write(tmp_path, EMA + "#" * 150_000 + "\n", "house.yaml")
    refuses(write(tmp_path, table_text(ruleset=str(house))), "house.yaml", "larger than 64 KB")


def test_a_rule_set_of_many_successor_tiles(tmp_path, refuses):
    # Every tile repeated: the duplicate check must not compare each tile with every other.
    tiles = ", ".join(["1m", "2m"] * 7000)
    house = write(tmp_path, EMA.replace("successor:", f"successor:\n    - [{tiles}]", 1), "house.yaml")
    refuses(write(tmp_path, table_text(ruleset=str(house))), "dora.successor", "appear twice")
