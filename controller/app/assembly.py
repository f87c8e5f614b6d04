"""The application's wiring: one table's parts, built, started and closed in one order.

`mjtable run` builds an `Application` from the table config (`plan_of`), `mjtable demo`
(one table or several) from its simulated tables' equivalents, so a demo table serves what
a real one does. It owns every part it builds: the store, the Controller, the Service
with its maintenance, the control API's server, the metrics (counted whether or not the
web page serves them), the web page, the MQTT publisher and the service manager's
notifier; `close` stops each, and every task of theirs, in order.
"""
from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from controller.api.server import ApiServer
from controller.game.controller import Controller
from controller.maintenance.control import Maintenance
from controller.api.metrics import TableMetrics
from controller.rules import RuleSet
from controller.app.sd_notify import Notifier
from controller.api.handlers import Service
from controller.game.settings import Settings
from controller.store.database import Store

log = logging.getLogger("mjtable.run")


@dataclass(frozen=True)
class WebPlan:
    """The table's web page: where it listens and whose secret opens the operator's page."""
    host: str
    port: int
    operator_hash: Callable[[], str]  # asked once the store is held: a refused second controller makes none
    spectators: str = "open"
    url: str | None = None
    rulesets: Path | None = None
    any_port_if_taken: bool = False  # the demo's: its default port may be another program's


@dataclass(frozen=True)
class Plan:
    """What one table's application is built from."""
    database: Path
    connect: Callable[[], Awaitable]  # opens the line to the table
    rules: RuleSet
    ruleset_name: str
    socket: Path
    table_address: str  # the line's, for the log
    exclusive: bool = True  # the store held until exit: a second controller is refused
    settings: Settings | None = None
    seed: int | None = None
    starting_dealer: int | str = 0
    rulesets: Path | None = None
    table_number: int | None = None
    web: WebPlan | None = None
    mqtt: object | None = None  # controller.mqtt.settings.MqttSettings
    mqtt_page_url: bool = False  # the page's own address in the MQTT discovery (the demo's: a port found at start)


