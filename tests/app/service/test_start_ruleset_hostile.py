"""`mjtable start --ruleset` against a running `mjtable run`: a client names a preset or a rule
set of the table config's rule-set folder, never a path, so it reads no other file the service
can read; a broken rule set there is refused by where it is wrong, without quoting the file."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from controller.rules import load_ruleset
from .process_harness import MJTABLE, RunProcess, start_sim, write_config

SECRET = "hunter3-SECRET"
EMA = Path(load_ruleset("ema-2016").source).read_text()


def start(socket, ruleset: str) -> subprocess.CompletedProcess:
    return subprocess.run([MJTABLE, "start", "--ruleset", ruleset, "--socket", str(socket)], capture_output=True,
                          text=True, timeout=20)


def refused(socket, ruleset: str, *words: str) -> str:
    done = start(socket, ruleset)
    assert done.returncode == 1 and SECRET not in done.stdout + done.stderr, (done.stdout, done.stderr)
    for word in words:
        assert word in done.stderr, done.stderr
    return done.stderr


def test_start_takes_presets_and_the_rule_set_folder_only(procs, short_tmp):
    (short_tmp / "secret.yaml").write_text(SECRET + "\n")
    folder = short_tmp / "rulesets"  # the default rule-set folder: beside the config
    folder.mkdir()
    (folder / "leak.yaml").symlink_to(short_tmp / "secret.yaml")
    (folder / "broken.yaml").write_text(EMA.replace("kan_step: 1", f"kan_step: {SECRET}"))
    os.mkfifo(folder / "fifo.yaml")
    (folder / "house.yaml").write_text(EMA.replace("name: ema-2016", "name: house"))
    run = RunProcess(procs, write_config(short_tmp, start_sim(procs, 5)))
    socket = run.client.path
    run.start()

    for path in (str(short_tmp / "secret.yaml"), "../secret", "rulesets/house.yaml", "/dev/zero"):
        refused(socket, path, "no rule set named", "allowed: a preset", "ema-2016", str(folder), "house")
    refused(socket, "fifo", "no rule set named")  # not a regular file: never opened, so nothing blocks
    refused(socket, "leak", "is not valid", "line 1 (the file)")
    refused(socket, "broken", "is not valid", "dora.kan_step",
            "; correct its file on the table's controller (`mjtable check-config FILE`)")  # the hint: the CLI's

    assert start(socket, "house").returncode == 0
    assert run.client.request("status")["ruleset"] == str(folder / "house.yaml")
    run.kill()
    run.start()  # the game goes on with the folder's rule set, found again by its path
    assert run.client.request("status")["ruleset"] == str(folder / "house.yaml")
