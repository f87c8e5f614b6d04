"""The floor view's web server: the page, the board as JSON, and a WebSocket that sends
every tile at once and then each change as it comes.

What a browser may do is bounded as on the table's page: a request must name this machine
(Host) and come from the floor's own page (Origin); streams are capped, in all and per
address; the page sends nothing, so a message to /ws closes it. The headers (HEADERS, on
every reply as `mjtable floor` serves the page) forbid inline script and framing.

Each browser gets its own bounded queue, written by a task of its own, so a slow or gone
browser never holds up the others or the broker's messages; one that falls that far
behind is dropped (its page reconnects and gets the whole board again).
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.api.assets import Assets
from controller.api.floor.board import Board
from controller.api.listen import close_websocket, head_too_long, host_is_ours, peer, refusing
from controller.api.web.access import Access
from controller.errors import Refusal

log = logging.getLogger("mjtable.floor")
STATIC = Path(__file__).with_name("static")
BACKLOG = 1000  # messages a browser may fall behind before it is dropped
COOKIE = "mjtable_floor"
MAX_LOGIN_BODY = 1024  # bytes of a login request
MAX_STREAMS = 64        # WebSockets open at once
MAX_STREAMS_PER_ADDRESS = 8
MAX_WS_MESSAGE = 1024   # bytes: the page sends nothing
WS_HEARTBEAT = 20.0     # seconds between pings: a browser that went away is let go
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
           "Content-Security-Policy": "default-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
                                      "base-uri 'none'; form-action 'none'"}


class FloorView:
    """``access``: the parlour's operator secret, which opens the floor (None: open to all)."""

    def __init__(self, board: Board, access: Access | None = None) -> None:
        self.board = board
        self.access = access
        self.broker: dict[str, Any] = {"up": False, "why": "not connected yet"}
        self._queues: set[asyncio.Queue] = set()
        self._streams: dict[str, int] = {}  # open WebSockets by address
        self.files = Assets(STATIC)  # the floor's page and its files (/static/)

    # ---- from the subscription ----
    def changed(self, table_id: str) -> None:
        tile = self.board.tile(table_id)
        self._send({"type": "tile", "tile": tile} if tile else {"type": "gone", "table_id": table_id})

    def broker_state(self, up: bool, why: str | None) -> None:
        self.broker = {"up": up, "why": why}
        self._send({"type": "broker", **self.broker})

    def _send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message)
        for queue in list(self._queues):
            if queue.full():
                self._queues.discard(queue)
                queue.put_nowait(None)  # the slot kept for the end: the writer closes it
            else:
                queue.put_nowait(text)

    def whole(self) -> dict[str, Any]:
        return {"type": "floor", "prefix": self.board.prefix, "broker": self.broker, "server_time": time.time(),
                "tiles": self.board.tiles_as_dicts()}

    # ---- who may look ----
    async def logged_in(self, request: HTTPConnection) -> bool:
        if self.access is None:
            return True
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return await self.access.bearer(peer(request), auth[len("Bearer "):].strip()) == "operator"
        return self.access.login_of(request.cookies.get(COOKIE)) is not None

    async def session(self, request: Request) -> Response:
        return JSONResponse({"login": self.access is not None, "in": await self.logged_in(request)})

    async def login(self, request: Request) -> Response:
        if self.access is None:
            return JSONResponse({"ok": True})
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_LOGIN_BODY:
                break
        try:
            secret = json.loads(body).get("secret") if len(body) <= MAX_LOGIN_BODY else None
        except (ValueError, AttributeError):
            secret = None
        token, _ = await self.access.login(peer(request), "operator", secret)
        response = JSONResponse({"ok": True})
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/",
                            secure=request.url.scheme == "https")
        log.info("floor view: logged in from %s", peer(request))
        return response

    # ---- the browsers ----
    async def socket(self, ws: WebSocket) -> None:
        address = peer(ws)
        if sum(self._streams.values()) >= MAX_STREAMS or self._streams.get(address, 0) >= MAX_STREAMS_PER_ADDRESS:
            await ws.send_denial_response(JSONResponse({"error": "too many floor views open; try again later"}, 503))
            return
        await ws.accept()
        self._streams[address] = self._streams.get(address, 0) + 1
        queue: asyncio.Queue = asyncio.Queue(BACKLOG + 1)
        queue.put_nowait(json.dumps(self.whole()))
        self._queues.add(queue)
        writer = asyncio.ensure_future(self._write(ws, queue))
        try:
            await ws.receive()  # the page sends nothing: anything it sends (or its leaving) ends the stream
        finally:
            self._queues.discard(queue)
            writer.cancel()
            self._streams[address] -= 1
            if not self._streams[address]:
                del self._streams[address]
            await close_websocket(ws, 1008)

    @staticmethod
    async def _write(ws: WebSocket, queue: asyncio.Queue) -> None:
        try:
            while (text := await queue.get()) is not None:
                await ws.send_text(text)
        except WebSocketDisconnect:
            return  # the browser is gone: the reader sees it too
        log.warning("a browser fell %d messages behind: dropped (its page reconnects)", BACKLOG)
        await close_websocket(ws)

    async def index(self, request: Request) -> Response:
        return self.files.reply(request, "index.html")

    async def tables(self, request: Request) -> Response:
        return JSONResponse(self.whole())


def refused(request: HTTPConnection, exc: Refusal) -> Response:
    """A refusal (a login's, a director's) as a JSON error reply."""
    status = {"unauthorized": 401, "locked_out": 429}.get(exc.code, 400)
    return JSONResponse({"ok": False, "error": {"code": exc.code, "message": exc.message}}, status)


_OPEN = {"/", "/session", "/login"}  # and the page's files: the rest needs the login


def _guard(view: FloorView) -> Middleware:
    """Host and Origin first (DNS rebinding, other sites' pages), then the login."""
    async def refusal(scope) -> Response | None:
        conn = HTTPConnection(scope)
        origin = conn.headers.get("Origin")
        if head_too_long(scope):
            return JSONResponse({"error": "request headers too long"}, 413)
        if not host_is_ours(conn.headers.get("Host")):
            return JSONResponse({"error": "this request does not name this machine (Host)"}, 403)
        if origin is not None and urlsplit(origin).netloc != conn.headers.get("Host"):
            return JSONResponse({"error": "request from another site's page (Origin) refused"}, 403)
        path = scope["path"]
        try:
            if path not in _OPEN and not path.startswith("/static/") and not await view.logged_in(conn):
                raise Refusal("unauthorized", "log in with the parlour's operator secret (POST /login)")
        except Refusal as exc:
            return refused(conn, exc)
        return None
    return refusing(refusal)


def build_app(view: FloorView, routes: list[BaseRoute] = ()) -> Starlette:
    """The floor's page (and ``routes`` besides: the hall's)."""
    return Starlette(routes=[
        Route("/session", view.session),
        Route("/login", view.login, methods=["POST"]),
        Route("/", view.index),
        WebSocketRoute("/ws", view.socket),
        Route("/tables", view.tables),
        Route("/static/{path:path}", view.files.file),
        *routes,
    ], middleware=[_guard(view)], exception_handlers={Refusal: refused})
