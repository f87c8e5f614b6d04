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
    parser.add_argument("--broker", required=True, metavar="URL", help="the broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    parser.add_argument("--prefix", default="mjtable", help="the tables' topic prefix (default mjtable)")
    parser.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
                        help=f"where the page is served (default {DEFAULT_LISTEN}; port 0: any free port)")
    parser.add_argument("--username", help="the broker's user name for the floor view")
    parser.add_argument("--password-file", type=Path, metavar="FILE", help="a file holding that user's password")
    parser.add_argument("--secret-file", type=Path, metavar="FILE",
                        help="a file holding the hash of the parlour's operator secret (`mjtable web hash-secret`): "
                             "the page asks for the secret (default: no login)")
    parser.add_argument("--ca-file", type=Path, metavar="FILE", help="a CA certificate (PEM) for an mqtts:// broker")


def run(args: argparse.Namespace) -> int:
    from controller.api.listen import parse_listen
    from controller.api.mqtt.settings import PREFIX, PREFIX_WHAT, parse_broker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
                        datefmt="%H:%M:%S")
    try:
        broker = parse_broker(args.broker)
        if not PREFIX.match(args.prefix):
            raise ValueError(f"--prefix {args.prefix[:40]!r}: {PREFIX_WHAT}")
        host, port = parse_listen(args.listen)
        password = args.password_file.read_text().strip() if args.password_file else None
        secret_hash = _secret_hash(args.secret_file) if args.secret_file else None
    except (ValueError, OSError) as exc:
        print(f"mjtable floor: {exc}", file=sys.stderr)
        return 2
    from controller.api.floor.broker import Connection
    connection = Connection(broker.host, broker.port, broker.tls, str(args.ca_file) if args.ca_file else None,
                            args.username, password)
    return asyncio.run(serve(connection, args.prefix, host, port, secret_hash))


def _secret_hash(path: Path) -> str:
    from controller.api.web.secret import FORMAT, is_secret_hash
    text = path.read_text().strip()
    if not is_secret_hash(text):
        raise ValueError(f"--secret-file {path}: not {FORMAT}")
    return text


async def serve(connection, prefix: str, host: str, port: int, secret_hash: str | None = None) -> int:
    from aiohttp import web

    from controller.api.floor.board import Board
    from controller.api.floor.broker import follow
    from controller.api.floor.web import FloorView, build_app
    from controller.api.listen import guard_server

    from controller.api.web.access import Access

    view = FloorView(Board(prefix), Access(secret_hash) if secret_hash else None)
    runner = web.AppRunner(build_app(view), access_log=None)
    await runner.setup()
    guard_server(runner.server, "floor view")
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as exc:
        print(f"mjtable floor: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        await runner.cleanup()
        return 2
    bound_host, bound_port = runner.addresses[0][:2]
    print(f"floor view on http://{bound_host}:{bound_port}/", flush=True)  # tests read the port here
    subscription = asyncio.ensure_future(follow(connection, view.board, view.changed, view.broker_state))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        subscription.cancel()
        await runner.cleanup()
    return 0
