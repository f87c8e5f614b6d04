"""The floor view's web server: the page, the board as JSON, and a WebSocket that sends
every tile at once and then each change as it comes.

What a browser may do is bounded as on the table's page: a request must name this machine
(Host) and come from the floor's own page (Origin); streams are capped, in all and per
address; the page sends nothing, so a message to /ws closes it. The headers forbid inline
script and framing.

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

from aiohttp import web

from controller.api.floor.board import Board
from controller.api.listen import host_is_ours
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
    async def logged_in(self, request: web.Request) -> bool:
        if self.access is None:
            return True
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return await self.access.bearer(request.remote or "unknown", auth[len("Bearer "):].strip()) == "operator"
        return self.access.login_of(request.cookies.get(COOKIE)) is not None

    async def session(self, request: web.Request) -> web.Response:
        return web.json_response({"login": self.access is not None, "in": await self.logged_in(request)})

    async def login(self, request: web.Request) -> web.Response:
        if self.access is None:
            return web.json_response({"ok": True})
        body = await request.content.read(MAX_LOGIN_BODY + 1)
        try:
            secret = json.loads(body).get("secret") if len(body) <= MAX_LOGIN_BODY else None
        except (ValueError, AttributeError):
            secret = None
        token, _ = await self.access.login(request.remote or "unknown", "operator", secret)
        response = web.json_response({"ok": True})
        response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/", secure=request.secure)
        log.info("floor view: logged in from %s", request.remote)
        return response

    # ---- the browsers ----
    async def socket(self, request: web.Request) -> web.StreamResponse:
        address = request.remote or "unknown"
        if sum(self._streams.values()) >= MAX_STREAMS or self._streams.get(address, 0) >= MAX_STREAMS_PER_ADDRESS:
            return web.json_response({"error": "too many floor views open; try again later"}, status=503)
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_WS_MESSAGE)
        await ws.prepare(request)
        self._streams[address] = self._streams.get(address, 0) + 1
        queue: asyncio.Queue = asyncio.Queue(BACKLOG + 1)
        queue.put_nowait(json.dumps(self.whole()))
        self._queues.add(queue)
        writer = asyncio.ensure_future(self._write(ws, queue))
        try:
            async for message in ws:  # the page sends nothing: anything it sends ends the stream
                break
        finally:
            self._queues.discard(queue)
            writer.cancel()
            self._streams[address] -= 1
            if not self._streams[address]:
                del self._streams[address]
            await ws.close(code=1008)
        return ws

    @staticmethod
    async def _write(ws: web.WebSocketResponse, queue: asyncio.Queue) -> None:
        while (text := await queue.get()) is not None:
            await ws.send_str(text)
        log.warning("a browser fell %d messages behind: dropped (its page reconnects)", BACKLOG)
        await ws.close()

    async def index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def tables(self, request: web.Request) -> web.Response:
        return web.json_response(self.whole())


VIEW = web.AppKey("view", FloorView)
_OPEN = {"/", "/session", "/login"}  # and the page's files: the rest needs the login


@web.middleware
async def _guard(request: web.Request, handler) -> web.StreamResponse:
    """Host and Origin first (DNS rebinding, other sites' pages); the headers on every reply."""
    origin = request.headers.get("Origin")
    if not host_is_ours(request.host):
        response = web.json_response({"error": "this request does not name this machine (Host)"}, status=403)
    elif origin is not None and urlsplit(origin).netloc != request.host:
        response = web.json_response({"error": "request from another site's page (Origin) refused"}, status=403)
    else:
        response = await _logged_in_first(request, handler)
    if not response.prepared:  # a WebSocket's headers are sent
        response.headers.update(HEADERS)
    return response


async def _logged_in_first(request: web.Request, handler) -> web.StreamResponse:
    view = request.app[VIEW]
    try:
        if request.path not in _OPEN and not request.path.startswith("/static/") and not await view.logged_in(request):
            raise Refusal("unauthorized", "log in with the parlour's operator secret (POST /login)")
        return await handler(request)
    except Refusal as exc:
        status = {"unauthorized": 401, "locked_out": 429}.get(exc.code, 400)
        return web.json_response({"ok": False, "error": {"code": exc.code, "message": exc.message}}, status=status)


def build_app(view: FloorView) -> web.Application:
    app = web.Application(middlewares=[_guard])
    app[VIEW] = view
    app.router.add_get("/session", view.session)
    app.router.add_post("/login", view.login)
    app.router.add_get("/", view.index)
    app.router.add_get("/ws", view.socket)
    app.router.add_get("/tables", view.tables)
    app.router.add_static("/static/", STATIC)
    return app
