"""What a check is, and what the table a check runs against knows of itself.

A check is a coroutine taking the `Kit`; it returns None (pass), a string (pass, with a
note), raises `CheckFailed` (fail) or `NotApplicable` (n/a). `needs` turns the table's
identity into a reason the check does not apply (a missing device or capability), so
optional features report n/a instead of failing.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

Needs = Callable[[dict[str, Any]], str | None]
# A check's coroutine, given the kit (kit.py's `Kit`, which imports this module: named here
# only in words, so that the two never import each other).
Run = Callable[[Any], Awaitable[str | None]]


class NotApplicable(Exception):
    """The table lacks what the check tests, or the kit cannot bring it about."""


@dataclass(frozen=True)
class Check:
    name: str
    section: str       # the PROTOCOL.md section whose rule it tests
    title: str
    run: Run
    needs: Needs | None = None


def device(field: str, what: str) -> Needs:
    """n/a unless identity `field` is true (or non-zero)."""
    return lambda identity: None if identity.get(field) else f"the table has no {what}"


def check(section: str, name: str, title: str, needs: Needs | None = None):
    """Decorator: make a coroutine a Check (the modules list them in running order)."""
    def wrap(func: Run) -> Check:
        return Check(name, section, title, func, needs)
    return wrap
