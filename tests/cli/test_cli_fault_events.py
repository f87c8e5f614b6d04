"""A jam as a subscriber of `mjtable run`'s control socket sees it: one `fault` event, sent
once the machine has stopped (`"state": "fault"`), and one `recovered` after `mjtable retry`."""
from __future__ import annotations

import json
import threading

from controller.client import Client

from .cli_harness import mjtable, table_with_faults, wait_until


class Events:
    """Every event of a subscription to the control socket, gathered in the background."""

    def __init__(self, socket) -> None:
        self.seen: list[dict] = []
        self._stream = Client(socket, timeout=5).subscribe()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for event in self._stream:
            self.seen.append(event)

    def named(self, name: str) -> list[dict]:
        return [e for e in list(self.seen) if e["event"] == name]

    def close(self) -> None:
        self._stream.close()


def test_a_jam_gives_one_fault_event_with_the_stopped_state_and_one_recovered_after_retry(short_tmp):
    table, config = table_with_faults(short_tmp, "jam: [{shuffle: 1, sensor: stacker}]\n")
    events = Events(table.folder / "var" / "api.sock")
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
