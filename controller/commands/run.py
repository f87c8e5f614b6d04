"""`mjtable run`: the controller service on the configured table."""
from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
import time
from pathlib import Path

from controller.commands import CONFIG_HELP

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
    from controller.app.config import find_table_config, load_table_config, unplayable
    from mjtable_config.schema import ConfigError
    from controller.store.database import StoreError

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
    from controller.api.server import ServerStartError
    from controller.app.assembly import Application, plan_of
    from controller.errors import Refusal
    from controller.store.database import StoreError

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
    app = Application(plan_of(config, seed))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        starting = asyncio.ensure_future(app.start())
        await asyncio.wait([starting, asyncio.ensure_future(stop.wait())], return_when=asyncio.FIRST_COMPLETED)
        if starting.done():
            try:
                starting.result()
            except (ServerStartError, Refusal) as exc:
                log.error("%s", exc)
                return 2
            log.info("ready in %.2f s: %s", time.monotonic() - started, app.controller.sm.state)
            app.ready()
            _tell_uncompiled(log)
            await stop.wait()
        else:
            starting.cancel()
            await asyncio.gather(starting, return_exceptions=True)
    finally:
        await app.close()
    log.info("stopped")
    return 0


def _tell_uncompiled(log: logging.Logger) -> None:
    from controller.app.bytecode import uncompiled

    if missing := uncompiled():
        log.warning("%d modules (%s, ...) had no bytecode compiled for PYTHONOPTIMIZE=%d and were compiled at this "
                    "start: more memory and a slower start; compile it as docs/INSTALL.md shows "
                    "(python -OO -m compileall)", len(missing), ", ".join(missing[:3]), sys.flags.optimize)
