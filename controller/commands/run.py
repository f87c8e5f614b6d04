"""`mjtable run`: the controller service on the configured table."""
from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
import time
from pathlib import Path

from controller.commands.client import CONFIG_HELP

HELP = "run the controller on the configured table (serial port, socket:// or a simulator pty)"


def add_arguments(parser) -> None:
    parser.add_argument("--config", "-c", type=Path, help=CONFIG_HELP)
    parser.add_argument("--log-format", choices=("text", "json"), default="text", help="stderr log format")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the table's draws (a drawn dealer, drawn "
                        "seats): the same seed draws the same (default: random)")


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {"t": round(record.created, 3), "level": record.levelname.lower(), "logger": record.name,
                 "message": record.getMessage()}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def setup_logging(fmt: str, level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter() if fmt == "json" else
                         logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S"))
    logging.basicConfig(level=level, handlers=[handler], force=True)


def run(args) -> int:
    from controller.config import find_table_config, load_table_config, unplayable
    from mjtable_config.schema import ConfigError
    from controller.store import StoreError

    setup_logging(args.log_format, args.log_level)
    path = find_table_config(args.config)
    try:
        config = load_table_config(path)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    problems = unplayable(config)  # the profile too, as check-config reads it
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    try:
        return asyncio.run(serve(config, args.seed))
    except StoreError as exc:
        print(f"mjtable run: {exc}", file=sys.stderr)
        return 2


async def serve(config, seed: int | None = None) -> int:
    from controller.api import ApiServer, ServerStartError
    from controller.errors import Refusal
    from controller.controller import Controller
    from controller.settings import Settings, durations_from
    from controller.sd_notify import Notifier
    from controller.service import Service
    from controller.store import Store, StoreError
    from firmware_protocol.transport import SerialTransport
    from firmware_protocol.profile import load_profile

    log = logging.getLogger("mjtable.run")
    started = time.monotonic()
    # the client commands find these through the same config (controller.config.find_table_config)
    log.info("config %s; database %s; control socket %s", config.path.resolve(), config.database.resolve(),
             config.socket.resolve())
    try:
        config.database.parent.mkdir(parents=True, exist_ok=True)  # a fresh install has no state folder yet
    except OSError as exc:
        raise StoreError(f"cannot make the folder of state.database {config.database}: {exc.strerror or exc} "
                         f"(set state.database in {config.path})") from None
    store = Store(config.database, exclusive=True)  # held until exit: a second controller is refused
    loop = asyncio.get_running_loop()

    async def connect():
        return SerialTransport.open(config.port, config.baud, loop=loop)

    settings = Settings(display_mode=config.display_mode, backoff_max=config.reconnect_backoff_max,
                        operation_margin=config.operation_margin,
                        durations=durations_from(load_profile(config.profile).timings),
                        maintenance=config.maintenance, service_file=config.database.with_suffix(".service.json"))
    controller = Controller(connect, config.ruleset, store=store, settings=settings, ruleset_name=config.ruleset_ref,
                            seed=seed)
    service = Service(controller, starting_dealer=config.starting_dealer, rulesets=config.rulesets,
                      table_number=config.table_number)
    server = ApiServer(config.socket, service)
    try:
        await server.start()
    except ServerStartError as exc:
        log.error("%s", exc)
        return 2
    publisher = _mqtt_publisher(config, service)
    access = None
    if config.web_listen is not None:  # else aiohttp is not even imported
        from controller.web.table_web import start_web_server, web_access
        access = web_access(config, controller)
        from controller.metrics import TableMetrics  # subscribed now: a resumed game's events count
        metrics = TableMetrics(controller, config.database)
    notifier = Notifier()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    log.info("control API on %s; connecting to the table at %s", config.socket, config.port)
    web = None  # the web server's start: with the table's, in parallel
    try:
        starting = asyncio.ensure_future(service.start())
        web = asyncio.ensure_future(start_web_server(config, service, access, metrics)) if access else None
        await asyncio.wait([starting, asyncio.ensure_future(stop.wait())], return_when=asyncio.FIRST_COMPLETED)
        if starting.done():
            try:
                starting.result()
                if web is not None:
                    await web
            except Refusal as exc:
                log.error("%s", exc)
                return 2
            log.info("ready in %.2f s: %s", time.monotonic() - started, controller.sm.state)
            notifier.ready(f"table {controller.table.identity['model']}: {controller.sm.state}")
            notifier.start_watchdog(loop)
            await stop.wait()
        else:
            starting.cancel()
    finally:
        notifier.stopping()
        notifier.close()
        task = service.game_task
        if task is not None and not task.done():
            task.cancel()
        if web is not None:
            await _close_web(web)
        await server.close()
        if publisher is not None:
            await publisher.close()
        controller.close()
        store.close()
    log.info("stopped")
    return 0


def _mqtt_publisher(config, service):
    """The table on the parlour's broker (the config's mqtt: section), started; None without it."""
    if config.mqtt is None:
        return None
    from controller.mqtt.publisher import Publisher  # lazily: aiomqtt only for a table that uses it
    publisher = Publisher(config.mqtt, service, list(config.ruleset.seats))
    publisher.start()
    return publisher
async def _close_web(starting: asyncio.Future) -> None:
    """Close the web server, or stop it starting."""
    if not starting.done():
        starting.cancel()
    await asyncio.gather(starting, return_exceptions=True)
    if starting.done() and not starting.cancelled() and starting.exception() is None:
        await starting.result().close()
