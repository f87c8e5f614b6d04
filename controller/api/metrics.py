"""The table's Prometheus metrics (`GET /metrics`, the text exposition format).

Counted from the controller's events as they happen (hands, games, faults, resets, the
hand change) and read on each scrape (the link's statistics, uptime, the store's size,
the fault in play, the maintenance reminders), in a registry of the table's own, so
nothing else in the process shows up in it. docs/FLOOR.md lists every metric.

The table's web server (controller/api/web/server.py) serves them at `/metrics` when the table
config has a ``web:`` section.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

from prometheus_client import (CONTENT_TYPE_LATEST, PLATFORM_COLLECTOR, CollectorRegistry, Counter, Histogram, Info,
                               ProcessCollector, generate_latest)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from firmware_protocol.codes import Code

from controller.version import VERSION


# Seconds from a hand's end to the next hand in play: the mechanical path is ~17 s on a
# four-port table; a table that waited for its shuffle takes minutes.
HAND_CHANGE_BUCKETS = (5, 10, 15, 17.5, 20, 25, 30, 45, 60, 90, 120, 300, 600)
# counter name -> the link statistic it reads (firmware_protocol.link.LinkStats)
LINK_COUNTERS = {
    "retransmits": ("retransmits", "data frames sent again (no acknowledgement in time)"),
    "crc_errors": ("crc_errors", "frames received with a bad CRC"),
    "resets": ("sessions", "link sessions begun (RESET handshakes: each connect, each table reboot)"),
    "frames_sent": ("frames_sent", "frames written to the table"),
    "frames_received": ("frames_received", "good frames received from the table"),
}


class TableMetrics:
    content_type = CONTENT_TYPE_LATEST  # of `exposition()`: the text format Prometheus scrapes

    def __init__(self, subscribe, faults, table, reminders, database: Path | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Handed what it counts and reads: the controller's subscribe, the faults (their
        owner, watched), the table facade (its link's figures), the maintenance reminders."""
        self.fault_owner, self.table, self.reminders = faults, table, reminders
        self.database = database
        self.clock = clock
        self.started = clock()
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.hands = Counter("mjtable_hands_played", "Hands settled and stored", registry=r)
        self.games = Counter("mjtable_games_finished", "Games played to their end", registry=r)
        self.hand_change = Histogram("mjtable_hand_change_seconds", "From a hand's end to the next hand in play "
                                     "(collect, shuffle wait, walls, dice, dead wall, dora)",
                                     buckets=HAND_CHANGE_BUCKETS, registry=r)
        self.faults = Counter("mjtable_faults", "Faults shown to the operator (and the table's watchdog stops)",
                              ["code", "subsystem"], registry=r)
        self.table_resets = Counter("mjtable_table_resets", "Times the table's MCU rebooted under the controller",
                                    registry=r)
        self.links_lost = Counter("mjtable_link_lost", "Times the link to the table was lost", registry=r)
        Info("mjtable_build", "The controller's version", registry=r).info({"version": VERSION})
        ProcessCollector(registry=r)  # process_cpu_seconds_total, process_resident_memory_bytes, ...
        r.register(PLATFORM_COLLECTOR)  # python_info
        r.register(_OnScrape(self))
        self._hand_ended_at: float | None = None
        subscribe(self._on_event)
        faults.watch(self._on_fault)

    def _on_event(self, event: dict) -> None:
        kind = event["event"]
        if kind == "hand_ended":
            self.hands.inc()
            self._hand_ended_at = self.clock()
        elif kind == "hand_started" and self._hand_ended_at is not None:
            self.hand_change.observe(self.clock() - self._hand_ended_at)
            self._hand_ended_at = None
        elif kind in ("game_over", "game_started", "resumed"):
            self._hand_ended_at = None  # a new game's first hand follows no hand change
            if kind == "game_over":
                self.games.inc()
        elif kind == "mcu_reset":
            self.table_resets.inc()
        elif kind == "link_lost":
            self.links_lost.inc()

    def _on_fault(self, fault) -> None:
        self.faults.labels(code=str(int(fault.code)), subsystem=getattr(fault, "subsystem", "none")).inc()

    def store_bytes(self) -> int:
        if self.database is None:
            return 0
        return sum(p.stat().st_size for p in (self.database, self.database.with_name(self.database.name + "-wal"))
                   if p.exists())

    def exposition(self) -> bytes:
        return generate_latest(self.registry)



def _fault_in_play(fault) -> Metric:
    """1 with the fault's code and name as labels while one holds the table, else 0 with
    empty labels: `mjtable_fault_active == 1` alerts, and the labels say which."""
    active = GaugeMetricFamily("mjtable_fault_active", "A fault holds the table (1), with its code and name",
                               labels=["code", "name"])
    if fault is None:
        active.add_metric(["", ""], 0)
    else:
        code = int(fault.code)
        name = Code(code).name.lower() if code in Code._value2member_map_ else "unknown"
        active.add_metric([str(code), name], 1)
    return active


class _OnScrape(Collector):
    """What is read when scraped rather than counted as it happens."""

    def __init__(self, metrics: TableMetrics) -> None:
        self.m = metrics

    def collect(self) -> Iterator[Metric]:
        m = self.m
        yield GaugeMetricFamily("mjtable_uptime_seconds", "Seconds since the controller started",
                                value=m.clock() - m.started)
        yield GaugeMetricFamily("mjtable_store_bytes", "Size of the state database (with its write-ahead log)",
                                value=m.store_bytes())
        yield _fault_in_play(m.fault_owner.current)
        stats = m.table.stats
        for name, (field, text) in LINK_COUNTERS.items():
            yield CounterMetricFamily(f"mjtable_link_{name}", f"Link: {text}",
                                      value=getattr(stats, field) if stats is not None else 0)
        due = GaugeMetricFamily("mjtable_maintenance_due", "A maintenance reminder: 1 due, 0 coming up (90 %)",
                                labels=["task", "counter"])
        for reminder in m.reminders.due():
            due.add_metric([reminder["task"], reminder["counter"]], 1 if reminder["due"] else 0)
        yield due
