"""A listening address as the commands and the table config take it (``HOST:PORT``), and
what every network-facing web server here shares: uvicorn on the controller's own loop
(`serve`), the Host check, a cap on connections below the process's file limit, and a log
that a flood of bad requests cannot fill. uvicorn is imported by `serve` alone: parsing an
address loads no web server."""
from __future__ import annotations

import asyncio
import contextlib
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
BACKLOG = 128               # connections accepted per turn of the loop (uvicorn's 2,048 would take every
                            # file in one burst, before the cap has counted any of them)
MAX_REQUEST_HEAD = 8190      # bytes of a request line and its headers: more is refused (400)
SHUTDOWN_GRACE = 2           # seconds open requests are given at close
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


def capped_protocol(limit: int = MAX_HTTP_CONNECTIONS, what: str = "web"):
    """uvicorn's HTTP protocol (h11), but past ``limit`` open connections (WebSockets
    included) a new one is turned away: idle ones never starve the process of files.
    (uvicorn's own ``limit_concurrency`` answers them 503 but keeps them open.)"""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:
            """The keep-alive timer armed from the start, not after a first reply: a
            connection that never sends a request is closed as an idle one is."""
            super().connection_made(transport)
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                self.timeout_keep_alive_handler)

    throttle = LogThrottle(LOG_INTERVAL)

    def protocol(config, server_state, app_state, _loop=None) -> asyncio.Protocol:
        if len(server_state.connections) >= limit:
            throttle.warning(log, time.monotonic(), "%s: %d connections open, the limit; refusing another",
                             what, limit, held_back=_HELD_BACK)
            return _TurnAway()
        return Protocol(config, server_state, app_state, _loop)
    return protocol


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

    def tell(self, kind: str) -> None:
        """The same line for a refusal the application finds itself."""
        held = self._throttle.allow(time.monotonic())
        if held is not None:
            log.warning(self.summary + (f" ({held} {_HELD_BACK})" if held else ""), kind)

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


# What uvicorn logs (as constant text, never the peer's bytes) of what a peer sends at will.
_PEER_FAULTS = {"Invalid HTTP request received.": "not HTTP, or a header too long",
                "Unsupported upgrade request.": "an upgrade to other than a WebSocket"}


def _bad_request(record: logging.LogRecord) -> str | None:
    return _PEER_FAULTS.get(str(record.msg))


def _accept_failed(record: logging.LogRecord) -> str | None:
    exc = record.exc_info[1] if record.exc_info else None
    text = str(record.msg)
    return (getattr(exc, "strerror", None) or "out of system resources") if text.startswith(
        "socket.accept() out of system resource") else None


_FILTERS = {"uvicorn.error": _Throttled("web: refused a malformed request (%s)", _bad_request),
            "asyncio": _Throttled("web: cannot accept a connection: %s", _accept_failed)}


def head_too_long(scope) -> bool:
    """A request's line and headers past MAX_REQUEST_HEAD bytes, told as a malformed request.
    (h11 bounds only a head that comes in pieces; one that comes whole is checked here.)"""
    size = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b"")) + sum(
        len(name) + len(value) + 4 for name, value in scope["headers"])
    if size <= MAX_REQUEST_HEAD:
        return False
    _FILTERS["uvicorn.error"].tell("a header too long")
    return True


def quiet_server_logs() -> None:
    """Install the filters (once): malformed requests and failed accepts, throttled and bare."""
    for name, throttled in _FILTERS.items():
        logger = logging.getLogger(name)
        if throttled not in logger.filters:
            logger.addFilter(throttled)


