"""The strict YAML validator of every configuration file: table configs, rule sets, table
hardware profiles, fault scenarios. The controller and the simulator both use it (this package
imports neither).

Configuration is written by hand, so a typo must not be silently ignored: unknown keys
are errors, every scalar is type- and range-checked, and a dataclass's own cross-field
``problems()`` run once its fields are individually valid. All problems are collected and
raised together as one ``ConfigError`` whose ``str()`` is the message a user reads: one
line per problem, each naming the file, the line and the key path.

A file's shape is its dataclass (``shape(RuleSet)``): the YAML keys are its fields, their
types give the checks, and ``field(metadata=spec(...))`` the ranges, choices and the key a
field is read from. The YAML is composed (not constructed) so every value keeps its
position; scalars are then built with PyYAML's safe constructor.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Literal, Union

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from mjtable_config import reading

__all__ = [
    "AnyOf", "Bool", "ConfigError", "Context", "Field", "Float", "INVALID", "Int", "Issue", "List", "Map",
    "Nullable", "Problems", "Record", "Schema", "Str", "Variant", "compose", "path_str", "read_text", "shape", "spec",
    "validate_file", "validate_text",
]

Path_ = tuple  # a key path: ("dice", "throws") or ("limits", 2, "han")

MAX_ISSUES = 20  # listed; past it only counted, so a file of garbage costs no more than a few typos
SHOWN = 40       # characters of a bad value echoed back

INT, FLOAT, BOOL, STR, NULL = (f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "str", "null"))


class _Invalid:
    """Marks a value that failed validation (its error is already recorded)."""

    def __repr__(self) -> str:
        return "INVALID"


INVALID = _Invalid()


@dataclass(frozen=True)
class Issue:
    file: str
    line: int | None
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return ": ".join(part for part in (where, self.path, self.message) if part)  # no file: not in a file


class ConfigError(ValueError):
    """One or more configuration problems; ``str()`` lists them one per line."""

    def __init__(self, issues: Iterable[Issue], more: int = 0):
        self.issues = list(issues)
        self.more = more  # problems found but not listed
        super().__init__(str(self))

    def __str__(self) -> str:
        more = [f"... and {self.more} more problems"] if self.more else []
        return "\n".join([str(i) for i in self.issues] + more)

    def places(self) -> str:
        """Where the problems are (line and key path), without what the file says there."""
        where = [f"line {i.line} {i.path or '(the file)'}" if i.line else i.path or i.message for i in self.issues]
        return "; ".join(where + ([f"and {self.more} more"] if self.more else []))


def path_str(path: Path_) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass
class Context:
    """Collects issues and remembers the line of every visited path (for cross-field checks)."""

    file: str
    issues: list[Issue] = field(default_factory=list)
    lines: dict[Path_, int] = field(default_factory=dict)
    total: int = 0  # issues found, listed or not

    @property
    def full(self) -> bool:
        return len(self.issues) >= MAX_ISSUES

    def visit(self, path: Path_, node: Node) -> None:
        self.lines.setdefault(path, node.start_mark.line + 1)

    def line_of(self, path: Path_) -> int | None:
        # The nearest recorded ancestor: a missing key is reported at its parent mapping.
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.lines:
                return self.lines[path[:cut]]
        return None

    def error(self, path: Path_, message: str, line: int | None = None) -> _Invalid:
        self.total += 1
        if not self.full:
            self.issues.append(Issue(self.file, line or self.line_of(path), path_str(path), message))
        return INVALID

    def merge(self, exc: ConfigError) -> None:
        """Take another file's problems (a rule set named here), within the same bound."""
        room = max(MAX_ISSUES - len(self.issues), 0)
        self.issues += exc.issues[:room]
        self.total += len(exc.issues) + exc.more

    def raise_issues(self, by_line: bool = True) -> None:
        if self.issues:
            issues = sorted(self.issues, key=lambda i: i.line or 0) if by_line else self.issues
            raise ConfigError(issues, self.total - len(self.issues))


def show(node: Node) -> str:
    """The bad value as the user wrote it."""
    if isinstance(node, ScalarNode):
        text = node.value if len(node.value) <= SHOWN else node.value[:SHOWN] + "..."
        return "null" if node.tag == NULL else repr(text) if node.tag == STR else text
    return "a mapping" if isinstance(node, MappingNode) else "a list"


def _construct(node: ScalarNode) -> Any:
    return SafeConstructor().construct_object(node)


