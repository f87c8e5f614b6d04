"""`mjtable web hash-secret`: the hash of an operator secret for the config's
``web.operator_secret`` (the config never holds the secret itself)."""
from __future__ import annotations

import argparse
import getpass
import sys

HELP = "the table's web page: make the operator secret's hash for web.operator_secret"
MIN_LENGTH = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    make = sub.add_parser("hash-secret", help="read a secret (prompt, or standard input) and print its hash",
                          description="Read the operator secret (a prompt on a terminal, else the first line of "
                                      "standard input) and print the line to put under web: in the table config.")
    make.add_argument("--generate", action="store_true", help="make a random secret instead; prints it too")


def run(args: argparse.Namespace) -> int:
    import secrets as random_secrets

    from controller.api.web.secret import GENERATED_BYTES, hash_secret

    if args.generate:
        secret = random_secrets.token_urlsafe(GENERATED_BYTES)
        print(f"secret (give it to the operators; it is not kept): {secret}", file=sys.stderr)
    elif sys.stdin.isatty():
        secret = getpass.getpass("operator secret: ")
    else:
        secret = sys.stdin.readline().rstrip("\r\n")
    if len(secret) < MIN_LENGTH:
        print(f"mjtable web hash-secret: a secret has at least {MIN_LENGTH} characters", file=sys.stderr)
        return 1
    print(f"  operator_secret: {hash_secret(secret)}")
    return 0
