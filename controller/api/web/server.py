"""The web server: the page's files, the control API over HTTP, the event WebSocket.

Every op goes the socket's way: ``controller.api.check_request`` for its shape, then
``Service.handle``, the replies the socket gives (``controller.api.answer``). What is
added here is who may ask (each op's least role in the op table, controller/api/ops.py, as
access.py applies it) and the limits of a network-facing server. A Starlette application,
served by uvicorn on the controller's loop (controller/api/listen.py: `serve`).
"""
from __future__ import annotations

import asyncio
import hmac
import io
import json
import logging
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from firmware_protocol.log_throttle import LogThrottle

from controller import rules as R
from controller.api.server import ControlHandler, Subscription, answer, check_request, decode_request
from controller.errors import Refusal
from controller.club.journal import WRITERS
from controller.api.assets import Assets
from controller.api.listen import (LOG_INTERVAL, MAX_REQUEST_HEAD, close_websocket, head_too_long, host_is_ours, peer,
                                   refusing, serve)
from controller.api.ops import BY_NAME
from controller.api.web.access import Access, Login, may, role_for

log = logging.getLogger("mjtable.web")

STATIC = Path(__file__).parent / "static"
COOKIE = "mjtable_session"
MAX_BODY = 64 * 1024           # bytes of a request body, as a socket request line
MAX_WS_MESSAGE = 1024          # bytes of one message a page sends (the stream is read-only)
MAX_WS_MESSAGES = 20           # messages a page may send per WS_WINDOW before it is closed
WS_WINDOW = 10.0               # seconds
MAX_WEBSOCKETS = 64            # event streams open at once
MAX_WEBSOCKETS_PER_ADDRESS = 8  # so one client cannot take them all
WS_HEARTBEAT = 30.0            # seconds between pings: a phone that walked away is let go
BODY_TIMEOUT = 10.0            # seconds to send a request's body
KEEPALIVE = 15                 # seconds an idle connection is kept open between requests

# Refusals a client repeats at will: logged once per interval each, the rest counted.
_TOLD = {code: LogThrottle(LOG_INTERVAL) for code in ("locked_out", "forbidden", "busy")}
# The HTTP status of an error reply, by its code; any other code: 400.
STATUS = {"unknown_op": 404, "not_found": 404, "not_allowed": 409, "wrong_hand": 409, "conflict": 409, "busy": 503,
          "store_failed": 503, "internal": 500, "unauthorized": 401, "forbidden": 403, "locked_out": 429,
          "too_large": 413, "timeout": 408}
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
           "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                                      "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"}


@dataclass(frozen=True)
class WebSettings:
    host: str
    port: int
    spectators: str = "open"      # web.spectators
    url: str | None = None        # web.url: the page's address for the players' phones
    rulesets: Path | None = None  # the config's rule-set folder (the names `start` takes)


