"""`mjtable subscribe`: the controller's events as they happen, one JSON object a line."""
from __future__ import annotations

import json
import sys

from controller.commands.client import add_connection_options, answer

HELP = "print the controller's events as they happen (one JSON object a line; Ctrl-C stops)"


def add_arguments(parser) -> None:
    add_connection_options(parser)
    parser.add_argument("--count", type=int, metavar="N", help="stop after N events")
    parser.add_argument("--status", action="store_true", help="print the status at the subscription first")


def run(args) -> int:
    def follow(client) -> dict:
        with client.subscribe() as events:
            if args.status:
                _print({"status": events.status})
            for seen, event in enumerate(events, 1):
                _print(event)
                if args.count is not None and seen >= args.count:
                    break
        return {}

    try:
        return 0 if answer(args, follow, timeout=10.0) is not None else 1
    except KeyboardInterrupt:
        return 0


def _print(record: dict) -> None:
    print(json.dumps(record, separators=(",", ":")), flush=True)
