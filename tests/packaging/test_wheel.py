"""A non-editable install: build the wheel, install it into a fresh virtual environment and
run the console script from a folder that has nothing of the source tree. The shipped
configuration (rule-set presets, table profiles, table config) must come with it."""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

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