class Schema:
    """Base: ``check`` returns the plain Python value or INVALID after recording an error."""

    allowed = "a value"

    def check(self, node: Node, path: Path_, ctx: Context) -> Any:
        ctx.visit(path, node)
        return self._check(node, path, ctx)

    def _check(self, node: Node, path: Path_, ctx: Context) -> Any:
        raise NotImplementedError

    def fail(self, node: Node, path: Path_, ctx: Context, problem: str = "") -> _Invalid:
        return ctx.error(path, f"{problem or 'got ' + show(node)}; allowed: {self.allowed}")


def _range_text(kind: str, lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"{kind} from {lo} to {hi}"
    if lo is not None:
        return f"{kind} ≥ {lo}"
    return f"{kind} ≤ {hi}" if hi is not None else kind


class _Number(Schema):
    tags: tuple[str, ...] = ()
    kind = ""

    def __init__(self, min: float | None = None, max: float | None = None):
        self.min, self.max = min, max
        self.allowed = _range_text(self.kind, min, max)

    def _check(self, node, path, ctx):
        if not (isinstance(node, ScalarNode) and node.tag in self.tags):
            return self.fail(node, path, ctx)
        try:
            value = _construct(node)
        except ValueError:  # an integer of more digits than Python converts
            return self.fail(node, path, ctx, f"{len(node.value)} characters long")
        if isinstance(value, float) and not math.isfinite(value):
            return self.fail(node, path, ctx, f"{show(node)} is not a finite number")
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            return self.fail(node, path, ctx, f"{node.value} is out of range")
        return value


class Int(_Number):
    tags, kind = (INT,), "an integer"


class Float(_Number):
    tags, kind = (INT, FLOAT), "a number"

    def _check(self, node, path, ctx):
        value = super()._check(node, path, ctx)
        return value if value is INVALID else float(value)


class Bool(Schema):
    allowed = "true or false"

    def _check(self, node, path, ctx):
        if isinstance(node, ScalarNode) and node.tag == BOOL:
            return _construct(node)
        return self.fail(node, path, ctx)


class Str(Schema):
    def __init__(self, choices: Iterable[str] | None = None, what: str = "a string"):
        self.choices = tuple(choices) if choices is not None else None
        self.allowed = ", ".join(self.choices) if self.choices else what

    def _check(self, node, path, ctx):
        if not (isinstance(node, ScalarNode) and node.tag == STR and node.value):
            return self.fail(node, path, ctx)
        if self.choices is not None and node.value not in self.choices:
            return self.fail(node, path, ctx, f"got {show(node)}{_did_you_mean(node.value, self.choices)}")
        return node.value


def _did_you_mean(word: str, options: Iterable[str]) -> str:
    import difflib  # a mistyped key's hint only: not in a running controller

    close = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Nullable(Schema):
    """``null`` (a disabled feature, read as ``null``) or the inner schema."""

    def __init__(self, inner: Schema, null: Any = None):
        self.inner, self.null = inner, null
        self.allowed = f"null or {inner.allowed}"

    def check(self, node, path, ctx):
        if isinstance(node, ScalarNode) and node.tag == NULL:
            ctx.visit(path, node)
            return self.null
        return self.inner.check(node, path, ctx)


class AnyOf(Schema):
    """The first alternative that accepts the value; otherwise one error listing them all."""

    def __init__(self, *options: Schema):
        self.options = options
        self.allowed = " or ".join(o.allowed for o in options)

    def _check(self, node, path, ctx):
        for option in self.options:
            scratch = Context(ctx.file)
            value = option.check(node, path, scratch)
            if not scratch.issues:
                return value
        return self.fail(node, path, ctx)


class List(Schema):
    """A list, read as a tuple (the dataclasses are frozen)."""

    def __init__(self, item: Schema, min_len: int = 0, max_len: int | None = None):
        self.item, self.min_len, self.max_len = item, min_len, max_len
        count = (f"{min_len}" if min_len == max_len else f"at least {min_len}" if max_len is None
                 else f"{min_len} to {max_len}")
        self.allowed = f"a list of {count} items, each {item.allowed}"

    def _check(self, node, path, ctx):
        if not isinstance(node, SequenceNode):
            return self.fail(node, path, ctx)
        values = [self.item.check(child, path + (i,), ctx) for i, child in enumerate(node.value)]
        n = len(values)
        if n < self.min_len or (self.max_len is not None and n > self.max_len):
            return self.fail(node, path, ctx, f"got {n} items")
        return INVALID if any(v is INVALID for v in values) else tuple(values)


@dataclass(frozen=True)
class Field:
    schema: Schema
    required: bool = True
    default: Any = None


class Map(Schema):
    """A mapping with known keys, read as a dict."""

    def __init__(self, fields: dict[str, Field | Schema], what: str = "a mapping"):
        self.fields = {k: f if isinstance(f, Field) else Field(f) for k, f in fields.items()}
        self.allowed = f"{what} with keys {', '.join(self.fields)}"

    def _check(self, node, path, ctx):
        if not isinstance(node, MappingNode):
            return self.fail(node, path, ctx)
        given = self._keys(node, path, ctx)
        out, ok = {}, ctx.total
        for key, item in self.fields.items():
            if key in given:
                out[key] = item.schema.check(given[key], path + (key,), ctx)
            elif item.required:
                ctx.error(path, f"missing required key {key!r}")
            else:
                out[key] = item.default
        return INVALID if ctx.total > ok or any(v is INVALID for v in out.values()) else out

    def _keys(self, node: MappingNode, path: Path_, ctx: Context) -> dict[str, Node]:
        given: dict[str, Node] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, ScalarNode) else show(key_node)
            line = key_node.start_mark.line + 1
            if key not in self.fields:
                hint = "" if ctx.full else _did_you_mean(key, self.fields)  # difflib is slow; only for listed ones
                ctx.error(path + (key,), f"unknown key {show(key_node)}{hint}; allowed keys: {', '.join(self.fields)}",
                          line)
            elif key in given:
                ctx.error(path + (key,), "duplicate key", line)
            else:
                ctx.lines[path + (key,)] = line
                given[key] = value_node
        return given


