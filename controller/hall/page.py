"""The hall's page: the tables as the floor view shows them (its board, WebSocket and
script: controller/api/floor/; each tile with its table's time left), and above them the standings over the whole field and the
tables that have not reported a round, pushed on the same WebSocket after every result.
Anyone who reaches the page sees it (the big screen). The director's actions (a
correction, the orders to the tables) are POSTs that need the hall's operator secret as a
bearer token, checked as a table's web page checks its own (controller/api/web/access.py:
a salted hash, wrong secrets locked out).
"""
from __future__ import annotations

import asyncio
from dataclasses import asdict
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.api.assets import Assets
from controller.api.floor.board import Board
from controller.api.floor.broker import Connection
from controller.api.floor.web import FloorView, build_app as floor_app
from controller.api.listen import peer
from controller.api.web.access import Access
from controller.errors import Refusal
from controller.hall import orders
from controller.hall.service import Hall
from controller.hall.standings import ema_points, standings, standings_rows, unreported
from controller.hall.store import HallStoreError

STATIC = Path(__file__).with_name("static")
COALESCE = 0.1  # seconds: the standings are pushed at most this often


class HallBoard(Board):
    """The floor's board, each tile with its game's clock (the status' ``time_limit``: the
    page counts down to its ``ends_at``)."""

    def tile(self, table_id: str) -> dict[str, Any] | None:
        tile = super().tile(table_id)
        return tile and {**tile, "time_limit": self.tiles[table_id].status.get("time_limit")}

    def tiles_as_dicts(self) -> list[dict[str, Any]]:
        return [self.tile(t) for t in sorted(self.tiles)]


class HallView(FloorView):
    def __init__(self, hall: Hall, director: Access, connection: Connection) -> None:
        super().__init__(hall.board)  # no login to watch: spectators see the tables and the standings
        self.hall = hall
        self.director = director  # the hall's operator secret, for the director's actions
        self.connection = connection
        self._push: asyncio.TimerHandle | None = None
        self.hall_files = Assets(STATIC)  # the hall's page and its own files (/hall/); the floor's at /static/

    def results_changed(self) -> None:
        """The standings pushed after a result or a correction; a burst of them (the whole
        field's games ending together) coalesced into one push every ``COALESCE`` seconds."""
        if self._push is None:
            self._push = asyncio.get_running_loop().call_later(COALESCE, self._push_standings)

    def _push_standings(self) -> None:
        self._push = None
        self._send(self.standings())

    def standings(self) -> dict[str, Any]:
        s = self.hall.store
        results, seating = s.results(), s.seating()
        rows = standings_rows(standings(s.players(), results, seating, s.corrections()))
        for row in rows:
            row["table_points"] = ema_points(row["table_points"])
        rounds = sorted({t.round for t in seating})
        return {"type": "standings", "standings": rows, "results": len(results),
                "unreported": {r: unreported(s.tables(), seating, results, r) for r in rounds}}

    async def index(self, request: Request) -> Response:
        return self.hall_files.reply(request, "index.html")

    async def standings_json(self, request: Request) -> Response:
        return JSONResponse(self.standings())


    # ---- the director's ----
    async def _director(self, request: Request) -> dict:
        """The request's JSON body once its bearer secret is the hall's; Refusal."""
        scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
        if scheme.casefold() != "bearer" or not token.strip():
            raise Refusal("unauthorized", "the director's actions need the hall's operator secret")
        await self.director.bearer(peer(request), token.strip())
        try:
            body = await request.json()
        except ValueError:
            raise Refusal("bad_json", "the body is not JSON") from None
        if not isinstance(body, dict):
            raise Refusal("bad_request", "the body is a JSON object")
        return body

    async def correct(self, request: Request) -> Response:
        body = await self._director(request)
        args = [body.get(k) for k in ("player", "points", "who", "why")]
        if not (all(isinstance(v, int) and not isinstance(v, bool) for v in args[:2])
                and all(isinstance(v, str) and v.strip() for v in args[2:])):
            raise Refusal("bad_request", 'a correction is {"player": N, "points": N, "who": "...", "why": "..."}')
        try:
            made = await asyncio.to_thread(self.hall.store.correct, *args, body.get("round"))
        except HallStoreError as exc:
            raise Refusal("bad_request", str(exc)) from None
        self.results_changed()
        return JSONResponse({"ok": True, "correction": asdict(made)})

    async def order(self, request: Request) -> Response:
        """An order to every table (controller/hall/orders.py): the seating, a start, a signal."""
        body = await self._director(request)
        request_, done = self._order(body)
        if (why := orders.too_large(request_)) is not None:
            raise Refusal("too_large", why)
        tables = self.hall.store.tables()
        replies = await orders.send(self.connection, self.board.prefix, tables, request_)
        return JSONResponse({"ok": all(r is not None and r.get("ok") for r in replies.values()),
                                  "tables": orders.answer_lines(tables, replies, done, orders.ANSWER_TIMEOUT)})

    def _order(self, body: dict) -> tuple[dict, str]:
        store, order = self.hall.store, body.get("order")
        if order == "seating":
            return orders.schedule_request(store.players(), store.seating()), "the seating is taken"
        if order == "start" and isinstance(body.get("round"), int):
            return {"op": "start", "round": body["round"]}, f"round {body['round']} started"
        if order == "signal" and body.get("signal") in ("start", "warning"):
            return {"op": "signal", "signal": body["signal"]}, f"{body['signal']} signal given"
        raise Refusal("bad_request", 'an order is {"order": "seating"}, {"order": "start", "round": N} or '
                                     '{"order": "signal", "signal": "start" | "warning"}')


def build_app(view: HallView):
    return floor_app(view, [
        Route("/standings", view.standings_json),
        Route("/api/correct", view.correct, methods=["POST"]),
        Route("/api/tables", view.order, methods=["POST"]),
        Route("/hall/{path:path}", view.hall_files.file),
    ])
