"""`mjtable conformance`: the firmware conformance kit (firmware_protocol/conformance)."""
from firmware_protocol.conformance.cli import HELP, add_arguments, run

__all__ = ["HELP", "add_arguments", "run"]