class Variant(Schema):
    """A mapping whose ``key`` (e.g. ``scheme``) chooses which Map validates the rest."""

    def __init__(self, key: str, cases: dict[str, Map]):
        self.key, self.cases = key, cases
        self.allowed = f"a mapping with {key}: {' | '.join(cases)}"

    def _check(self, node, path, ctx):
        if not isinstance(node, MappingNode):
            return self.fail(node, path, ctx)
        chosen = next((v for k, v in node.value if isinstance(k, ScalarNode) and k.value == self.key), None)
        if chosen is None:
            return ctx.error(path, f"missing required key {self.key!r}; allowed: {' | '.join(self.cases)}")
        name = Str(self.cases).check(chosen, path + (self.key,), ctx)
        return INVALID if name is INVALID else self.cases[name].check(node, path, ctx)


# ----------------------------------------------------------------------------- shapes from dataclasses

Problems = Iterator[tuple[tuple, str]]  # what a dataclass's problems() yields: (key path, message)

_SPEC_KEYS = frozenset({"key", "min", "max", "choices", "what", "length", "null", "by", "schema", "file"})


def spec(**given: Any) -> dict[str, Any]:
    """A field's ``metadata`` for its shape:

    - ``key``: the YAML key when it is not the field's name; ``"tiles.hand"`` reads the field
      from the mapping ``tiles``, which the fields of that key make together;
    - ``min``, ``max``: a number's range; ``choices``, ``what``: a string's values, or how to
      name them; on a list, these apply to its items and ``length`` = (min, max) to the list;
    - ``null``: what ``null`` reads as, for a field whose type is not Optional;
    - ``by``: the key whose value chooses the dataclass, for a union of dataclasses;
    - ``schema``: a Schema, where the type says too little (a list of lists);
    - ``file=False``: not read from the file (the loader gives it).
    """
    unknown = set(given) - _SPEC_KEYS
    if unknown:
        raise TypeError(f"unknown spec keys: {', '.join(sorted(unknown))}")
    return given


def _is_optional(hint: Any) -> bool:
    return typing.get_origin(hint) in (Union, types.UnionType) and type(None) in typing.get_args(hint)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)  # evaluates every annotation: once per class


def _tag(cls: type, key: str) -> str:
    """The value of ``key`` that names ``cls`` in a union: its field's Literal type."""
    (value,) = typing.get_args(_hints(cls)[key])
    return value


def _schema_of(hint: Any, meta: typing.Mapping[str, Any]) -> Schema:
    if "schema" in meta:
        return meta["schema"]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        options = tuple(a for a in args if a is not type(None))
        if len(options) == 1:
            inner = _schema_of(options[0], meta)
        elif "by" in meta:
            inner = Variant(meta["by"], {_tag(o, meta["by"]): shape(o) for o in options})
        else:
            inner = AnyOf(*(_schema_of(o, meta) for o in options))
        return Nullable(inner) if len(options) < len(args) else inner
    if origin is Literal:
        return Str(args)
    if origin in (tuple, list):
        items = {k: v for k, v in meta.items() if k != "length"}
        return List(_schema_of(args[0], items), *meta.get("length", (0, None)))
    if dataclasses.is_dataclass(hint):
        return shape(hint)
    if hint is bool:
        return Bool()
    if hint in (int, float):
        return (Int if hint is int else Float)(meta.get("min"), meta.get("max"))
    if hint in (str, Path):
        return Str(meta.get("choices"), meta.get("what", "a string"))
    raise TypeError(f"no YAML schema for the type {hint!r}")


