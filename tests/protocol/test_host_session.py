"""The host's session outlives its connections: the real table facade (controller.table.Table)
against the simulated table on an in-memory line, in virtual time.

The host keeps one epoch for the life of its process, so a table that did not reboot
resumes the session after an outage and delivers what it queued meanwhile, each once. A
table that rebooted starts a new session: what its previous boot queued is gone.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging

from controller.table.facade import McuReset, Table
from controller.table.events import LinkDropped, TableFaulted, TableRebooted, UnexpectedMessage
from firmware_protocol.codes import Code
from firmware_protocol.virtual_time import run_virtual
from sim import DEFAULT_PROFILE, SimulatedTable, connect_in_process
from firmware_protocol.profile import load_profile

CUT = 10.0  # seconds the line is down: the dice (2 s) land and the watchdog (3 s) fires meanwhile


class Line:
    """The host's connector: each call plugs a fresh in-memory line into the table."""

    def __init__(self, table: SimulatedTable) -> None:
        self.table = table
        self.opened = 0
        self._host_end = None

    async def __call__(self):
        self.opened += 1
        self._host_end = connect_in_process(asyncio.get_running_loop(), self.table)
        return self._host_end

    def cut(self) -> None:
        """Pull the cable at the table's end: nothing more gets through, both ways."""
        self._host_end.peer.close()


async def _outage(reboot: bool) -> tuple[list, list, Table]:
    table = SimulatedTable(DEFAULT_PROFILE, seed=3)
    line = Line(table)
    events: list = []
    host = Table(line, on_event=events.append)
    await host.connect()
    await host.command("roll_dice", count=2)  # the table took it: its completion comes in 2 s
    line.cut()
    await asyncio.sleep(CUT)
    assert LinkDropped() in events
    if reboot:
        table.reset_mcu()
    before, events[:] = list(events), []
    try:
        await host.connect()
    except McuReset:  # the rebooted table's `booted` came first; the controller connects again
        await host.connect()
    await asyncio.sleep(1.0)
    await host.command("heartbeat")  # the session works both ways after the outage
    host.close()
    return before, events, table


def test_events_queued_while_the_line_was_down_arrive_after_the_reconnect_once():
    before, after, table = run_virtual(_outage(reboot=False))
    sent = [r.name for r in table.trace.records if r.dir == "event"]
    assert sent == ["dice_rolled", "fault"]  # both sent while the line was down
    assert not [e for e in before if isinstance(e, (TableFaulted, UnexpectedMessage))]
    completions = [e.message for e in after if isinstance(e, UnexpectedMessage)]
    faults = [e.fault for e in after if isinstance(e, TableFaulted)]
    assert [m.name for m in completions] == ["dice_rolled"]  # nobody waits on it any more
    assert [f.code for f in faults] == [Code.WATCHDOG]
    assert not [e for e in after if isinstance(e, TableRebooted)]


def test_a_table_that_rebooted_meanwhile_starts_a_new_session():
    before, after, table = run_virtual(_outage(reboot=True))
    assert {type(e) for e in after} == {TableRebooted}  # the old boot's events are gone with it
    assert [r.name for r in table.trace.records if r.dir == "event"] == ["dice_rolled", "fault", "booted"]


async def _sized_session(frame_size: int) -> tuple[SimulatedTable, Table]:
    profile = dataclasses.replace(load_profile(DEFAULT_PROFILE), frame_size=frame_size)
    table = SimulatedTable(profile, seed=3)
    host = Table(Line(table))
    identity = await host.connect()
    assert identity["frame_size"] == frame_size
    return table, host


def test_the_host_honours_a_small_frame_size_and_shortens_text_to_fit():
    async def main():
        table, host = await _sized_session(32)
        await host.show_text("東南西北" * 3)  # 36 bytes of text; 24 fit a 32-byte frame
        await host.show_scores([25000, 25000, 25000, 25000], 0, 0)  # 25 bytes: fits whole
        await host.show_text("ready")
        stats = table.firmware._link.stats
        host.close()
        return table, stats

    table, stats = run_virtual(main())
    shown = [r.args["text"] for r in table.trace.records if r.name == "show_text"]
    assert shown == ["東南西北東南西北", "ready"]
    assert table.model.centre_display.text == "ready"
    assert stats.oversize == 0  # nothing longer than the table's buffer was ever sent


def test_the_host_logs_protocol_errors_rate_limited(caplog):
    async def main():
        table = SimulatedTable(DEFAULT_PROFILE, seed=3)
        host = Table(Line(table))
        await host.connect()
        # A firmware bug: an event with a payload the catalog cannot decode (walls_raised has
        # no fields), queued on the table's link and sent with its next frames.
        for _ in range(5):
            table.firmware._link.send(0x52, b"\x07")
            await asyncio.sleep(2.0)
        await asyncio.sleep(30.0)
        table.firmware._link.send(0x52, b"\x07")
        await asyncio.sleep(2.0)
        host.close()

    with caplog.at_level(logging.WARNING, logger="mjtable.link"):
        run_virtual(main())
    warnings = [r.getMessage() for r in caplog.records if "protocol error" in r.getMessage()]
    assert len(warnings) == 2  # one at once, the next after the quiet period, with the count
    assert "walls_raised: 1 unexpected trailing bytes" in warnings[0]
    assert "(4 more since the last warning)" in warnings[1]
