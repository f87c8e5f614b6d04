"""A listening address as the commands and the table config take it (``HOST:PORT``), and
what every network-facing web server here shares: the Host check, a cap on connections
below the process's file limit, and a log that a flood of bad requests cannot fill."""
from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import resource
import socket
import time
from urllib.parse import urlsplit

from firmware_protocol.log_throttle import LogThrottle

log = logging.getLogger("mjtable.api")

MAX_HTTP_CONNECTIONS = 256  # open at once per web server: with the control socket's 64, below 1,024 files
LOG_INTERVAL = 10.0         # seconds: at most one line per kind of refusal, the rest counted
_HELD_BACK = "more like it not logged"

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


class _TurnAway(asyncio.Protocol):
    """A connection past the cap: closed as it opens, its file freed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.abort()


def cap_connections(server, limit: int = MAX_HTTP_CONNECTIONS, what: str = "web") -> None:
    """Past ``limit`` open connections of ``server`` (an aiohttp ``web.Server``, the protocol
    factory of its sites) a new one is turned away: idle ones never starve the process of files."""
    throttle = LogThrottle(LOG_INTERVAL)

    class Capped(type(server)):
        def __call__(self, *args, **kwargs):
            if len(self.connections) >= limit:
                throttle.warning(log, time.monotonic(), "%s: %d connections open, the limit; refusing another",
                                 what, limit, held_back=_HELD_BACK)
                return _TurnAway()
            return super().__call__(*args, **kwargs)
    server.__class__ = Capped


def raise_file_limit() -> int:
    """The soft limit of open files raised to the hard one (systemd's LimitNOFILE); the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class _Throttled(logging.Filter):
    """A record of a kind a peer can cause at will, told once per LOG_INTERVAL without its
    traceback (which would quote the peer's bytes: a header, a secret)."""

    def __init__(self, summary: str, matches) -> None:
        super().__init__()
        self.summary, self.matches = summary, matches
        self._throttle = LogThrottle(LOG_INTERVAL)

    def filter(self, record: logging.LogRecord) -> bool:
        kind = self.matches(record)
        if kind is None:
            return True
        held = self._throttle.allow(time.monotonic())
        if held is None:
            return False
        record.msg = self.summary + (f" ({held} {_HELD_BACK})" if held else "")
        record.args = (kind,)
        record.exc_info = record.exc_text = record.stack_info = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _bad_request(record: logging.LogRecord) -> str | None:
    from aiohttp.http_exceptions import HttpProcessingError
    exc = record.exc_info[1] if record.exc_info else None
    return type(exc).__name__ if isinstance(exc, HttpProcessingError) else None


def _accept_failed(record: logging.LogRecord) -> str | None:
    exc = record.exc_info[1] if record.exc_info else None
    text = str(record.msg)
    return (getattr(exc, "strerror", None) or "out of system resources") if text.startswith(
        "socket.accept() out of system resource") else None


_FILTERS = {"aiohttp.server": _Throttled("web: refused a malformed request (%s)", _bad_request),
            "asyncio": _Throttled("web: cannot accept a connection: %s", _accept_failed)}


def quiet_server_logs() -> None:
    """Install the filters (once): malformed requests and failed accepts, throttled and bare."""
    for name, throttled in _FILTERS.items():
        logger = logging.getLogger(name)
        if throttled not in logger.filters:
            logger.addFilter(throttled)


def guard_server(server, what: str = "web") -> None:
    """What every web server here gets once set up: files, connections, a quiet log."""
    raise_file_limit()
    cap_connections(server, what=what)
    quiet_server_logs()
