"""What a table's retained status may hold, as far as a floor tile shows it (docs/MQTT.md,
"status"): anyone with a table's account writes that topic, so each field the page draws
is checked here, and a status that breaks the schema is shown as "bad status" with the
reason, never drawn (and never taking other tiles down with it).
"""
from __future__ import annotations

from typing import Any, Callable
from urllib.parse import urlsplit

MAX_TEXT = 200   # characters of any text a tile shows
MAX_SEATS = 4


def _text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10 ** 9


def _number(value: Any) -> bool:
    return _int(value) or isinstance(value, float)


def _list_of(item: Callable[[Any], bool], most: int) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and len(value) <= most and all(item(v) for v in value)


def _object(**fields: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, dict) and all(check(value.get(name)) for name, check in fields.items())


def _optional(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


def web_url(value: Any) -> bool:
    """A table page's address: http(s) only (a `javascript:` link would run when clicked)."""
    if not _text(value):
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


FIELDS: dict[str, Callable[[Any], bool]] = {
    "state": _text, "ruleset": _text, "hand": _text, "waiting_for": _text,
    "hands_played": _int, "dealer": _int, "honba": _int, "riichi_sticks": _int,
    "finished": lambda v: isinstance(v, bool),
    "scores": _list_of(_int, MAX_SEATS), "seats": _list_of(_int, MAX_SEATS),
    "seat_players": _list_of(_object(seat=_int, name=_text), MAX_SEATS),
    "maintenance_due": _list_of(_object(task=_text, counter=_text, every=_int, since=_int,
                                        due=lambda v: isinstance(v, bool)), 32),
    "web_url": web_url,
    "fault": _object(code=_int, message=_optional(_text), since=_optional(_number)),
}


def status_problem(status: dict[str, Any]) -> str | None:
    """Why ``status`` cannot be drawn (the first field that breaks the schema), or None."""
    for name, check in FIELDS.items():
        if status.get(name) is not None and not check(status[name]):
            return f"bad status: {name!r} is not as docs/MQTT.md says"
    return None


def hand_summary(record: Any) -> dict[str, Any] | None:
    """What a tile shows of a `hand_ended` event's record, or None: not as docs/MQTT.md says."""
    if not isinstance(record, dict):
        return None
    result = record.get("result")
    summary = {"hand": record.get("hand"), "honba": record.get("honba"),
               "kind": result.get("kind") if isinstance(result, dict) else None, "payments": record.get("payments")}
    checks = {"hand": _text, "honba": _int, "kind": _text, "payments": _list_of(_int, MAX_SEATS)}
    return summary if all(v is None or checks[k](v) for k, v in summary.items()) else None
