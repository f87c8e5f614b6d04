"""The table config (config/table.yaml): link, hardware profile, rule set, paths, timeouts.

Relative paths are taken from the config file's folder, so a config directory can be moved
as a whole. The rule set it names is loaded and validated with it: one ConfigError lists
the problems of both files. ``TableConfig`` is the file's shape: each field's metadata names
its key (``serial.port``) and its range or choices.

Every command finds the table config the same way (``find_table_config``), so `mjtable run`
and the client commands agree on the control socket and the database without being told.
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from yaml.nodes import MappingNode, ScalarNode

from controller.table.capabilities import Capabilities, cannot_play
from controller.maintenance.intervals import Interval, Intervals
from controller.api.listen import WHAT as LISTEN_WHAT, parse_listen
from controller.api.mqtt.settings import MqttSettings
from controller.language import DEFAULT as DEFAULT_LANGUAGE, LANGUAGES
from controller.rules.ruleset import RuleSet, load_ruleset
from controller.club.schedule import MAX_NUMBER
from controller.api.web.secret import FORMAT, is_secret_hash
from mjtable_config import CONFIG_DIR, named_file, shipped_names
from mjtable_config.reading import file_problem
from mjtable_config.schema import (ConfigError, Context, Issue, Problems, Record, Str, compose, read_text, shape,
                                   spec)

CONFIG_VARIABLE = "MJTABLE_CONFIG"
SYSTEM_CONFIG = Path("/etc/mjtable/table.yaml")
SHIPPED_CONFIG = CONFIG_DIR / "table.yaml"

# pyserial URL handlers (serial_for_url), a device path, or a Windows COM port
PORT_SCHEMES = ("socket", "rfc2217", "loop", "spy", "alt", "hwgrep", "cp2110")
_PORT = re.compile(rf"^(({'|'.join(PORT_SCHEMES)})://.*|/.+|COM\d+)$")
SPECTATORS = ("open", "pin", "operator")  # web.spectators: who may watch (controller/api/web/access.py)


class Port(Str):
    def __init__(self) -> None:
        super().__init__(what=f"a device path (/dev/ttyUSB0), COMn or a URL {', '.join(s + '://' for s in PORT_SCHEMES)}")

    def _check(self, node, path, ctx):
        value = super()._check(node, path, ctx)
        if isinstance(value, str) and not _PORT.match(value):
            return self.fail(node, path, ctx)
        return value


# -- the web page (web:) --
class Listen(Str):
    def __init__(self) -> None:
        super().__init__(what=LISTEN_WHAT)

    def _check(self, node, path, ctx):
        value = super()._check(node, path, ctx)
        if isinstance(value, str):
            try:
                parse_listen(value)
            except ValueError:
                return self.fail(node, path, ctx)
        return value


class SecretHash(Str):
    def __init__(self) -> None:
        super().__init__(what=FORMAT)

    def _check(self, node, path, ctx):
        value = super()._check(node, path, ctx)
        if isinstance(value, str) and not is_secret_hash(value):
            return self.fail(node, path, ctx, "not a secret hash (never the secret itself)")
        return value


class PageUrl(Str):
    def __init__(self) -> None:
        super().__init__(what="the page's address as the players' phones reach it, http://... or https://...")

    def _check(self, node, path, ctx):
        value = super()._check(node, path, ctx)
        if isinstance(value, str) and not re.match(r"^https?://[^/\s]+(/\S*)?$", value):
            return self.fail(node, path, ctx)
        return value


@dataclass(frozen=True, kw_only=True)
class TableConfig:
    path: Path = field(metadata=spec(file=False))
    port: str = field(metadata=spec(key="serial.port", schema=Port()))
    baud: int = field(metadata=spec(key="serial.baud", min=300, max=4_000_000))
    profile: Path = field(metadata=spec(what="a shipped table profile's name or a path to a table hardware profile YAML"))
    ruleset: RuleSet = field(metadata=spec(file=False))
    ruleset_ref: str = field(metadata=spec(key="ruleset", what="a rule-set preset name or a path to a rule-set YAML"))
    # the folder `start` over the API may take rule sets from, by name
    rulesets: Path = field(default=Path("rulesets"), metadata=spec(what="a folder of rule-set YAML files"))
    display_mode: str = field(default="difference", metadata=spec(key="display.mode", choices=("difference", "rank")))
    # the language of the centre's and the seats' texts (docs/LANGUAGES.md)
    language: str = field(default=DEFAULT_LANGUAGE, metadata=spec(key="display.language", choices=LANGUAGES))
    database: Path = field(metadata=spec(key="state.database", what="a file path"))
    socket: Path = field(metadata=spec(key="api.socket", what="a file path"))
    reconnect_backoff_max: float = field(default=30.0, metadata=spec(key="timeouts.reconnect_backoff_max",
                                                                     min=0.1, max=3600))
    # a factor: below 1 every operation is late
    operation_margin: float = field(default=2.0, metadata=spec(key="timeouts.operation_margin", min=1, max=600))
    # a seat, or "draw" (the table draws lots)
    starting_dealer: int | str = field(default="draw", metadata=spec(key="game.starting_dealer", min=0, max=3,
                                                                     choices=("draw",)))
    # this table's number in a tournament's schedule (`mjtable start --round N`); none: not in one
    table_number: int | None = field(default=None, metadata=spec(key="table.number", min=1, max=MAX_NUMBER))
    # the parlour's broker (docs/MQTT.md); off without the section
    mqtt: MqttSettings | None = None
    # service intervals by task, for the maintenance reminders (docs/FLOOR.md)
    maintenance: dict[str, Interval] = field(default_factory=dict, metadata=spec(schema=Intervals()))

    # the web page (docs/INSTALL.md "The web page"): off without web.listen
    web_listen: str | None = field(default=None, metadata=spec(key="web.listen", schema=Listen()))
    web_spectators: str = field(default="open", metadata=spec(key="web.spectators", choices=SPECTATORS))
    web_operator_secret: str | None = field(default=None, metadata=spec(key="web.operator_secret",
                                                                        schema=SecretHash()))
    web_url: str | None = field(default=None, metadata=spec(key="web.url", schema=PageUrl()))

    def problems(self) -> Problems:
        if self.web_listen is None and (self.web_spectators != "open" or self.web_operator_secret or self.web_url):
            yield ("web",), "missing required key 'listen': the web page's HOST:PORT (without it the page is off)"
        dealer, seats = self.starting_dealer, self.ruleset.seats
        if dealer != "draw" and dealer not in seats:
            yield ("game", "starting_dealer"), (f"{dealer} is not a seat in play in {self.ruleset.name}; "
                                                f"allowed: {', '.join(map(str, seats))} or draw")

    def summary(self) -> str:
        return (f"table config {self.path.name}: port {self.port} at {self.baud} baud, rule set {self.ruleset.name}, "
                f"profile {self.profile.name}, display {self.display_mode} in {self.language}, starting dealer {self.starting_dealer}"
                + (f", table number {self.table_number}" if self.table_number is not None else "")
                + (f"; {self.mqtt.summary()}" if self.mqtt else "")
                + (f", web page on {self.web_listen} (spectators {self.web_spectators})" if self.web_listen else ""))


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


def table_shape() -> Record:
    """A table config file's schema (without the rule set it names)."""
    return shape(TableConfig, kind="table", what="a table config")


