"""Reading a configuration file without trusting it (table configs, rule sets, table profiles).

Only a regular file of bounded size is read, so a FIFO, a device or a huge file is refused
before anything can block or fill memory; YAML is composed with bounded nesting and no
aliases, so neither the stack nor a walk of the tree can blow up. The messages never quote
the file: a path given by someone else must not turn the reader into a way to see files.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import yaml
from yaml.composer import Composer, ComposerError
from yaml.events import AliasEvent
from yaml.resolver import Resolver

# The shipped files are 1-6 KB; PyYAML's pure-Python composer reads about 10,000 keys a
# second, so this bounds a file's reading to well under a second.
MAX_BYTES = 64 * 1024
MAX_DEPTH = 32  # mappings and lists inside one another (the shipped files use 4)


class Unreadable(ValueError):
    """The file cannot be read as a configuration file; ``str()`` says why, without its name."""


def read_text(path: str | Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # opening a FIFO must not wait for a writer
    except OSError as exc:
        raise Unreadable(f"cannot read the file: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode  # asked before fdopen, which refuses a folder with an IsADirectoryError
        if not stat.S_ISREG(mode):
            raise Unreadable(f"{'a folder' if stat.S_ISDIR(mode) else 'not a regular file'}; allowed: a YAML file")
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(MAX_BYTES + 1)  # at most this much, even if the file grows meanwhile
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        raise Unreadable(f"larger than {MAX_BYTES // 1024} KB; allowed: at most {MAX_BYTES // 1024} KB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable("not a UTF-8 text file") from None


def file_problem(path: Path) -> str | None:
    """Why ``path`` is not a regular file (None: it is); never raises, even for a name the
    system refuses (too long, ...), unlike Path.is_file."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except (OSError, ValueError) as exc:
        return getattr(exc, "strerror", None) or str(exc)
    return None if stat.S_ISREG(mode) else "not a regular file"


def is_file(path: Path) -> bool:
    return file_problem(path) is None


class _Composer(Composer, Resolver):
    """PyYAML's composer with a nesting bound and no aliases (``*name``), over a parser's events."""

    def __init__(self) -> None:
        Composer.__init__(self)
        Resolver.__init__(self)
        self.depth = 0

    def compose_node(self, parent, index):
        if self.check_event(AliasEvent):
            raise ComposerError(None, None, "aliases (*name) are not allowed here", self.peek_event().start_mark)
        if self.depth >= MAX_DEPTH:
            raise ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", self.peek_event().start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


try:  # libyaml's parser, ten times faster than PyYAML's own; the composer above stays in charge
    from yaml._yaml import CParser

    class _Loader(_Composer, CParser):
        def __init__(self, text: str) -> None:
            CParser.__init__(self, text)
            _Composer.__init__(self)
except ImportError:  # PyYAML built without libyaml
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Loader(_Composer, Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, text: str) -> None:
            Reader.__init__(self, text)
            Scanner.__init__(self)
            Parser.__init__(self)
            _Composer.__init__(self)


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree of ``text`` (positions kept); raises yaml.YAMLError."""
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()