def _listener(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``, as asyncio binds one. Its protocol named
    (socket.create_server leaves it 0): asyncio sets TCP_NODELAY on a connection only then,
    and without it a reply's head and body, two writes, wait on the peer's delayed ACK
    (some 40 ms a request)."""
    family, kind, proto, _, address = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        listener.bind(address)
    except OSError:
        listener.close()
        raise
    return listener


class Serving:
    """An ASGI application served by uvicorn (h11, wsproto) as a task of the running loop:
    no signal handlers of its own (the caller's stay), no lifespan, no access log."""

    def __init__(self, server, task: asyncio.Task, port: int) -> None:
        self._server, self._task = server, task
        self.port = port  # the bound one (port 0: the one the system gave)

    async def close(self) -> None:
        self._server.should_exit = True  # uvicorn's own way out: open connections closed, then the sockets
        self._server.exit.set()
        await self._task


async def serve(app, host: str, port: int, *, what: str = "web", headers: dict[str, str] | None = None,
                max_ws_message: int = 1024, ws_heartbeat: float = 20.0, keepalive: float = 5.0) -> Serving:
    """Serve ``app`` on ``host:port`` (OSError if it cannot be bound), with the guard every
    web server here gets: the file limit raised, connections capped, a quiet log; ``headers``
    on every HTTP reply, a WebSocket message past ``max_ws_message`` bytes closing it, a
    peer that does not answer a ping within ``ws_heartbeat`` seconds let go."""
    import uvicorn

    class Server(uvicorn.Server):
        """No signal handlers of its own, and a tick a second, not uvicorn's ten: the Date
        header's resolution (an idle board wakes for nothing else); a close is seen at once."""

        def __init__(self, config) -> None:
            super().__init__(config)
            self.exit = asyncio.Event()

        @contextlib.contextmanager
        def capture_signals(self):
            yield

        async def main_loop(self) -> None:
            counter = 0
            while not await self.on_tick(counter):
                counter += 10  # on_tick refreshes the headers on every tenth
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.exit.wait(), 1.0)

    raise_file_limit()
    quiet_server_logs()
    listener = _listener(host, port)
    config = uvicorn.Config(app, http=capped_protocol(what=what), ws="wsproto", lifespan="off", interface="asgi3",
                            log_config=None, log_level=logging.WARNING, access_log=False, proxy_headers=False,
                            server_header=False, headers=list((headers or {}).items()),
                            h11_max_incomplete_event_size=MAX_REQUEST_HEAD, timeout_keep_alive=keepalive,
                            ws_max_size=max_ws_message, ws_ping_interval=ws_heartbeat, ws_ping_timeout=ws_heartbeat,
                            ws_per_message_deflate=False, timeout_graceful_shutdown=SHUTDOWN_GRACE, backlog=BACKLOG)
    server = Server(config)
    task = asyncio.ensure_future(server.serve(sockets=[listener]))
    while not server.started and not task.done():  # a few turns of the loop: the socket is bound already
        await asyncio.sleep(0.01)
    if task.done():
        listener.close()
        task.result()  # uvicorn's own failure, raised here
    return Serving(server, task, listener.getsockname()[1])


def peer(request) -> str:
    """The address a request (or a WebSocket) came from."""
    return request.client.host if request.client else "unknown"


async def close_websocket(ws, code: int = 1000, reason: str = "") -> None:
    """Close a Starlette WebSocket unless it is closed (by us, or by the browser)."""
    from starlette.websockets import WebSocketDisconnect, WebSocketState

    if ws.application_state is WebSocketState.CONNECTED and ws.client_state is WebSocketState.CONNECTED:
        try:
            await ws.close(code, reason)
        except (WebSocketDisconnect, RuntimeError):
            pass  # closed meanwhile: nothing more to say


def refusing(check):
    """A Starlette middleware: the reply ``await check(scope)`` gives is sent instead of the
    application's (a WebSocket refused with it); None lets the request through."""
    from starlette.middleware import Middleware
    from starlette.websockets import WebSocket

    class Refusing:
        def __init__(self, app) -> None:
            self.app = app

        async def __call__(self, scope, receive, send) -> None:
            refused = await check(scope) if scope["type"] in ("http", "websocket") else None
            if refused is None:
                await self.app(scope, receive, send)
            elif scope["type"] == "websocket":
                await WebSocket(scope, receive, send).send_denial_response(refused)
            else:
                await refused(scope, receive, send)
    return Middleware(Refusing)
