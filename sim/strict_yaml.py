"""Strict YAML reading for the simulator's own files (hardware profiles, fault scenarios).

A schema is plain data: a Python type (``int``, ``float``, ``bool``, ``str``), a
:class:`Choice`, a one-element list ``[schema]`` for a list of items, or a dict mapping
each key to its schema (wrap in :class:`Optional` to give a default). Anything else in
the file — an unknown key, a wrong type, a duplicate key — is a :class:`ConfigError`
naming the file, the line and the key path, because a typo in a profile must never
silently become a default.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mjtable_config import reading


class ConfigError(ValueError):
    """A file that does not match its schema; the message says where and why."""


@dataclass(frozen=True)
class Choice:
    options: tuple[str, ...]

    def __init__(self, *options: str) -> None:
        object.__setattr__(self, "options", options)


@dataclass(frozen=True)
class Optional:
    schema: Any
    default: Any = None


_TAGS = {bool: "bool", int: "int", float: "float", str: "str"}
_constructor = yaml.constructor.SafeConstructor()


def load(path: str | Path, schema: dict[str, Any]) -> dict[str, Any]:
    path = Path(path)
    try:
        root = reading.compose(reading.read_text(path))
    except reading.Unreadable as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except yaml.MarkedYAMLError as exc:  # its own text would name "<unicode string>", not the file
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}{line}: not valid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if root is None:
        raise ConfigError(f"{path}: empty file")
    return _check(root, schema, _Where(path, ()))


@dataclass(frozen=True)
class _Where:
    path: Path
    keys: tuple[str, ...]

    def fail(self, node: yaml.Node, message: str) -> ConfigError:
        key = ".".join(self.keys) or "(top level)"
        return ConfigError(f"{self.path}:{node.start_mark.line + 1}: {key}: {message}")

    def at(self, key: str) -> "_Where":
        return _Where(self.path, (*self.keys, key))


def _check(node: yaml.Node, schema: Any, where: _Where) -> Any:
    if isinstance(schema, Optional):
        schema = schema.schema
    if isinstance(schema, dict):
        return _check_mapping(node, schema, where)
    if isinstance(schema, list):
        if not isinstance(node, yaml.SequenceNode):
            raise where.fail(node, "expected a list")
        return [_check(item, schema[0], where.at(f"[{i}]")) for i, item in enumerate(node.value)]
    if not isinstance(node, yaml.ScalarNode):
        raise where.fail(node, f"expected {_describe(schema)}")
    try:
        value = _constructor.construct_object(node)
    except ValueError:  # an integer of more digits than Python converts
        raise where.fail(node, f"expected {_describe(schema)}, got a value {len(node.value)} characters long") from None
    if isinstance(schema, Choice):
        if value not in schema.options:
            raise where.fail(node, f"{value!r} is not one of {', '.join(schema.options)}")
        return value
    if type(value) is float and not math.isfinite(value):
        raise where.fail(node, f"expected a finite number, got {node.value}")
    if schema is float and type(value) is int:
        return float(value)
    if type(value) is not schema:
        raise where.fail(node, f"expected {_describe(schema)}, got {value!r}")
    return value


def _check_mapping(node: yaml.Node, schema: dict[str, Any], where: _Where) -> dict[str, Any]:
    if not isinstance(node, yaml.MappingNode):
        raise where.fail(node, "expected a mapping")
    out: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key = key_node.value
        if key not in schema:
            raise where.at(str(key)).fail(key_node, f"unknown key (expected one of: {', '.join(schema)})")
        if key in out:
            raise where.at(key).fail(key_node, "duplicate key")
        out[key] = _check(value_node, schema[key], where.at(key))
    for key, sub in schema.items():
        if key in out:
            continue
        if not isinstance(sub, Optional):
            raise where.fail(node, f"missing key {key!r}")
        out[key] = sub.default
    return out


def _describe(schema: Any) -> str:
    if isinstance(schema, Choice):
        return "one of " + ", ".join(schema.options)
    return "a number" if schema is float else f"a {_TAGS.get(schema, 'value')}"
