"""A table that lies about its dice, through the console scripts: `mjtable status` shows the
E303 bad_report fault, `mjtable retry` rolls again, and the journal keeps fair dice only."""
from __future__ import annotations

import json

from .cli_harness import mjtable, table_with_faults, wait_until


def test_lying_dice_are_a_fault_the_operator_retries_and_never_reach_the_journal(short_tmp):
    table, config = table_with_faults(short_tmp, "bad_dice: [{roll: 1, values: [7, 7]}]\n")

    def status():
        return json.loads(mjtable("status", "--json", *config, cwd=short_tmp).stdout)
    try:
        mjtable("start", *config, cwd=short_tmp)
        faulted = wait_until(lambda: (s := status())["state"] == "fault" and s, "the bad-report fault")
        assert faulted["fault_code"] == 303 and "[7, 7]" in faulted["fault"]
        mjtable("retry", *config, cwd=short_tmp)
        playing = wait_until(lambda: (s := status())["waiting_for"] == "result" and s, "hand 1 in play")
        assert playing["fault"] is None and all(1 <= v <= 6 for v in playing["hand_in_play"]["dice"])
        mjtable("result", "draw", *config, cwd=short_tmp)
        wait_until(lambda: status()["hands_played"] == 1, "hand 1 to be stored")
        (hand,) = [json.loads(line) for line in mjtable("journal", *config, cwd=short_tmp).stdout.splitlines()]
        assert hand["dice"] == playing["hand_in_play"]["dice"]
    finally:
        table.stop()