def load_table_config(path: str | Path) -> TableConfig:
    """Load and validate a table config and its rule set; raises ConfigError."""
    path = Path(path)
    ctx = Context(str(path))
    node = compose(read_text(path), ctx)
    table = table_shape()
    data = table.read(node, (), ctx) if node is not None else None
    base = path.parent
    rules = _check_files(_top_strings(node), base, ctx)
    config = None
    if isinstance(data, dict) and rules is not None:
        config = table.build(data, (), ctx, path=path, ruleset=rules, profile=named_file("tables", data["profile"], base),
                             rulesets=_resolve(base, data["rulesets"]), socket=_resolve(base, data["api"]["socket"]),
                             database=_resolve(base, data["state"]["database"]))
    if isinstance(config, TableConfig) and config.mqtt is not None:  # build gives INVALID on a problem
        config = dataclasses.replace(config, mqtt=_mqtt_files(config.mqtt.resolved(base), ctx))
    ctx.raise_issues(by_line=False)  # the rule set's problems stay after the line that names it
    return config


def _mqtt_files(mqtt: MqttSettings, ctx: Context) -> MqttSettings:
    for key, path in mqtt.files().items():
        problem = file_problem(path)
        if problem:
            ctx.error(("mqtt", key), f"{problem} ({path}); allowed: a file path, relative to this file's folder")
    return mqtt


def unplayable(config: TableConfig) -> list[str]:
    """Why the table the config's profile describes cannot play its rule set (nothing: it can):
    the same check as the controller's self-test makes on the table's `identify` reply."""
    from firmware_protocol.profile import load_profile  # lazily: only check-config and run read the profile
    try:
        table = Capabilities.from_profile(dataclasses.asdict(load_profile(config.profile)))
    except ConfigError as exc:  # its lines name the profile's file
        return [str(exc)]
    refusal = cannot_play(table, config.ruleset)
    return [f"{config.path}: the table profile {config.profile.name}: {refusal}"] if refusal else []


__all__ = ["ConfigError", "Issue", "TableConfig", "find_table_config", "load_table_config", "unplayable"]
