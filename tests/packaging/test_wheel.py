"""A non-editable install: build the wheel, install it into a fresh virtual environment and
run the console script from a folder that has nothing of the source tree. The shipped
configuration (rule-set presets, table profiles, table config) must come with it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from ..support.unit import compile_for_unit, unit_environment

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "controller", "sim", "firmware_protocol", "protocol_tools", "config")
TIMEOUT = 120


def run(*args, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)
    if check:
        assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """The wheel built from a copy of the tree, installed alone (--no-deps) into a new venv; its
    dependencies are this environment's (a .pth file puts them after the venv's own packages)."""
    top = tmp_path_factory.mktemp("wheel")
    source = top / "source"
    source.mkdir()
    for name in SOURCES:  # a copy: building in the tree would write build/ into it
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "var"))
        else:
            shutil.copy2(REPO / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", top / "dist",
        source, cwd=top)
    wheel = next((top / "dist").glob("mjtable-*.whl"))
    venv = top / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=top)
    python = venv / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--quiet", wheel, cwd=top)
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=top).stdout.strip()
    Path(site, "mjtable-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = top / "elsewhere"
    elsewhere.mkdir()
    return {"wheel": wheel, "python": python, "mjtable": venv / "bin" / "mjtable", "site": Path(site),
            "cwd": elsewhere}


def test_the_wheel_holds_every_module_and_the_shipped_config(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    modules = {p.relative_to(REPO).as_posix() for part in ("controller", "sim", "firmware_protocol", "protocol_tools")
               for p in (REPO / part).rglob("*.py") if "__pycache__" not in p.parts}
    shipped = {"mjtable_config/" + p.relative_to(REPO / "config").as_posix() for p in (REPO / "config").rglob("*")
               if p.is_file() and p.suffix in (".py", ".yaml", ".service", ".rules") and "var" not in p.parts}
    assert modules <= names and shipped <= names
    assert {"mjtable_config/rulesets/ema-2016.yaml", "mjtable_config/tables/four-port.yaml",
            "mjtable_config/table.yaml"} <= names
    assert {f"controller/api/floor/static/{page}" for page in ("index.html", "floor.js", "floor.css")} <= names
    # every language: the pages' catalogs and the displays' compiled gettext catalogs
    catalogs = {f"controller/api/{page}/static/i18n/{lang}.json" for page in ("web", "floor")
                for lang in ("en", "ja", "zh-Hans", "zh-Hant")}
    assert catalogs | {f"controller/locale/{folder}/LC_MESSAGES/mjtable.mo" for folder in ("ja", "zh_Hans", "zh_Hant")} <= names


def test_the_installed_package_is_used_not_the_tree(installed):
    where = run(installed["python"], "-c", "import controller, mjtable_config, sim; "
                "print(controller.__file__, mjtable_config.CONFIG_DIR, sim.__file__)", cwd=installed["cwd"])
    assert all(Path(p).is_relative_to(installed["site"]) for p in where.stdout.split())


def test_demo_plays_a_whole_game_from_the_wheel(installed):
    done = run(installed["mjtable"], "demo", "--fast", cwd=installed["cwd"])
    assert "final" in done.stdout and "hands" in done.stdout


def test_check_config_finds_presets_and_profiles_by_name(installed):
    config = installed["cwd"] / "table.yaml"
    config.write_text("kind: table\nserial: {port: /dev/ttyUSB0, baud: 115200}\nprofile: four-port\n"
                      "ruleset: ema-2016\nstate: {database: state.db}\napi: {socket: api.sock}\n")
    done = run(installed["mjtable"], "check-config", "table.yaml", cwd=installed["cwd"])
    assert done.stdout.startswith("ok: table config table.yaml:") and "rule set ema-2016" in done.stdout
    # no file: the config `mjtable run` would use, here the shipped one (no /etc/mjtable here)
    if not Path("/etc/mjtable/table.yaml").is_file():
        assert run(installed["mjtable"], "check-config", cwd=installed["cwd"]).stdout.startswith(
            "ok: table config table.yaml: port socket://127.0.0.1:7700")
    for preset in ("ema-2016", "mcr", "mleague", "sanma", "wrc", "zung-jung"):
        preset_file = installed["site"] / "mjtable_config" / "rulesets" / f"{preset}.yaml"
        assert run(installed["mjtable"], "check-config", preset_file, cwd=installed["cwd"]).stdout.startswith(
            f"ok: rule set {preset}:")


def test_client_commands_and_run_default_to_the_installed_config(installed):
    done = run(installed["mjtable"], "status", cwd=installed["cwd"], check=False)
    shipped = installed["site"] / "mjtable_config" / "table.yaml"
    if Path("/etc/mjtable/table.yaml").is_file():
        pytest.skip("this machine has a system table config")
    assert done.returncode == 1 and done.stderr.rstrip().endswith(f"that is the api.socket of {shipped}")


def _run_until_ready(installed, config: Path, env: dict[str, str]) -> str:
    """`mjtable run` on the installed wheel's `mjtable sim --pty`, as the unit runs it but with
    its tree read-only to bytecode (PYTHONDONTWRITEBYTECODE): its log up to "ready", and the
    page's first bytes."""
    import urllib.request

    sim = subprocess.Popen([installed["mjtable"], "sim", "--pty", "--speed", "1000"], stdout=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, cwd=installed["cwd"])
    try:
        config.write_text(f"kind: table\nserial: {{port: {sim.stdout.readline().strip()}, baud: 1000000}}\n"
                          "profile: four-port\nruleset: ema-2016\nstate: {database: state.db}\n"
                          "api: {socket: api.sock}\nweb: {listen: '127.0.0.1:0'}\n")
        run = subprocess.Popen([installed["mjtable"], "run", "--config", config], stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL, cwd=installed["cwd"],
                               env={**os.environ, **env, "PYTHONDONTWRITEBYTECODE": "1"})
        try:
            log = ""
            while "ready in" not in log:
                line = run.stderr.readline()
                assert line, f"mjtable run exited: {log}"
                log += line
            port = re.search(r"listening on 127\.0\.0\.1:(\d+)", log)[1]
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
                assert page.read(15) == b"<!doctype html>"
            run.terminate()
            return log + run.communicate(timeout=TIMEOUT)[1]
        finally:
            run.kill()
    finally:
        sim.kill()
        sim.wait()


def test_the_unit_runs_the_controller_optimized_once_its_bytecode_is_compiled(installed):
    env = unit_environment(installed["site"] / "mjtable_config" / "systemd" / "mjtable.service")
    assert env["PYTHONOPTIMIZE"] == "2"  # no docstrings: the memory the board is measured with (make bench)
    config = installed["cwd"] / "optimized.yaml"
    before = _run_until_ready(installed, config, env)
    assert re.search(r"WARNING .*\d+ modules \(.*\) had no bytecode compiled for PYTHONOPTIMIZE=2 .* "
                     r"docs/INSTALL.md", before), before
    # docs/INSTALL.md, step 2: the venv (its dependencies' folder, which the .pth adds, too) and the stdlib
    compile_for_unit(installed["python"], installed["python"].parents[1] / "lib")
    after = _run_until_ready(installed, config, env)
    assert "no bytecode" not in after and "Traceback" not in after, after
    # and a whole game, optimized: nothing of the product reads a docstring or relies on an assert
    done = subprocess.run([installed["mjtable"], "demo", "--fast"], capture_output=True, text=True, timeout=TIMEOUT,
                          cwd=installed["cwd"], env={**os.environ, **env}, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and "final" in done.stdout, done.stderr
