"""The table's /metrics: counted from a whole game's events (a jam the operator clears among
them), read on each scrape, served by the handler the table's web server mounts."""
from __future__ import annotations

import asyncio

from prometheus_client.parser import text_string_to_metric_families

from controller.api.metrics import TableMetrics
from controller.app.simulation import run_game
from controller.store.database import Store
from sim.faults import FaultPlan

from ...support.retry import operator


def samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_a_game_with_a_jam_in_the_metrics_and_the_faults_log(short_tmp):
    kept = {}

    def attach(controller, table):
        kept["metrics"] = TableMetrics(controller.subscribe, controller.faults, controller.table, controller.reminders, clock=asyncio.get_running_loop().time)

        def scrape_during_the_fault(event):
            kept["during"] = samples(kept["metrics"].exposition().decode())
        operator(delay=30.0, on_fault=scrape_during_the_fault)(controller, table)

    with Store(short_tmp / "state.db") as store:
        game = run_game("ema-2016", seed=1, faults=FaultPlan(jam={3: "stacker"}), on_controller=attach, store=store)
        assert store.fault_counts() == {(200, "shuffler"): 1}  # once, as the metrics count it
        assert store.counts()["faults"] == 1
    got = samples(kept["metrics"].exposition().decode())
    hands = len(game.hands)
    assert got[("mjtable_hands_played_total", ())] == hands
    assert got[("mjtable_games_finished_total", ())] == 1
    # every hand but the first follows a hand change; the jammed one waited for the operator
    assert got[("mjtable_hand_change_seconds_count", ())] == hands - 1
    assert got[("mjtable_hand_change_seconds_bucket", (("le", "20.0"),))] == hands - 2
    assert got[("mjtable_faults_total", (("code", "200"), ("subsystem", "shuffler")))] == 1
    # the fault in play as labels (docs/FLOOR.md): 1 with its code and name, 0 once cleared
    assert kept["during"][("mjtable_fault_active", (("code", "200"), ("name", "jam")))] == 1
    assert got[("mjtable_fault_active", (("code", ""), ("name", "")))] == 0
    assert not any(name == "mjtable_fault_code" for name, _ in got)  # a code is a label, not a value
    stats = game.controller.table.stats
    assert got[("mjtable_link_frames_sent_total", ())] == stats.frames_sent > 0
    assert got[("mjtable_link_resets_total", ())] == stats.sessions == 1
    assert got[("mjtable_uptime_seconds", ())] >= game.elapsed - 1


def test_a_jam_met_again_after_a_lost_link_is_counted_and_logged_once(short_tmp):
    # The table is still stopped on the jam when the line comes back: the reconnect finds
    # the fault it knows, not a new one.
    kept, told = {}, []

    def attach(controller, table):
        kept["metrics"] = TableMetrics(controller.subscribe, controller.faults, controller.table, controller.reminders, clock=asyncio.get_running_loop().time)

        def cut_the_line(event):
            told.append(event)
            if len(told) == 1:
                asyncio.get_running_loop().call_later(1.0, table.firmware.detach)
        operator(delay=30.0, on_fault=cut_the_line)(controller, table)

    with Store(short_tmp / "state.db") as store:
        game = run_game("ema-2016", seed=1, faults=FaultPlan(jam={3: "stacker"}), on_controller=attach, store=store)
        assert store.fault_counts() == {(200, "shuffler"): 1}
    assert sum(1 for r in game.trace if r.name == "identify") == 2  # the line was cut, and connected again
    assert [(e["code"], e["state"]) for e in told] == [(200, "fault")]
    got = samples(kept["metrics"].exposition().decode())
    assert got[("mjtable_faults_total", (("code", "200"), ("subsystem", "shuffler")))] == 1
    assert ("mjtable_faults_total", (("code", "200"), ("subsystem", "none"))) not in got
