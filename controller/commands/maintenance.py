"""`mjtable maintenance`: the table's counters, the record of a service, the sensor test.

Through the running controller (`mjtable run`), like the other client commands: it holds
the table's link, and it refuses a sensor test or a service record during a game
(docs/MAINTENANCE.md). A table of protocol 1.0 has none of it; the controller says so.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from firmware_protocol.catalog import TEST_SUBSYSTEMS
from firmware_protocol.codes import describe as describe_code

from controller.commands.client import add_connection_options, answer

HELP = "the table's counters (cycles, motor time, faults), its sensor test, and the record of a service"
ACTIONS = {"counters": "counters", "test": "sensor_test", "serviced": "record_service"}
TEST_TIMEOUT = 600.0  # every subsystem of a slow table, one after the other


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=ACTIONS, default="counters",
                        help="counters (the default): show them; test: run the sensor test; "
                             "serviced: the table has been serviced, the cycles since service start from 0")
    parser.add_argument("subsystem", nargs="?", choices=TEST_SUBSYSTEMS,
                        help="test: only this subsystem (default: every one the table has)")
    parser.add_argument("--seat", type=int, choices=range(4), metavar="SEAT",
                        help="test display|buttons: only this seat's (default: all four)")
    add_connection_options(parser)


def run(args: argparse.Namespace) -> int:
    if args.action != "test" and (args.subsystem or args.seat is not None):
        print("mjtable maintenance: a subsystem and --seat go with `test` only", file=sys.stderr)
        return 2
    chosen = {k: v for k, v in (("subsystem", args.subsystem), ("seat", args.seat)) if v is not None}
    reply = answer(args, lambda client: client.request(ACTIONS[args.action], **chosen), timeout=TEST_TIMEOUT)
    if reply is None:
        return 1
    print(json.dumps({"ok": True, **reply}) if args.json else describe(args.action, reply))
    return 0 if all(t["passed"] for t in reply.get("tests", ())) else 1


def describe(action: str, reply: dict[str, Any]) -> str:
    if action == "test":
        return describe_tests(reply)
    if reply["counters"] is None:  # a service recorded on a table that keeps no counters
        return "service recorded: the maintenance reminders count from now"
    return describe_counters(reply["counters"])


def describe_counters(c: dict[str, Any]) -> str:
    return "\n".join([
        f"shuffle cycles        {c['shuffle_cycles']}",
        f"lift cycles           {c['lift_cycles']}",
        f"motor time            {c['motor_seconds']} s ({c['motor_seconds'] / 3600:.1f} h)",
        f"cycles since service  {c['cycles_since_service']}",
        f"faults by sensor      {_per_sensor(c['faults'])}",
        f"jams by sensor        {_per_sensor(c['jams'])}",
    ])


def _per_sensor(counts: dict[str, int]) -> str:
    return ", ".join(f"{sensor} {n}{'+' if n == 255 else ''}" for sensor, n in counts.items()) or "none"


def describe_tests(reply: dict[str, Any]) -> str:
    lines = [f"{_tested(t):<12}  {_verdict(t)}" for t in reply["tests"]]
    active = [sensor for sensor, value in reply["sensors"].items() if value]
    lines.append(f"sensors active: {', '.join(active) or 'none'}")
    failed = sum(not t["passed"] for t in reply["tests"])
    lines.append(f"{len(reply['tests'])} tests, " + (f"{failed} failed" if failed else "all passed"))
    return "\n".join(lines)


def _tested(test: dict[str, Any]) -> str:
    return f"{test['subsystem']} {test['seat']}" if "seat" in test else test["subsystem"]


def _verdict(test: dict[str, Any]) -> str:
    if test["passed"]:
        return "passed"
    if "message" in test:
        return f"FAILED: {test['message']}"
    return f"FAILED: E{test['code']} {describe_code(test['code'])} at {test['sensor']}"
