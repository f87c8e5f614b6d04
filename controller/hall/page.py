"""The hall's page: the tables as the floor view shows them (its board, WebSocket and
script: controller/api/floor/), and above them the standings over the whole field and the
tables that have not reported a round, pushed on the same WebSocket after every result.
Anyone who reaches the page sees it (the big screen); the director's actions are the
`mjtable hall` commands.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from aiohttp import web

from controller.api.floor.web import FloorView, build_app as floor_app
from controller.hall.service import Hall
from controller.hall.standings import ema_points, standings, standings_rows, unreported

STATIC = Path(__file__).with_name("static")


class HallView(FloorView):
    def __init__(self, hall: Hall) -> None:
        super().__init__(hall.board)
        self.hall = hall

    def results_changed(self) -> None:
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

    async def index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def standings_json(self, request: web.Request) -> web.Response:
        return web.json_response(self.standings())


def build_app(view: HallView) -> web.Application:
    app = floor_app(view)
    app.router.add_get("/standings", view.standings_json)
    app.router.add_static("/hall/", STATIC)
    return app
