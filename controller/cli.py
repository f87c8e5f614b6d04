"""The `mjtable` command: one subcommand per module, imported only when used.

Each command module provides ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status); a module serving several commands gives ``HELP``
as a dict by command name and ``add_arguments_for(parser, name)``. Importing lazily keeps
start-up fast and lets each part of the product own its command.
"""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS: dict[str, str] = {
    "sim": "sim.cli",
    "check-config": "controller.commands.check_config",
    "diagram": "controller.commands.diagram",
    "run": "controller.commands.run",
    "status": "controller.commands.client",
    "start": "controller.commands.client",
    "result": "controller.commands.client",
    "riichi": "controller.commands.client",
    "kan": "controller.commands.client",
    "pause": "controller.commands.client",
    "resume": "controller.commands.client",
    "retry": "controller.commands.client",
    "abandon": "controller.commands.client",
    "signal": "controller.commands.client",
    "subscribe": "controller.commands.subscribe",
    "journal": "controller.commands.journal",
    "session": "controller.commands.session",
    "schedule": "controller.commands.schedule",
    "export": "controller.commands.export",
    "check-store": "controller.commands.check_store",
    "maintenance": "controller.commands.maintenance",
    "demo": "controller.commands.demo",
    "conformance": "controller.commands.conformance",
    "floor": "controller.commands.floor",
    "hall": "controller.commands.hall",
    "web": "controller.commands.web",
}


class _Version(argparse.Action):
    """`--version`."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from controller.version import VERSION
        print(f"mjtable {VERSION}")
        parser.exit()


def _load(name: str):
    try:
        return importlib.import_module(COMMANDS[name])
    except ModuleNotFoundError as exc:
        if exc.name and COMMANDS[name].startswith(exc.name):
            return None
        raise


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mjtable", description="Open controller for automatic mahjong tables.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = next((a for a in argv if not a.startswith("-")), None)
    for name in COMMANDS:
        if wanted in (name, None):
            module = _load(name)
            if module is None:
                sub.add_parser(name, help="(not built yet)")
                continue
            help_ = module.HELP[name] if isinstance(module.HELP, dict) else module.HELP
            p = sub.add_parser(name, help=help_, description=help_[:1].upper() + help_[1:] + ".")
            add = getattr(module, "add_arguments_for", None)
            (add(p, name) if add else module.add_arguments(p))
        else:
            sub.add_parser(name, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    if args.command is None:
        build_parser(["--help"]).print_help()
        return 2
    module = _load(args.command)
    if module is None:
        print(f"mjtable {args.command}: not built yet", file=sys.stderr)
        return 2
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        return 0


if __name__ == "__main__":
    sys.exit(main())
