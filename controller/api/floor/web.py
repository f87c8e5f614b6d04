"""The floor view's web server: the page, the board as JSON, and a WebSocket that sends
every tile at once and then each change as it comes.

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

from aiohttp import WSMsgType, web

from controller.api.floor.board import Board

log = logging.getLogger("mjtable.floor")
STATIC = Path(__file__).with_name("static")
BACKLOG = 1000  # messages a browser may fall behind before it is dropped


class FloorView:
    def __init__(self, board: Board) -> None:
        self.board = board
        self.broker: dict[str, Any] = {"up": False, "why": "not connected yet"}
        self._queues: set[asyncio.Queue] = set()

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

    # ---- the browsers ----
    async def socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        queue: asyncio.Queue = asyncio.Queue(BACKLOG + 1)
        queue.put_nowait(json.dumps(self.whole()))
        self._queues.add(queue)
        writer = asyncio.ensure_future(self._write(ws, queue))
        try:
            async for message in ws:  # the page sends nothing; this waits for it to go
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self._queues.discard(queue)
            writer.cancel()
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


def build_app(view: FloorView) -> web.Application:
    app = web.Application()
    app.router.add_get("/", view.index)
    app.router.add_get("/ws", view.socket)
    app.router.add_get("/tables", view.tables)
    app.router.add_static("/static/", STATIC)
    return app