def _field_of(f: dataclasses.Field, hint: Any) -> Field:
    schema = _schema_of(hint, f.metadata)
    if "null" in f.metadata:
        schema = Nullable(schema, f.metadata["null"])
    if f.default is not dataclasses.MISSING:
        return Field(schema, False, f.default)
    if f.default_factory is not dataclasses.MISSING:
        return Field(schema, False, f.default_factory())
    return Field(schema)


class Record(Map):
    """A dataclass's fields as a mapping, read as an instance of it. Fields with a dotted
    ``key`` make their mapping together: it may be left out when they all have defaults, and
    is ``null`` (every one None) when they are all Optional. Once the fields are valid, the
    instance's ``problems()`` (if any: pairs of a key path within this mapping and a message)
    are the cross-field checks."""

    def __init__(self, cls: type, kind: str | None = None, what: str = "a mapping"):
        self.cls = cls
        self.keys: dict[str, tuple[str, ...]] = {}  # field name -> its key path
        hints = _hints(cls)
        top: dict[str, Field | None] = {"kind": Field(Str((kind,)), False, kind)} if kind else {}
        groups: dict[str, dict[str, Field]] = {}
        nullable: dict[str, bool] = {}
        for f in dataclasses.fields(cls):
            if f.metadata.get("file", True) is False:
                continue
            self.keys[f.name] = tuple(f.metadata.get("key", f.name).split("."))
            key, *sub = self.keys[f.name]
            if len(sub) > 1:
                raise TypeError(f"{cls.__name__}.{f.name}: a key is a name or group.name, not {'.'.join(self.keys[f.name])}")
            if not sub:
                top[key] = _field_of(f, hints[f.name])
                continue
            top.setdefault(key, None)  # a place in the key order, filled below
            groups.setdefault(key, {})[sub[0]] = _field_of(f, hints[f.name])
            nullable[key] = nullable.get(key, True) and _is_optional(hints[f.name])
        for key, members in groups.items():
            inner = Nullable(Map(members)) if nullable[key] else Map(members)
            required = any(m.required for m in members.values())
            top[key] = Field(inner, required, None if required else {k: m.default for k, m in members.items()})
        super().__init__(top, what)

    def _check(self, node, path, ctx):
        values = self.read(node, path, ctx)
        return INVALID if values is INVALID else self.build(values, path, ctx)

    def read(self, node: Node, path: Path_, ctx: Context) -> dict | _Invalid:
        """The valid mapping as read (not yet an instance: see ``build``)."""
        ctx.visit(path, node)
        return super()._check(node, path, ctx)

    def build(self, values: dict, path: Path_, ctx: Context, /, **given: Any) -> Any:
        """The instance, from ``read``'s values and ``given`` (fields the file does not hold);
        its own checks' problems are recorded."""
        found = ctx.total
        fields = {}
        for name, (key, *sub) in self.keys.items():
            value = values[key]
            fields[name] = value[sub[0]] if sub and value is not None else value
        try:
            made = self.cls(**{**fields, **given})
        except ValueError as exc:  # the dataclass's own check of its fields
            return ctx.error(path, str(exc))
        for where, message in getattr(made, "problems", tuple)():
            ctx.error(path + tuple(where), message)
        return INVALID if ctx.total > found else made


@functools.cache
def shape(cls: type, kind: str | None = None, what: str = "a mapping") -> Record:
    """The schema of ``cls`` (a dataclass); ``kind`` is the optional ``kind:`` key a file of
    this shape may begin with. Derived once, on first use."""
    return Record(cls, kind, what)


def compose(text: str, ctx: Context) -> Node | None:
    """Parse YAML keeping positions; a syntax error becomes an issue."""
    try:
        node = reading.compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        ctx.error((), f"not valid YAML: {exc.problem or exc.context}", mark.line + 1 if mark else None)
        return None
    except yaml.YAMLError as exc:
        ctx.error((), f"not valid YAML: {exc}")
        return None
    if node is None:
        ctx.error((), "the file is empty")
    return node


def validate_text(schema: Schema, text: str, file: str) -> Any:
    """Validate YAML text against ``schema``; raise ConfigError listing every problem."""
    ctx = Context(file)
    node = compose(text, ctx)
    value = INVALID if node is None else schema.check(node, (), ctx)
    ctx.raise_issues()
    return value


def read_text(path: Path) -> str:
    try:
        return reading.read_text(path)
    except reading.Unreadable as exc:
        raise ConfigError([Issue(str(path), None, "", str(exc))]) from None


def validate_file(schema: Schema, path: Path | str) -> Any:
    path = Path(path)
    return validate_text(schema, read_text(path), str(path))
