"""The web page of a table config's ``web:`` section: the operator secret's hash (the
config's, or one made at the first start) and a new player PIN each game (the server is
started by controller/app/assembly.py)."""
from __future__ import annotations

import sys

from controller.api.web.access import Access
from controller.api.web.secret import secret_file, stored_or_new


def operator_hash(config) -> str:
    """The hash of the operator's secret: the config's, or one made at the first start."""
    return config.web_operator_secret or _generated_hash(config)


def _generated_hash(config) -> str:
    path = secret_file(config.database)
    hashed, secret = stored_or_new(path)
    if secret is not None:  # once: stderr, never the log
        print(f"mjtable run: the web page's operator secret is {secret}\n"
              f"  (shown this once; its hash is kept in {path}; set web.operator_secret to choose your own)",
              file=sys.stderr, flush=True)
    return hashed


def deal_pins(subscribe, displays, spawn, access: Access) -> None:
    """A new PIN as each game starts or resumes, shown on the table's centre display."""
    def on_event(event: dict) -> None:
        if event["event"] in ("game_started", "resumed"):
            displays.pin = access.new_pin()
        if event["event"] == "resumed":  # a new game shows it as it opens
            spawn(displays.show_pin(), "the web PIN")
    subscribe(on_event)
