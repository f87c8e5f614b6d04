"""`mjtable sim`: run the simulated table on a pseudo-terminal or a TCP port."""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import signal
import sys

from firmware_protocol.transport import Impairment
from mjtable_config.schema import ConfigError
from sim.faults import FaultPlan, load_fault_plan
from firmware_protocol.profile import DEFAULT_PROFILE
from sim.serve import serve_pty, serve_tcp
from sim.table import SimulatedTable

HELP = "run the simulated table on a pseudo-terminal or TCP port"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal; prints its path")
    where.add_argument("--tcp", metavar="HOST:PORT", help="serve on TCP (socket://HOST:PORT for pyserial)")
    parser.add_argument("--profile", default=str(DEFAULT_PROFILE),
                        help="table hardware profile: a shipped one's name (four-port, basic, ...) or a YAML file")
    parser.add_argument("--seed", type=int, default=0, help="seed for tiles, dice, boot ids and line noise")
    parser.add_argument("--speed", type=float, default=1.0, help="mechanical time runs this many times faster")
    parser.add_argument("--trace", metavar="FILE", help="write the hardware trace (JSON lines)")
    parser.add_argument("--faults", metavar="FILE", help="fault scenario YAML (see sim/faults.py)")
    parser.add_argument("--corrupt", type=_rate, metavar="RATE", help="corrupt this fraction (0-1) of line bytes")
    parser.add_argument("--drop", type=_rate, metavar="RATE", help="drop this fraction (0-1) of line writes")
    parser.add_argument("--reset-after", type=int, metavar="N", action="append", default=[],
                        help="reset the MCU after the Nth command (repeatable)")
    parser.add_argument("--no-watchdog", action="store_true", help="never stop for a silent host (manual use)")


def _rate(text: str) -> float:
    try:
        rate = float(text)
    except ValueError:
        rate = -1.0
    if not 0.0 <= rate <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"a rate is a fraction from 0 to 1 (0.01 = 1 %), not {text!r}")
    return rate


def run(args: argparse.Namespace) -> int:
    try:
        faults = _fault_plan(args)
        return asyncio.run(_serve(args, faults))
    except (ConfigError, ValueError, OSError) as exc:
        print(f"mjtable sim: {exc}", file=sys.stderr)
        return 2


def _fault_plan(args: argparse.Namespace) -> FaultPlan:
    plan = load_fault_plan(args.faults) if args.faults else FaultPlan()
    noise = {k: v for k, v in (("corrupt", args.corrupt), ("drop", args.drop)) if v is not None}
    if noise:
        plan.link = dataclasses.replace(plan.link or Impairment(), **noise)
    plan.reset_after_command |= set(args.reset_after)
    return plan


async def _serve(args: argparse.Namespace, faults: FaultPlan) -> int:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    table = SimulatedTable(args.profile, seed=args.seed, faults=faults, speed=args.speed, trace_path=args.trace)
    table.firmware.watchdog_enabled = not args.no_watchdog
    try:
        async with _serving(table, args) as where:
            print(where, flush=True)
            await stop.wait()
    finally:
        table.close()
    return 0


def _serving(table: SimulatedTable, args: argparse.Namespace):
    if args.pty:
        return serve_pty(table)
    host, _, port = args.tcp.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--tcp wants HOST:PORT, not {args.tcp!r}")
    return serve_tcp(table, host, int(port))
