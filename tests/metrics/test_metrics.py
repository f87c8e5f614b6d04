"""The table's /metrics: counted from a whole game's events (a jam the operator clears among
them), read on each scrape, served by the handler the table's web server mounts."""
from __future__ import annotations

import asyncio

import aiohttp
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from controller.metrics import TableMetrics, add_metrics
from controller.simulation import run_game
from sim.faults import FaultPlan

from ..support.retry import operator


def samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_a_game_with_a_jam_in_the_metrics():
    kept = {}

    def attach(controller, table):
        kept["metrics"] = TableMetrics(controller, clock=asyncio.get_running_loop().time)
        operator(delay=30.0)(controller, table)

    game = run_game("ema-2016", seed=1, faults=FaultPlan(jam={3: "stacker"}), on_controller=attach)
    got = samples(kept["metrics"].exposition().decode())
    hands = len(game.hands)
    assert got[("mjtable_hands_played_total", ())] == hands
    assert got[("mjtable_games_finished_total", ())] == 1
    # every hand but the first follows a hand change; the jammed one waited for the operator
    assert got[("mjtable_hand_change_seconds_count", ())] == hands - 1
    assert got[("mjtable_hand_change_seconds_bucket", (("le", "20.0"),))] == hands - 2
    assert got[("mjtable_faults_total", (("code", "200"), ("subsystem", "shuffler")))] == 1
    assert got[("mjtable_fault_code", ())] == 0
    stats = game.controller.table.stats
    assert got[("mjtable_link_frames_sent_total", ())] == stats.frames_sent > 0
    assert got[("mjtable_link_resets_total", ())] == stats.sessions == 1
    assert got[("mjtable_uptime_seconds", ())] >= game.elapsed - 1


def test_the_handler_serves_the_text_format_on_a_web_app():
    async def scrape() -> tuple[str, str]:
        async def connect():
            raise ConnectionError("no table in this test")
        from controller import rules as R
        from controller.controller import Controller
        metrics = TableMetrics(Controller(connect, R.load_ruleset("ema-2016")))
        app = web.Application()
        add_metrics(app, metrics)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            async with aiohttp.ClientSession() as session:
                async with session.get(f"http://127.0.0.1:{port}/metrics") as reply:
                    return reply.headers["Content-Type"], await reply.text()
        finally:
            await runner.cleanup()
    content_type, text = asyncio.run(scrape())
    assert content_type.startswith("text/plain; version=")  # the text exposition format
    got = samples(text)
    assert got[("mjtable_hands_played_total", ())] == 0
    assert got[("mjtable_link_retransmits_total", ())] == 0  # not connected: no link yet
    assert ("mjtable_store_bytes", ()) in got