class Application:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.store = Store(plan.database, exclusive=plan.exclusive)
        self.controller = c = Controller(plan.connect, plan.rules, store=self.store, settings=plan.settings,
                                         ruleset_name=plan.ruleset_name, seed=plan.seed)
        self.service = Service(c, starting_dealer=plan.starting_dealer, rulesets=plan.rulesets,
                               table_number=plan.table_number, maintenance=Maintenance(c.table, c.sm, c.reminders))
        # subscribed now: a resumed game's events count
        self.metrics = TableMetrics(c.subscribe, c.faults, c.table, c.reminders, plan.database)
        self.server = ApiServer(plan.socket, self.service)
        self.access = self._access() if plan.web is not None else None
        self.notifier = Notifier()
        self.web = None  # the web server, once started
        self.publisher = None  # the MQTT publisher, once started
        self._server_started = False

    def _access(self):
        """The page's secrets; subscribed before the controller starts (a resumed game's PIN)."""
        from controller.api.web.access import Access
        from controller.api.web.table_web import deal_pins

        c = self.controller
        access = Access(self.plan.web.operator_hash())
        deal_pins(c.subscribe, c.displays, c.background.spawn, access)
        return access

    async def start(self) -> None:
        """The control API, then the table and the web page together; raises ServerStartError
        (the socket) or Refusal (the table's or the page's) for the caller to report."""
        await self.server.start()
        self._server_started = True
        if not self.plan.mqtt_page_url:
            self._start_publisher(self.plan.mqtt)
        log.info("control API on %s; connecting to the table at %s", self.plan.socket, self.plan.table_address)
        web = asyncio.ensure_future(self._start_web()) if self.plan.web is not None else None
        try:
            await self.service.start()
        finally:
            if web is not None:
                self.web = await web  # a page that cannot start is reported even when the table could not
        if self.plan.mqtt_page_url and self.plan.mqtt is not None:
            page = self.web.url if self.web is not None else None
            self._start_publisher(dataclasses.replace(self.plan.mqtt, web_url=page))

    def ready(self) -> None:
        """Tell the service manager the table is up, and feed its watchdog from now."""
        self.notifier.ready(f"table {self.controller.table.identity['model']}: {self.controller.sm.state}")
        self.notifier.start_watchdog(asyncio.get_running_loop())

    def _start_publisher(self, settings) -> None:
        if settings is None:
            return
        from controller.api.mqtt.publisher import Publisher  # lazily: aiomqtt only for a table that uses it

        self.publisher = Publisher(settings, self.service, list(self.plan.rules.seats),
                                   self.plan.database.with_suffix(".results.json"))  # kept until the hall has them
        self.publisher.start()

    async def _start_web(self):
        """The running web server, with the metrics at /metrics. Its library is imported on
        the loop while the table answers its first message: in a thread (the GIL shares
        out the import all the same) it started no sooner and cost 0.8 MB more, the
        modules left in that thread's own malloc arena."""
        from controller.errors import Refusal

        server = importlib.import_module("controller.api.web.server")
        plan = self.plan.web
        if plan.any_port_if_taken and plan.port != 0:
            try:
                return await self._serve_web(server, plan.port)
            except Refusal:
                pass  # taken: any free port
            return await self._serve_web(server, 0)
        return await self._serve_web(server, plan.port)

    async def _serve_web(self, server, port: int):
        plan = self.plan.web
        web = server.WebServer(self.service, server.WebSettings(plan.host, port, plan.spectators, plan.url,
                                                                plan.rulesets), self.access, self.metrics)
        await web.start()
        self.service.page_url = web.url
        return web

    @property
    def game(self) -> asyncio.Task | None:
        return self.service.game_task

    async def close(self, flush: float | None = None) -> None:
        """Stop everything started, in order: the game, the page, the API, the publisher
        (given at most ``flush`` seconds to send what is queued), the table, the store."""
        self.notifier.stopping()
        self.notifier.close()
        await _cancelled(self.service.game_task)
        if self.web is not None:
            await self.web.close()
        if self._server_started:
            await self.server.close()
        if self.publisher is not None:
            await (self.publisher.close() if flush is None else self.publisher.close(flush=flush))
        self.controller.close()
        self.store.close()


async def _cancelled(task: asyncio.Task | None) -> None:
    if task is None or task.done():
        return
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def plan_of(config, seed: int | None = None) -> Plan:
    """A table config's application (`mjtable run`)."""
    from controller.game.settings import durations_from
    from firmware_protocol.transport import SerialTransport
    from firmware_protocol.profile import load_profile

    async def connect():
        return SerialTransport.open(config.port, config.baud, loop=asyncio.get_running_loop())

    settings = Settings(display_mode=config.display_mode, language=config.language, backoff_max=config.reconnect_backoff_max,
                        operation_margin=config.operation_margin,
                        durations=durations_from(load_profile(config.profile).timings),
                        maintenance=config.maintenance, service_file=config.database.with_suffix(".service.json"))
    return Plan(database=config.database, connect=connect, rules=config.ruleset, ruleset_name=config.ruleset_ref,
                socket=config.socket, table_address=config.port, settings=settings, seed=seed, starting_dealer=config.starting_dealer,
                rulesets=config.rulesets, table_number=config.table_number, web=_web_plan(config), mqtt=_mqtt_plan(config))


def _mqtt_plan(config):
    """The MQTT section, the page's address given by `web.url` when it gives none itself
    (Home Assistant's device links to it; floor tiles too)."""
    if config.mqtt is None or config.mqtt.web_url is not None or config.web_url is None:
        return config.mqtt
    return dataclasses.replace(config.mqtt, web_url=config.web_url)


def _web_plan(config) -> WebPlan | None:
    if config.web_listen is None:  # else no web server is even imported
        return None
    from controller.api.listen import parse_listen
    from controller.api.web.table_web import operator_hash

    host, port = parse_listen(config.web_listen)
    return WebPlan(host, port, lambda: operator_hash(config), config.web_spectators, config.web_url, config.rulesets)
