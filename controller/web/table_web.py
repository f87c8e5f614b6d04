"""The web page of a table config's ``web:`` section: the operator secret's hash (the
config's, or one made at the first start), a new player PIN each game, and the server."""
from __future__ import annotations

import asyncio
import importlib
import sys

from controller.config import TableConfig
from controller.listen import parse_listen
from controller.web.access import Access
from controller.web.secret import secret_file, stored_or_new


def web_access(config: TableConfig, controller) -> Access:
    """The page's secrets; subscribed before the controller starts (a resumed game's PIN)."""
    access = Access(config.web_operator_secret or _generated_hash(config))
    deal_pins(controller, access)
    return access


async def start_web_server(config: TableConfig, service, access: Access, metrics=None):
    """The running web server, with the table's ``metrics`` at /metrics. Its library is
    imported off the loop (a few hundred ms on a board), so that it loads while the
    controller connects to the table."""
    server = await asyncio.to_thread(importlib.import_module, "controller.web.server")
    host, port = parse_listen(config.web_listen)
    web = server.WebServer(service, server.WebSettings(host, port, config.web_spectators, config.web_url,
                                                       config.rulesets), access, metrics)
    await web.start()
    return web


def _generated_hash(config: TableConfig) -> str:
    path = secret_file(config.database)
    hashed, secret = stored_or_new(path)
    if secret is not None:  # once: stderr, never the log
        print(f"mjtable run: the web page's operator secret is {secret}\n"
              f"  (shown this once; its hash is kept in {path}; set web.operator_secret to choose your own)",
              file=sys.stderr, flush=True)
    return hashed


def deal_pins(controller, access: Access) -> None:
    """A new PIN as each game starts or resumes, shown on the table's centre display."""
    def on_event(event: dict) -> None:
        if event["event"] in ("game_started", "resumed"):
            controller.displays.pin = access.new_pin()
        if event["event"] == "resumed":  # a new game shows it as it opens
            controller.background.spawn(controller.displays.show_pin(), "the web PIN")
    controller.subscribe(on_event)
