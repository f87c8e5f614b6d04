"""A listening address as the commands and the table config take it: ``HOST:PORT``."""
from __future__ import annotations

WHAT = "HOST:PORT, e.g. 127.0.0.1:9108 or 0.0.0.0:9108 ([::1]:9108 for IPv6; port 0: any free port)"


def parse_listen(text: str) -> tuple[str, int]:
    """(host, port); ValueError says what is wrong."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{text!r}: not {WHAT}")
    return host.strip("[]"), int(port)
