"""A jam as `mjtable subscribe` shows it: one `fault` event, sent once the machine has
stopped (`"state": "fault"`), and one `recovered` after `mjtable retry`."""
from __future__ import annotations

import json
import os
import subprocess
import threading

from ...support.processes import MJTABLE
from .cli_harness import mjtable, table_with_faults, wait_until


class Events:
    """Every line `mjtable subscribe` prints, gathered in the background."""

    def __init__(self, config: list[str], cwd) -> None:
        self.seen: list[dict] = []
        env = {k: v for k, v in os.environ.items() if k != "MJTABLE_CONFIG"}
        self._proc = subprocess.Popen([MJTABLE, "subscribe", "--status", *config], cwd=cwd, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._proc.stdout:
            self.seen.append(json.loads(line))

    def named(self, name: str) -> list[dict]:
        return [e for e in list(self.seen) if e.get("event") == name]

    def close(self) -> None:
        self._proc.terminate()
        self._proc.wait(timeout=5)


def test_a_jam_gives_one_fault_event_with_the_stopped_state_and_one_recovered_after_retry(short_tmp):
    table, config = table_with_faults(short_tmp, "jam: [{shuffle: 1, sensor: stacker}]\n")
    events = Events(config, short_tmp)
    wait_until(lambda: events.seen, "mjtable subscribe's first line (the status)")
    assert "state" in events.seen[0]["status"]
    def state() -> str:
        return json.loads(mjtable("status", "--json", *config, cwd=short_tmp).stdout)["state"]
    try:
        mjtable("start", *config, cwd=short_tmp)
        wait_until(lambda: state() == "fault", "the jam's fault")
        mjtable("retry", *config, cwd=short_tmp)
        wait_until(lambda: state() == "playing", "the table running again after the retry")
        wait_until(lambda: events.named("recovered"), "the recovered event")
    finally:
        events.close()
        table.stop()
    (fault,) = events.named("fault")
    assert fault["code"] == 200 and fault["message"] == "E200 jam at stacker" and fault["state"] == "fault"
    (recovered,) = events.named("recovered")
    assert recovered["state"] == "fault"  # sent before the machine moves on: its `state` event follows
