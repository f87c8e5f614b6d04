"""`mjtable floor`: the floor view, every table on the broker as a tile on one web page."""
from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path

HELP = "serve the floor view: every table on the MQTT broker, live, on one web page"
DEFAULT_LISTEN = "127.0.0.1:8088"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_broker_arguments(parser, DEFAULT_LISTEN, "the floor view")
    parser.add_argument("--secret-file", type=Path, metavar="FILE",
                        help="a file holding the hash of the parlour's operator secret (`mjtable web hash-secret`): "
                             "the page asks for the secret (default: no login)")


def add_broker_arguments(parser: argparse.ArgumentParser, listen: str | None, who: str) -> None:
    """The options of what works from the broker's tables (the floor view, the hall); a
    page served at ``--listen`` unless ``listen`` is None."""
    parser.add_argument("--broker", required=True, metavar="URL", help="the broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    parser.add_argument("--prefix", default="mjtable", help="the tables' topic prefix (default mjtable)")
    if listen is not None:
        parser.add_argument("--listen", default=listen, metavar="HOST:PORT",
                            help=f"where the page is served (default {listen}; port 0: any free port)")
    parser.add_argument("--username", help=f"the broker's user name for {who}")
    parser.add_argument("--password-file", type=Path, metavar="FILE", help="a file holding that user's password")
    parser.add_argument("--ca-file", type=Path, metavar="FILE", help="a CA certificate (PEM) for an mqtts:// broker")


def broker_connection(args: argparse.Namespace, command: str):
    """(Connection, host, port) from those options; None after saying what is wrong."""
    from controller.api.listen import parse_listen
    from controller.api.mqtt.settings import PREFIX, PREFIX_WHAT, parse_broker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
                        datefmt="%H:%M:%S")
    try:
        broker = parse_broker(args.broker)
        if not PREFIX.match(args.prefix):
            raise ValueError(f"--prefix {args.prefix[:40]!r}: {PREFIX_WHAT}")
        host, port = parse_listen(args.listen) if hasattr(args, "listen") else (None, None)
        password = args.password_file.read_text().strip() if args.password_file else None
    except (ValueError, OSError) as exc:
        print(f"mjtable {command}: {exc}", file=sys.stderr)
        return None
    from controller.api.floor.broker import Connection
    return Connection(broker.host, broker.port, broker.tls, str(args.ca_file) if args.ca_file else None,
                      args.username, password), host, port


def run(args: argparse.Namespace) -> int:
    try:
        secret_hash = _secret_hash(args.secret_file) if args.secret_file else None
    except (ValueError, OSError) as exc:
        print(f"mjtable floor: {exc}", file=sys.stderr)
        return 2
    found = broker_connection(args, "floor")
    return 2 if found is None else asyncio.run(serve(*found, args.prefix, secret_hash))


def _secret_hash(path: Path) -> str:
    from controller.api.web.secret import FORMAT, is_secret_hash
    text = path.read_text().strip()
    if not is_secret_hash(text):
        raise ValueError(f"--secret-file {path}: not {FORMAT}")
    return text


async def serve(connection, host: str, port: int, prefix: str, secret_hash: str | None = None) -> int:
    from controller.api.floor.board import Board
    from controller.api.floor.broker import follow
    from controller.api.floor.web import FloorView, build_app

    from controller.api.web.access import Access

    view = FloorView(Board(prefix), Access(secret_hash) if secret_hash else None)
    return await serve_page(build_app(view), host, port, "floor", "floor view",
                            lambda: follow(connection, view.board, view.changed, view.broker_state))


async def serve_page(app, host: str, port: int, command: str, what: str, following) -> int:
    """Serve ``app`` and run ``following()`` (the broker's side) until SIGINT or SIGTERM."""
    from controller.api.floor.web import HEADERS, MAX_WS_MESSAGE, WS_HEARTBEAT
    from controller.api.listen import serve

    try:
        serving = await serve(app, host, port, what=what, headers=HEADERS, max_ws_message=MAX_WS_MESSAGE,
                              ws_heartbeat=WS_HEARTBEAT)
    except OSError as exc:
        print(f"mjtable {command}: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"{what} on http://{host}:{serving.port}/", flush=True)  # tests read the port here
    subscription = asyncio.ensure_future(following())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        subscription.cancel()
        await serving.close()
    return 0
