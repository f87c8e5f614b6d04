"""`mjtable check-config [FILE]`: validate a table config, a rule set or a table profile.

Without FILE, the table config `mjtable run` would use. Which kind of file it is comes from
its ``kind:`` key, else from its top-level keys. Valid: a one-line summary and exit 0.
Invalid: every problem, one per line (file:line: key.path: what is wrong; allowed: ...), and
exit 2. The simulator's profile loader validates profiles with the same validator
(mjtable_config.schema), so their problems read the same.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from yaml.nodes import MappingNode

from controller.app.config import find_table_config, load_table_config, table_shape, unplayable
from controller.rules.ruleset import load_ruleset, ruleset_shape
from mjtable_config.schema import ConfigError, Context, Record, compose, read_text

HELP = "check a table config, a rule set or a table hardware profile and print every problem"

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, nargs="?",
                        help="a YAML file: table config, rule set or table profile (default: the table config "
                             "`mjtable run` uses: $MJTABLE_CONFIG, else /etc/mjtable/table.yaml if it exists, "
                             "else the shipped config/table.yaml)")


def file_kind(path: Path) -> str:
    """'ruleset', 'table' or 'table-profile'; raises ConfigError when it cannot tell."""
    ctx = Context(str(path))
    node = compose(read_text(path), ctx)
    if ctx.issues:
        raise ConfigError(ctx.issues)
    if not isinstance(node, MappingNode):
        ctx.error((), "the file must be a mapping of keys")
        raise ConfigError(ctx.issues)
    keys = {k.value: v for k, v in node.value if hasattr(k, "value")}
    kind = getattr(keys.get("kind"), "value", None)
    if kind in _CHECKERS:
        return kind
    if isinstance(keys.get("profile"), MappingNode):
        return "table-profile"
    scores = {name: len(telling & set(keys)) for name, telling in _telling_keys().items()}
    best = max(scores, key=scores.get)
    if scores[best] == 0:
        ctx.error((), f"cannot tell what this file is; add kind: {' | '.join(_CHECKERS)}")
        raise ConfigError(ctx.issues)
    return best


def _telling_keys() -> dict[str, set[str]]:
    """The top-level keys only one kind of file has, from the files' shapes."""
    from firmware_protocol.profile import profile_shape  # lazily: a file without kind: only
    shapes: dict[str, Record] = {"ruleset": ruleset_shape(), "table": table_shape(), "table-profile": profile_shape()}
    keys = {kind: set(s.fields) for kind, s in shapes.items()}
    return {kind: mine.difference(*(k for other, k in keys.items() if other != kind)) for kind, mine in keys.items()}


class _Reported(Exception):
    """Problems already worded for the user (the table cannot play the rule set), printed as is."""


def _check_profile(path: Path) -> str:
    from firmware_protocol.profile import load_profile  # lazily: only a profile needs its loader
    profile = load_profile(path)
    return f"table profile {path.name}: {profile.model}, {profile.tiles} tiles"


def _check_table(path: Path) -> str:
    config = load_table_config(path)
    problems = unplayable(config)
    if problems:
        raise _Reported("\n".join(problems))
    return config.summary()


_CHECKERS: dict[str, Callable[[Path], str]] = {
    "ruleset": lambda p: load_ruleset(p).summary(),
    "table": _check_table,
    "table-profile": _check_profile,
}


def run(args: argparse.Namespace) -> int:
    path: Path = find_table_config(args.file)
    try:
        kind = file_kind(path)
        print(f"ok: {_CHECKERS[kind](path)}")
        return 0
    except (ConfigError, _Reported) as exc:
        print(exc, file=sys.stderr)
    print(f"{path}: not valid", file=sys.stderr)
    return 2