class WebServer:
    """Serves the page and the API for ``handler`` (use as ``async with``)."""

    def __init__(self, handler: ControlHandler, settings: WebSettings, access: Access, metrics=None) -> None:
        self.handler = handler
        self.settings = settings
        self.access = access
        self.metrics = metrics  # controller.metrics.TableMetrics: served at /metrics
        self._serving = None  # controller.api.listen.Serving, once started
        self._files: Assets | None = None  # the page's files, read when the application is built
        self._streams: dict[WebSocket, str] = {}  # each event stream's address
        self.port: int | None = None  # the bound port (the config's, or the one port 0 gave)

    @property
    def url(self) -> str:
        """The page's address: web.url, else the bound one (on every address: the board's own)."""
        host = self.settings.host if self.settings.host not in ("0.0.0.0", "::", "") else _own_address()
        return self.settings.url or f"http://{f'[{host}]' if ':' in host else host}:{self.port}/"

    # ---- lifecycle ----
    def application(self) -> Starlette:
        names = {self.settings.host} | ({urlsplit(self.settings.url).hostname} if self.settings.url else set())
        routes = [
            Route("/api/status", self._status),
            Route("/api/session", self._session),
            Route("/api/login", self._login, methods=["POST"]),
            Route("/api/logout", self._logout, methods=["POST"]),
            Route("/api/op/{op}", self._op, methods=["POST"]),
            WebSocketRoute("/api/events", self._events),
            Route("/api/journal.{format}", self._journal_file),
            Route("/api/{tail:path}", _no_route, methods=list(_METHODS)),  # before the page's files: a JSON 404
        ]
        if self.metrics is not None:
            routes.append(Route("/metrics", self._metrics))
        if STATIC.is_dir():
            self._files = Assets(STATIC)
            routes += [Route("/", self._index), Route("/{path:path}", self._files.file)]
        return Starlette(routes=routes, exception_handlers={
            Refusal: _refused, HTTPException: _http_error}, middleware=[_host_guard(names)])

    async def start(self) -> None:
        try:
            self._serving = await serve(self.application(), self.settings.host, self.settings.port, headers=HEADERS,
                                        max_ws_message=MAX_WS_MESSAGE, ws_heartbeat=WS_HEARTBEAT, keepalive=KEEPALIVE)
        except OSError as exc:
            raise Refusal("not_allowed", f"cannot serve the web page on {self.settings.host}:{self.settings.port}: "
                                         f"{exc.strerror or exc} (web.listen)") from None
        self.port = self._serving.port
        log.info("web page on %s (listening on %s:%d)", self.url, self.settings.host, self.port)

    async def close(self) -> None:
        if self._serving is not None:
            await self._serving.close()  # the event streams closed with the rest
            self._serving = None

    async def __aenter__(self) -> "WebServer":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ---- who asks ----
    async def _who(self, request: HTTPConnection) -> tuple[str | None, Login | None]:
        """(role, the cookie's login): a bearer secret, else the login cookie, else (None, None)."""
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return await self.access.bearer(peer(request), auth[len("Bearer "):].strip()), None
        login = self.access.login_of(request.cookies.get(COOKIE))
        return (login.role, login) if login else (None, None)

    async def _allowed(self, request: HTTPConnection, needed: str, changes: bool) -> tuple[str | None, Login | None]:
        role, login = await self._who(request)
        if not may(role, needed):
            if role is None:
                raise Refusal("unauthorized", f"this needs the {needed} role: log in (POST /api/login)")
            raise Refusal("forbidden", f"this needs the {needed} role; you are logged in as {role}")
        if changes and login is not None:
            self._check_csrf(request, login)
        return role, login

    async def _allowed_to_read(self, request: HTTPConnection, op: str) -> None:
        """A GET route serves a read op: the op's role; no CSRF token, as it changes nothing."""
        await self._allowed(request, role_for(op, self.settings.spectators), changes=not BY_NAME[op].read)

    def _check_csrf(self, request: HTTPConnection, login: Login) -> None:
        """A request with the login cookie must carry its token, from the page's own origin."""
        self._check_origin(request)
        if not hmac.compare_digest(request.headers.get("X-CSRF-Token", "").encode(), login.csrf.encode()):
            raise Refusal("forbidden", "missing or wrong X-CSRF-Token header (GET /api/session gives the token)")

    def _check_origin(self, request: HTTPConnection) -> None:
        origin = request.headers.get("Origin")
        if origin is None:
            return  # no browser sends a cross-site POST or WebSocket without one
        ours = {request.headers.get("Host")} | ({urlsplit(self.settings.url).netloc} if self.settings.url else set())
        if urlsplit(origin).netloc not in ours:
            raise Refusal("forbidden", "request from another site's page (Origin) refused")

    # ---- routes ----
    async def _index(self, request: Request) -> Response:
        return self._files.reply(request, "index.html")

    async def _status(self, request: Request) -> Response:
        await self._allowed_to_read(request, "status")
        return _reply(await answer(self.handler, "status", {}))

    async def _metrics(self, request: Request) -> Response:
        """Prometheus' scrape: read as the status is (a bearer secret when spectators are not open)."""
        await self._allowed_to_read(request, "status")
        return Response(self.metrics.exposition(), headers={"Content-Type": self.metrics.content_type})

    async def _session(self, request: Request) -> Response:
        role, login = await self._who(request)
        reply = {"ok": True, "role": role or "spectator", "csrf": login.csrf if login else None,
                 "spectators": self.settings.spectators, "url": self.url}
        if role == "operator":  # to show the players (and as a QR code): the operator only
            reply["pin"] = self.access.pin
            playable = getattr(self.handler, "playable_rulesets", None)  # a table's service says what it can play
            reply["rulesets"] = playable(self.settings.rulesets) if playable else \
                sorted(set(R.preset_names()) | set(R.folder_rulesets(self.settings.rulesets)))
        return _reply(reply)

    async def _journal_file(self, request: Request) -> Response:
        """A game's journal as `mjtable journal --format csv|jsonl` writes it, to download."""
        await self._allowed_to_read(request, "journal")
        form = request.path_params["format"]
        write = WRITERS.get(form)
        if write is None:
            raise Refusal("not_found", f"no journal format {form!r}; "
                                       f"known: {', '.join(f'journal.{f}' for f in WRITERS)}")
        game = request.query_params.get("game")
        if game is not None and not re.fullmatch(r"[0-9]{1,9}", game):
            raise Refusal("bad_request", "game must be a game id (an integer)")
        reply = await answer(self.handler, "journal", {"game": int(game)} if game else {})
        if not reply["ok"]:
            return _reply(reply)
        out = io.StringIO()
        write(reply["records"], out)
        name = f"mjtable-game-{reply['game']['id'] if reply['game'] else 'none'}.{form}"
        return Response(out.getvalue(), media_type="text/csv" if write is WRITERS["csv"] else "application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"', **_API})

    async def _login(self, request: Request) -> Response:
        self._check_origin(request)
        body = await _body(request)
        role = body.get("role")
        secret = body.get("pin") if role == "player" else body.get("secret")
        token, login = await self.access.login(peer(request), role, secret)
        response = _reply({"ok": True, "role": login.role, "csrf": login.csrf})
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/",
                            secure=(self.settings.url or "").startswith("https://") or request.url.scheme == "https")
        log.info("web: %s logged in from %s", login.role, peer(request))
        return response

    async def _logout(self, request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        login = self.access.login_of(token)
        if login is not None:
            self._check_csrf(request, login)
        self.access.logout(token)
        response = _reply({"ok": True})
        response.delete_cookie(COOKIE, path="/")
        return response

    async def _op(self, request: Request) -> Response:
        op = request.path_params["op"]
        if op not in BY_NAME:
            raise Refusal("unknown_op", f"unknown op {op!r}; known: {', '.join(o for o in BY_NAME if o != 'subscribe')}")
        if op == "subscribe":
            raise Refusal("bad_request", "subscribe: over HTTP the events come on the WebSocket GET /api/events")
        await self._allowed(request, role_for(op, self.settings.spectators), changes=True)
        body = await _body(request)
        if "op" in body:  # the path names the op: one in the body as well is a mistake, not a choice
            raise Refusal("bad_request", f"{op}: unknown argument 'op' (the op is named by the path)")
        op, args = check_request({**body, "op": op})
        return _reply(await answer(self.handler, op, args))

    async def _events(self, ws: WebSocket) -> None:
        try:
            await self._allowed_to_read(ws, "subscribe")
            self._check_origin(ws)
            if len(self._streams) >= MAX_WEBSOCKETS:
                raise Refusal("busy", f"{MAX_WEBSOCKETS} event streams are open, the limit; try again later")
            if list(self._streams.values()).count(peer(ws)) >= MAX_WEBSOCKETS_PER_ADDRESS:
                raise Refusal("busy", f"{MAX_WEBSOCKETS_PER_ADDRESS} event streams are open from this address, the limit")
        except Refusal as exc:
            await ws.send_denial_response(_refused(ws, exc))
            return
        await ws.accept()
        self._streams[ws] = peer(ws)
        events = Subscription(self.handler)  # before the snapshot: no change falls between
        sender = None
        try:
            status = await answer(self.handler, "status", {})
            status.pop("ok")
            await ws.send_text(json.dumps({"event": "snapshot", "status": status}, separators=(",", ":")))
            sender = asyncio.ensure_future(self._send_events(ws, events))
            await self._drop_client_messages(ws)
        except WebSocketDisconnect:
            pass  # gone while the snapshot was sent
        finally:
            events.close()
            if sender is not None:
                sender.cancel()
            self._streams.pop(ws, None)
            await close_websocket(ws)

    @staticmethod
    async def _send_events(ws: WebSocket, events: Subscription) -> None:
        try:
            while (text := await events.next()) is not None:
                await ws.send_text(text)
        except WebSocketDisconnect:
            return  # the page is gone: the reader sees it too
        await close_websocket(ws)

    @staticmethod
    async def _drop_client_messages(ws: WebSocket) -> None:
        """The stream is read-only: what a page sends is dropped; a flood closes it."""
        window_start, count = time.monotonic(), 0
        while (await ws.receive())["type"] != "websocket.disconnect":
            now = time.monotonic()
            if now - window_start > WS_WINDOW:
                window_start, count = now, 0
            count += 1
            if count > MAX_WS_MESSAGES:
                await close_websocket(ws, 1008, "too many messages: the event stream is read-only")
                break


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
_API = {"Cache-Control": "no-store"}  # on every /api/ reply


async def _no_route(request: Request) -> Response:
    raise Refusal("not_found", f"no route {request.method} {request.url.path} (docs/API.md, HTTP and WebSocket)")


def _own_address() -> str:
    """The board's address on its default route (what a phone on its network reaches), or loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # a documentation address: a route lookup, nothing is sent
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


async def _body(request: Request) -> dict:
    """The JSON object of a request body (empty: no arguments), checked as a socket line is."""
    try:
        raw = await asyncio.wait_for(_read(request), BODY_TIMEOUT)
    except asyncio.TimeoutError:
        raise Refusal("timeout", f"no whole request body in {BODY_TIMEOUT:g} s") from None
    return decode_request(raw) if raw.strip() else {}


async def _read(request: Request) -> bytes:
    """The body, up to MAX_BODY bytes (Starlette's own limit answers in plain text)."""
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise Refusal("too_large", f"body longer than {MAX_BODY} bytes")
    return bytes(raw)


def _reply(reply: dict) -> Response:
    status = 200 if reply.get("ok") else STATUS.get(reply["error"]["code"], 400)
    headers = {**_API, "Retry-After": str(reply["error"].get("retry_after", 60))} if status == 429 else _API
    return Response(json.dumps(reply, separators=(",", ":")), status, headers, media_type="application/json")


def _refused(request: HTTPConnection, exc: Refusal) -> Response:
    """Every refusal as a JSON error reply; the ones a client repeats at will logged sparingly."""
    if exc.code in _TOLD:
        _TOLD[exc.code].warning(log, time.monotonic(), "web: refused a request from %s: %s", peer(request),
                                exc.message, held_back="more such refusals not logged")
    return _reply({"ok": False, "error": {"code": exc.code, "message": exc.message, **exc.details}})


def _http_error(request: Request, exc: HTTPException) -> Response:
    """Starlette's own refusals (not found, wrong method) as a JSON error reply under /api/."""
    if not request.url.path.startswith("/api/"):
        return Response(exc.detail, exc.status_code, exc.headers, media_type="text/plain")
    code = {404: "not_found", 405: "bad_method"}.get(exc.status_code, "bad_request")
    return Response(json.dumps({"ok": False, "error": {"code": code, "message": exc.detail}}), exc.status_code,
                    {**(exc.headers or {}), **_API}, media_type="application/json")


def _host_guard(names: set[str]) -> Middleware:
    """A request must name this machine (or the configured address): DNS rebinding refused;
    and its headers must be of a sane size."""
    names = frozenset(name for name in names if name)

    async def refusal(scope) -> Response | None:
        if head_too_long(scope):
            refused = Refusal("too_large", f"request headers longer than {MAX_REQUEST_HEAD} bytes")
        elif not host_is_ours(Headers(scope=scope).get("host"), names):
            refused = Refusal("forbidden", "this request does not name this table (Host); use the page's address")
        else:
            return None
        return _refused(HTTPConnection(scope), refused)
    return refusing(refusal)
