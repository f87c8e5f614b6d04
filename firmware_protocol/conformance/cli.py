"""`mjtable conformance PORT` (also `python -m firmware_protocol.conformance PORT`, which
needs nothing but this package): test whatever table is on the line."""
from __future__ import annotations

import argparse
import asyncio
import sys

from ..transport import SerialTransport
from .probe import CheckFailed
from .runner import run_checks

HELP = "test the table on a serial port against PROTOCOL.md, one line per check"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("port", metavar="PORT", help="serial device, pty path or socket://HOST:PORT")
    parser.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
    parser.add_argument("--reset-with", metavar="CMD",
                        help="shell command that resets the table's MCU (enables the MCU reset checks)")
    parser.add_argument("--op-timeout", type=float, default=120.0, metavar="SECONDS",
                        help="the longest a mechanical operation may take (default 120)")


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    try:
        line = SerialTransport.open(args.port, args.baud)
    except OSError as exc:
        print(f"mjtable conformance: cannot open {args.port}: {exc}", file=sys.stderr)
        return 2
    reset = _shell(args.reset_with) if args.reset_with else None
    report = await run_checks(line, lambda text: print(text, flush=True), op_timeout=args.op_timeout, reset=reset)
    return 1 if report.failed else 0


def _shell(command: str):
    async def reset() -> None:
        proc = await asyncio.create_subprocess_shell(command)
        if await proc.wait():
            raise CheckFailed(f"--reset-with {command!r} exited {proc.returncode}")
    return reset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware_protocol.conformance", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args(argv))
