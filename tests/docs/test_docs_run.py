"""Every command and program the docs show runs as shown, so the docs cannot drift.

Each doc's blocks run in its order in a user's folder of their own: a copy of the shipped
config/ whose table is `mjtable sim --pty` and whose controller is `mjtable run` (found
through MJTABLE_CONFIG, as the installed service finds /etc/mjtable/table.yaml), the
installed `mjtable` first on PATH, a real broker where a command names one. The doc's
placeholders (the host `table`, the parlour's broker, /opt/mjtable, /etc/mjtable, the pty
a simulator printed, the game's PIN) become this folder's. A block that cannot run here
says why in the doc (doc_blocks.py); test_blocks_not_run lists them.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from controller.api.client import Client, ClientError
from controller.api.web.secret import hash_secret
from controller.cli import build_parser

from ..support.mosquitto import PASSWORD, Mosquitto, free_port
from ..support.processes import MJTABLE, stop_in_order, wait_for
from .doc_blocks import DATA, DOCS, PYTHON, ROOT, SHELL, Block, blocks, commands

SECRET = "doc-test-secret"
COMMAND_TIMEOUT = 60.0
SERVER_START = 15.0  # a server's first line (its address) within this
UNTIL_CTRL_C = 2.0  # how long a command shown "until Ctrl-C" runs before it gets one
SERVERS = ("mjtable sim ", "mjtable floor ", "mjtable hall serve ", "mjtable run")
PRINTS = re.compile(r"prints e\.g\. (\S+?)[,;]?(?:\s|$)")


class UserFolder:
    """The folder, the processes and the placeholders of one doc's run."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.background: list[subprocess.Popen] = []
        self.servers: list[subprocess.Popen] = []
        self.broker: Mosquitto | None = None
        self.config = folder / "config" / "table.yaml"
        self.web = f"http://127.0.0.1:{free_port()}"
        bin_dir = str(Path(MJTABLE).parent)
        self.env = {k: v for k, v in os.environ.items() if k != "MJTABLE_CONFIG"} | {
            "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "MJTABLE_CONFIG": str(self.config),
            "SECRET": SECRET}
        (folder / "etc" / "mjtable").mkdir(parents=True)
        self.places = {  # the doc's placeholder: this folder's value (a callable: asked when used)
            "http://table:8080": self.web,
            "/opt/mjtable/.venv/bin/": bin_dir + "/",
            "/opt/mjtable/": f"{ROOT}/",
            "/etc/mjtable/": f"{folder}/etc/mjtable/",
            "482193": self.pin,
            "mqtt://broker.parlour.lan": self.broker_url,
        }

    # -- the table ---------------------------------------------------------------------

    def start_table(self) -> None:
        # the repository's config/ (its rule-set folder is the presets' own, as in the repository)
        shutil.copytree(ROOT / "config", self.folder / "config", ignore=shutil.ignore_patterns("var", "__pycache__",
                                                                                             "rulesets"))
        (self.folder / "config" / "rulesets").symlink_to(ROOT / "config" / "rulesets")
        sim = self._popen([MJTABLE, "sim", "--pty", "--speed", "2000"], name="table-sim")
        port = self._first_line(sim, "the table's simulator")
        host, port_number = self.web.removeprefix("http://").split(":")
        text = self.config.read_text().replace("socket://127.0.0.1:7700", port)
        web = f"web: {{listen: '{host}:{port_number}', operator_secret: '{hash_secret(SECRET)}'}}\n"
        self.config.write_text(text + web + "table: {number: 7}\n")
        run = self._popen([MJTABLE, "run"], name="table-run")
        client = Client(self.folder / "config" / "var" / "mjtable.sock", timeout=5)

        def ready():
            assert run.poll() is None, f"mjtable run exited: {self.log('table-run')}"
            try:
                return client.request("status")["state"] not in ("boot", "connecting", "self_test")
            except ClientError:
                return False
        wait_for(ready, "mjtable run to serve", timeout=20)
        self.client = client

    def bring_to(self, state: str) -> None:
        """The states a doc may ask for before a block: `a hand in play`, `no game in play`."""
        status = self.client.request("status")
        if state == "no game in play":
            if status["state"] not in ("idle", "game_over"):
                self.client.request("abandon")
            wait_for(lambda: self.client.request("status")["state"] in ("idle", "game_over"), "the game to end")
        elif state == "a hand in play":
            if status["state"] in ("idle", "game_over"):
                self.client.request("start")
            wait_for(lambda: (self.client.request("status").get("hand_in_play") or {}).get("seq")
                     and self.client.request("status")["state"] == "playing", "a hand in play", timeout=20)
        else:
            pytest.fail(f"run with: {state!r} is no state the doc test knows")

    def pin(self) -> str:
        request = urllib.request.Request(f"{self.web}/api/session", headers={"Authorization": f"Bearer {SECRET}"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.load(reply)["pin"]

    def broker_url(self) -> str:
        if self.broker is None:
            self.broker = Mosquitto(self.folder / "broker", users=("table-07",)).start()
            for name in ("floor-password", "mqtt-password"):
                (self.folder / "etc" / "mjtable" / name).write_text(PASSWORD + "\n")
            (self.folder / "hall-password").write_text(PASSWORD + "\n")
        return self.broker.url

    # -- running what the doc shows ----------------------------------------------------

    def placed(self, text: str) -> str:
        for placeholder, value in self.places.items():
            if placeholder in text:
                text = text.replace(placeholder, value() if callable(value) else value)
        return text

    def run_shell(self, block: Block) -> None:
        cwd = self.folder
        for command in commands(block):
            line = self.placed(command.text)
            where = f"{block.where}: {command.text}"
            if line.startswith("cd "):
                cwd = (cwd / line[3:].strip()).resolve()
                continue
            if line.startswith(SERVERS) or "Ctrl-C" in command.comment:
                got = self._serve(line, command.comment, cwd, where)
            else:
                done = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=cwd, env=self.env, text=True,
                                      capture_output=True, timeout=COMMAND_TIMEOUT, stdin=subprocess.DEVNULL)
                assert done.returncode == 0, f"{where}\nexited {done.returncode}:\n{done.stdout}{done.stderr}"
                got = done.stdout + done.stderr
            for expected in command.output:
                assert _shown(expected, got), f"{where}\nthe doc shows {expected!r}; it printed:\n{got}"
        self.stop_servers()

    def _serve(self, line: str, comment: str, cwd: Path, where: str) -> str:
        """A command that serves until stopped: it must start, and say what it prints."""
        proc = self._popen(["bash", "-c", f"exec {line}"], name="served", cwd=cwd)
        printed = PRINTS.search(comment)
        if not printed:  # else it serves the doc's later blocks, which use what it printed
            self.servers.append(proc)
        if printed or not comment:
            first = self._first_line(proc, where)
            if printed:
                self.places[printed.group(1)] = first
            return first
        time.sleep(UNTIL_CTRL_C)
        assert proc.poll() is None, f"{where}\nexited {proc.returncode}: {self.log('served')}"
        return ""

    def run_python(self, block: Block) -> None:
        program = self.folder / f"block-{block.line}.py"
        program.write_text(self.placed(block.text))
        with open(self.folder / "python.err", "w") as err:
            proc = subprocess.Popen([sys.executable, str(program)], cwd=self.folder, env=self.env, text=True,
                                    stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
        try:
            if "Ctrl-C" in block.text:  # a loop shown running until the reader stops it
                time.sleep(UNTIL_CTRL_C)
                assert proc.poll() is None, f"{block.where}\nended before Ctrl-C: {self.log('python')}"
                proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=COMMAND_TIMEOUT)
        finally:
            stop_in_order([proc])
        stopped = "Ctrl-C" in block.text and self.log("python").rstrip().endswith("KeyboardInterrupt")
        assert proc.returncode == 0 or stopped, f"{block.where}\nexited {proc.returncode}:\n{out}{self.log('python')}"

    def write_file(self, block: Block) -> None:
        (self.folder / block.file).write_text(block.text)

    # -- processes ---------------------------------------------------------------------

    def _popen(self, args: list[str], name: str, cwd: Path | None = None) -> subprocess.Popen:
        with open(self.folder / f"{name}.err", "w") as err:
            proc = subprocess.Popen(args, cwd=cwd or self.folder, env=self.env, stdout=subprocess.PIPE, stderr=err,
                                    stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        self.background.append(proc)
        return proc

    def _first_line(self, proc: subprocess.Popen, what: str) -> str:
        readable, _, _ = select.select([proc.stdout], [], [], SERVER_START)
        line = proc.stdout.readline().strip() if readable else ""
        assert line, f"{what}\nprinted nothing (exit {proc.poll()})"
        return line

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.err").read_text()

    def stop_servers(self) -> None:
        for proc in self.servers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C, as the doc says
        stop_in_order(self.servers)
        self.servers.clear()

    def stop(self) -> None:
        self.stop_servers()
        stop_in_order(self.background)
        if self.broker:
            self.broker.kill()


def _shown(expected: str, printed: str) -> bool:
    """Whether an output line the doc shows is among the printed ones: spaces folded, `...` any text."""
    pattern = r"\s+".join(".*".join(map(re.escape, word.split("..."))) for word in expected.split())
    return any(re.fullmatch(pattern, " ".join(line.split())) for line in printed.splitlines())


RUNNABLE = [doc for doc in DOCS if any(b.info in SHELL | PYTHON and not b.not_run for b in blocks(doc))]


@pytest.mark.parametrize("doc", RUNNABLE, ids=lambda doc: doc.name)
def test_doc_runs_as_shown(doc, short_tmp):
    user = UserFolder(short_tmp)
    try:
        user.start_table()
        for block in blocks(doc):
            if block.file:
                user.write_file(block)
            if block.not_run or block.info not in SHELL | PYTHON:
                continue
            if block.run_with:
                user.bring_to(block.run_with)
            (user.run_shell if block.info in SHELL else user.run_python)(block)
    finally:
        user.stop()


def test_every_block_says_what_it_is():
    """A fence without an info string (or an unknown one) would be skipped unseen."""
    unknown = [f"{b.where}: {b.info or 'no info string'}" for doc in DOCS for b in blocks(doc)
               if b.info not in SHELL | PYTHON | DATA]
    assert not unknown, "say what each block is (sh, console, python; text, json, yaml, ...):\n" + "\n".join(unknown)


def test_blocks_not_run():
    """The blocks the docs mark as not run here, each with its reason: a block leaves the
    run only by a mark in its doc and an entry here."""
    marked = sorted((b.doc.name, b.not_run) for doc in DOCS for b in blocks(doc) if b.not_run)
    assert marked == sorted(NOT_RUN), "the docs' not-run blocks changed: update NOT_RUN:\n" + \
        "\n".join(f"    ({doc!r}, {why!r})," for doc, why in marked)


NOT_RUN = [
    ("README.md", "`make test` is this suite itself, and `make demo` plays in real time for 1-2 minutes "
                  "(`mjtable demo --fast` is played by tests/app/view/test_demo.py)"),
    ("API.md", "a synopsis (`|` and `[...]` are choices); the commands run in the other docs' blocks and in tests/e2e"),
    ("ARCHITECTURE.md", "a summary of the link's calls, not a program (tests/protocol runs them)"),
    ("ARCHITECTURE.md", "a summary of the endpoint's calls, not a program"),
    ("ARCHITECTURE.md", "one line of the catalog, quoted"),
    ("CONFORMANCE.md", "needs a real table's serial port"),
    ("FIRMWARE.md", "needs arm-none-eabi-gcc and QEMU; `make firmware-check` runs these steps"),
    ("HALL.md", "needs the tables on the broker (each unanswered table waits 10 s); tests/hall run it against tables"),
    ("INSTALL.md", "as root, on the board"),
    ("INSTALL.md", "clones and installs on the board (tests/packaging installs the wheel the same way)"),
    ("INSTALL.md", "as root, with the table's USB adapter plugged in"),
    ("INSTALL.md", "as root, with systemd"),
    ("INSTALL.md", "as root, on the board's firewall"),
    ("INSTALL.md", "as root, on the broker's machine (tests/support/mosquitto.py sets up the same accounts)"),
    ("INSTALL.md", "as root (the file belongs to the service's user)"),
    ("INSTALL.md", "as root (the file is made read-only before it is written)"),
    ("INSTALL.md", "as root, on the board"),
    ("LANGUAGES.md", "a developer's step in the repository, with a language of their own"),
    ("SIMULATOR.md", "a summary of the simulator's calls, not a program (tests/sim runs them)"),
    ("WEB.md", "runs browser tests of this suite"),
]


def test_yaml_blocks_are_yaml():
    """The config fragments the docs show are YAML a reader can paste (`...` values aside)."""
    import yaml
    broken = []
    for doc in DOCS:
        for block in (b for b in blocks(doc) if b.info == "yaml"):
            try:
                yaml.safe_load(block.text)
            except yaml.YAMLError as exc:
                broken.append(f"{block.where}: {exc}")
    assert not broken, "\n".join(broken)


def test_every_mjtable_line_names_its_commands_and_options():
    """Run or not (a synopsis, a block for the board), each `mjtable` line of a shell block
    names commands and options the CLI has: a renamed option fails here too."""
    wrong = [f"{block.where}: {command.text}: {problem}" for doc in DOCS for block in blocks(doc)
             if block.info in SHELL for command in commands(block) for segment in _segments(command.text)
             if (problem := _unknown(segment))]
    assert not wrong, "\n".join(wrong)


def _segments(line: str) -> list[list[str]]:
    """The `mjtable` commands of a line: split at the shell's `&&`, `;`, `|` and redirections."""
    words = shlex.split(line.replace("[", " ").replace("]", " "))
    found, current = [], []
    for word in [*words, ";"]:
        if word in ("&&", "||", ";", "|", ">", ">>", "<"):
            if current and Path(current[0]).name == "mjtable":
                found.append(current[1:])
            current = []
        else:
            current.append(word)
    return found


def _unknown(words: list[str]) -> str | None:
    parser = build_parser(words or ["--help"])
    for word in (w for w in words if w != "..."):  # `...`: options left out, as the prose says
        if word.startswith("-"):
            break
        chooser = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        if chooser is None:
            break
        if word not in chooser.choices:
            return f"no command {word!r} (known: {', '.join(chooser.choices)})"
        parser = chooser.choices[word]
    known = {option for action in parser._actions for option in action.option_strings}
    unknown = [w.split("=")[0] for w in words if w.startswith("--") and w.split("=")[0] not in known]
    return f"no option {', '.join(unknown)}" if unknown else None
