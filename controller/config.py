"""The table config (config/table.yaml): link, hardware profile, rule set, paths, timeouts.

Relative paths are taken from the config file's folder, so a config directory can be moved
as a whole. The rule set it names is loaded and validated with it: one ConfigError lists
the problems of both files.

Every command finds the table config the same way (``find_table_config``), so `mjtable run`
and the client commands agree on the control socket and the database without being told.
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path

from yaml.nodes import MappingNode, ScalarNode

from controller.capabilities import Capabilities, cannot_play
from controller.rules.ruleset import RuleSet, load_ruleset
from controller.schema import (AnyOf, ConfigError, Context, Field, Float, Int, Issue, Map, Str, compose, read_text)
from mjtable_config import CONFIG_DIR, named_file, shipped_names
from mjtable_config.reading import file_problem

CONFIG_VARIABLE = "MJTABLE_CONFIG"
SYSTEM_CONFIG = Path("/etc/mjtable/table.yaml")
SHIPPED_CONFIG = CONFIG_DIR / "table.yaml"

# pyserial URL handlers (serial_for_url), a device path, or a Windows COM port
PORT_SCHEMES = ("socket", "rfc2217", "loop", "spy", "alt", "hwgrep", "cp2110")
_PORT = re.compile(rf"^(({'|'.join(PORT_SCHEMES)})://.*|/.+|COM\d+)$")


class Port(Str):
    def __init__(self) -> None:
        super().__init__(what=f"a device path (/dev/ttyUSB0), COMn or a URL {', '.join(s + '://' for s in PORT_SCHEMES)}")

    def _check(self, node, path, ctx):
        value = super()._check(node, path, ctx)
        if isinstance(value, str) and not _PORT.match(value):
            return self.fail(node, path, ctx)
        return value


TABLE = Map({
    "kind": Field(Str(("table",)), False, "table"),
    "serial": Map({"port": Port(), "baud": Int(300, 4_000_000)}),
    "profile": Str(what="a shipped table profile's name or a path to a table hardware profile YAML"),
    "ruleset": Str(what="a rule-set preset name or a path to a rule-set YAML"),
    "rulesets": Field(Str(what="a folder of rule-set YAML files"), False, "rulesets"),
    "display": Field(Map({"mode": Str(("difference", "rank"))}), False, {"mode": "difference"}),
    "state": Map({"database": Str(what="a file path")}),
    "api": Map({"socket": Str(what="a file path")}),
    "timeouts": Field(Map({
        "reconnect_backoff_max": Field(Float(0.1, 3600), False, 30.0),
        "operation_margin": Field(Float(1, 600), False, 2.0),  # a factor: below 1 every operation is late
    }), False, {"reconnect_backoff_max": 30.0, "operation_margin": 2.0}),
    "game": Field(Map({"starting_dealer": AnyOf(Int(0, 3), Str(("draw",)))}), False, {"starting_dealer": "draw"}),
}, what="a table config")


@dataclass(frozen=True)
class TableConfig:
    path: Path
    port: str
    baud: int
    profile: Path
    ruleset: RuleSet
    ruleset_ref: str            # as written: a preset name or a path
    rulesets: Path              # the folder `start` over the API may take rule sets from, by name
    display_mode: str           # "difference" or "rank"
    database: Path
    socket: Path
    reconnect_backoff_max: float
    operation_margin: float
    starting_dealer: int | str  # a seat, or "draw" (the table draws lots)

    def summary(self) -> str:
        return (f"table config {self.path.name}: port {self.port} at {self.baud} baud, rule set {self.ruleset.name}, "
                f"profile {self.profile.name}, display {self.display_mode}, starting dealer {self.starting_dealer}")


def find_table_config(given: str | Path | None = None) -> Path:
    """The table config to use: ``given`` (--config), else $MJTABLE_CONFIG, else
    /etc/mjtable/table.yaml when it exists, else the shipped config/table.yaml."""
    if given:
        return Path(given)
    if os.environ.get(CONFIG_VARIABLE):
        return Path(os.environ[CONFIG_VARIABLE])
    return SYSTEM_CONFIG if SYSTEM_CONFIG.is_file() else SHIPPED_CONFIG


def _resolve(base: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base / path


def _top_strings(node) -> dict[str, str]:
    """Top-level string values, read even when other fields are invalid (to check the files)."""
    if not isinstance(node, MappingNode):
        return {}
    return {k.value: v.value for k, v in node.value
            if isinstance(k, ScalarNode) and isinstance(v, ScalarNode) and v.tag.endswith(":str")}


def _check_files(refs: dict[str, str], base: Path, ctx: Context) -> RuleSet | None:
    """The profile must exist; the rule set must load (its own issues are kept)."""
    problem = file_problem(named_file("tables", refs["profile"], base)) if "profile" in refs else None
    if problem:
        ctx.error(("profile",), f"{refs['profile'][:80]!r}: {problem} ({named_file('tables', refs['profile'], base)}); "
                  f"allowed: a shipped profile ({', '.join(shipped_names('tables'))}) or a path to a table "
                  "profile, relative to this file's folder")
    if "ruleset" not in refs:
        return None
    try:
        return load_ruleset(refs["ruleset"], base)
    except ConfigError as exc:
        ctx.error(("ruleset",), f"the rule set {refs['ruleset']!r} is not valid (below)")
        ctx.merge(exc)
        return None


def _check_dealer(data: dict, rules: RuleSet, ctx: Context) -> None:
    dealer = data["game"]["starting_dealer"]
    if dealer != "draw" and dealer not in rules.seats:
        ctx.error(("game", "starting_dealer"), f"{dealer} is not a seat in play in {rules.name}; "
                  f"allowed: {', '.join(map(str, rules.seats))} or draw")


def load_table_config(path: str | Path) -> TableConfig:
    """Load and validate a table config and its rule set; raises ConfigError."""
    path = Path(path)
    ctx = Context(str(path))
    node = compose(read_text(path), ctx)
    data = TABLE.check(node, (), ctx) if node is not None else None
    rules = _check_files(_top_strings(node), path.parent, ctx)
    if isinstance(data, dict) and rules is not None:
        _check_dealer(data, rules, ctx)
    ctx.raise_issues(by_line=False)  # the rule set's problems stay after the line that names it
    base = path.parent
    return TableConfig(
        path=path, port=data["serial"]["port"], baud=data["serial"]["baud"],
        profile=named_file("tables", data["profile"], base),
        ruleset=rules, ruleset_ref=data["ruleset"], rulesets=_resolve(base, data["rulesets"]),
        display_mode=data["display"]["mode"],
        database=_resolve(base, data["state"]["database"]), socket=_resolve(base, data["api"]["socket"]),
        starting_dealer=data["game"]["starting_dealer"], **data["timeouts"],
    )


def unplayable(config: TableConfig) -> list[str]:
    """Why the table the config's profile describes cannot play its rule set (nothing: it can):
    the same check as the controller's self-test makes on the table's `identify` reply."""
    from sim.profile import load_profile  # lazily: only check-config and run read the profile
    try:
        table = Capabilities.from_profile(dataclasses.asdict(load_profile(config.profile)))
    except ValueError as exc:  # the profile loader's ConfigError; its message names the file
        return [str(exc)]
    refusal = cannot_play(table, config.ruleset)
    return [f"{config.path}: the table profile {config.profile.name}: {refusal}"] if refusal else []


__all__ = ["ConfigError", "Issue", "TableConfig", "find_table_config", "load_table_config", "unplayable"]
