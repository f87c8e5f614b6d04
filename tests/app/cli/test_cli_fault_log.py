"""What `mjtable run` logs when the table faults, as an operator reads it: the fault, and
the messages exchanged with the table just before it, the command that faulted last."""
from __future__ import annotations

import json
import re

from .cli_harness import mjtable, table_with_faults, wait_until


def test_a_fault_puts_the_last_messages_with_the_table_in_the_run_log(short_tmp):
    table, config = table_with_faults(short_tmp, "jam: [{shuffle: 1, sensor: stacker}]\n")
    try:
        mjtable("start", *config, cwd=short_tmp)
        # The first shuffle runs beside the first hand: the fault is in the status, whatever the state.
        wait_until(lambda: json.loads(mjtable("status", "--json", *config, cwd=short_tmp).stdout)["fault_code"] == 200,
                   "the jam")
        text = mjtable("status", *config, cwd=short_tmp).stdout
        log = table.log("run")
    finally:
        table.stop()
    # the status for people says what to do there and then, the CLI naming its own command
    assert "clear the jammed tile, then press a seat's OK button" in text
    assert "`mjtable retry` retries here, once it is seen to" in text
    assert "clear the jammed tile, then retry (`mjtable retry` or a seat's OK button)" in log
    after = log.split("the table stopped on a fault, E200 jam at stacker; the last ", 1)[1]
    shown = re.findall(r"^ *-?\d+\.\d{3} s  (.*)$", after, re.M)  # the dump's lines: time back from the fault, message
    assert "sent      shuffle" in shown
    assert shown[-1] == "received  fault(code=200, subsystem=2, sensor=3, expected=0, counted=0)"
