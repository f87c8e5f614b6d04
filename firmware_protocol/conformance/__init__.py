"""The conformance kit: a scripted test of a table's firmware against PROTOCOL.md.

    report = await run_checks(line)      # any ByteTransport to the table
    report.failed                        # names of the checks that failed

Checks are grouped by the PROTOCOL.md section they test (sessions, frames, data_frames,
commands, motion, watchdog, protocol_1_1, mcu_reset) and run in `runner.CHECKS` order.
They use only this package, so a table maker needs nothing else
(`python -m firmware_protocol.conformance`).
"""
from .runner import CHECKS, Report, run_checks

__all__ = ["CHECKS", "Report", "run_checks"]
