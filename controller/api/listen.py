"""A listening address as the commands and the table config take it: ``HOST:PORT``."""
from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

WHAT = "HOST:PORT (0.0.0.0:8080 on every address, 127.0.0.1:8080 this board only; [::]:8080 for IPv6; port 0: any free port)"
_LISTEN = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$")


def parse_listen(text: str) -> tuple[str, int]:
    """(host, port) of ``HOST:PORT`` / ``[IPv6]:PORT``; ValueError says what is wrong."""
    match = _LISTEN.match(text)
    if not match or int(match[2]) > 65535:
        raise ValueError(f"{text!r}: not {WHAT}")
    return match[1].strip("[]"), int(match[2])


def host_is_ours(host_header: str | None, names: frozenset[str] = frozenset()) -> bool:
    """A request's Host names this machine: an IP address, localhost, the machine's own name,
    or one of ``names`` (a configured address). A page of a foreign name whose DNS was made to
    point here (DNS rebinding) carries that foreign name, and is refused."""
    if not host_header:
        return False
    host = urlsplit(f"//{host_header}").hostname or ""
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    own = socket.gethostname().lower()
    return host in {"localhost", own, f"{own}.local"} | {name.lower() for name in names}
