"""A listening address as the commands and the table config take it: ``HOST:PORT``."""
from __future__ import annotations

import re

WHAT = "HOST:PORT (0.0.0.0:8080 on every address, 127.0.0.1:8080 this board only; [::]:8080 for IPv6; port 0: any free port)"
_LISTEN = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$")


def parse_listen(text: str) -> tuple[str, int]:
    """(host, port) of ``HOST:PORT`` / ``[IPv6]:PORT``; ValueError says what is wrong."""
    match = _LISTEN.match(text)
    if not match or int(match[2]) > 65535:
        raise ValueError(f"{text!r}: not {WHAT}")
    return match[1].strip("[]"), int(match[2])
