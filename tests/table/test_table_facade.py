"""The table facade over the simulated table: what it tells its user unasked (typed
events), what it logs (unexpected messages, the recent messages on a fault, a lost link
or a reboot), and that closing it leaves nothing running."""
from __future__ import annotations

import asyncio
import logging

import pytest

from controller.table.facade import CLEAN_LINE_PATIENCE, UNEXPECTED_LOG_EVERY, Table, TableFault
from controller.table.events import (ButtonPressed, Fault, LinkDropped, TableFaulted, TableRebooted,
                                     UnexpectedMessage)
from controller.table.traffic import RECENT_MESSAGES
from firmware_protocol.codes import Code
from firmware_protocol.virtual_time import run_virtual
from sim.faults import FaultPlan
from sim.serve import connect_in_process
from sim.table import SimulatedTable


class Session:
    """A facade connected to a simulated table; `events` is everything it handed over."""

    def __init__(self, faults: FaultPlan | None = None, **table) -> None:
        self.loop = asyncio.get_running_loop()
        self.sim = SimulatedTable(faults=faults)
        self.events: list = []
        self.host = Table(self._connect, on_event=self.events.append, **table)

    async def _connect(self):
        return connect_in_process(self.loop, self.sim)

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]

    def close(self) -> None:
        self.host.close()
        self.sim.close()


def in_session(scenario, faults: FaultPlan | None = None, **table):
    """Run `scenario(session)` on a connected facade (`table`: Table's options), in virtual time."""
    async def run():
        session = Session(faults, **table)
        await session.host.connect()
        try:
            return await scenario(session)
        finally:
            session.close()
    return run_virtual(run())


def dumps(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "mjtable.table" and "the last" in r.getMessage()]


def test_a_seat_button_comes_as_a_button_press():
    async def press(s: Session):
        s.sim.press_button(2, "riichi")
        await asyncio.sleep(0.5)
        return s.events
    assert in_session(press) == [ButtonPressed(seat=2, button="riichi")]


def test_a_fault_fails_the_operation_comes_as_an_event_and_logs_the_messages_before_it(caplog):
    caplog.set_level(logging.INFO, "mjtable.table")

    async def jam(s: Session):
        await s.host.set_dealer_lamp(3)
        await s.host.raise_walls()  # the lifts free for the collected set
        with pytest.raises(TableFault) as failed:
            await s.host.shuffle()
        return failed.value.fault, s.events
    fault, events = in_session(jam, FaultPlan(jam={1: "stacker"}))
    assert fault == Fault(Code.JAM, "shuffler", "stacker", 0, 0)
    assert events == [TableFaulted(fault)]
    [dump] = dumps(caplog)
    assert dump.startswith("the table stopped on a fault, E200 jam at stacker")
    lines = dump.splitlines()[1:]
    order = [next(i for i, line in enumerate(lines) if what in line) for what in (
        "sent      set_dealer_lamp(seat=3)", "sent      shuffle", "received  fault(code=200, subsystem=2")]
    assert order == sorted(order)
    assert lines[-1].endswith("received  fault(code=200, subsystem=2, sensor=3, expected=0, counted=0)")


def test_the_dump_keeps_only_the_most_recent_messages(caplog):
    caplog.set_level(logging.INFO, "mjtable.table")

    async def chatter_then_jam(s: Session):
        for i in range(RECENT_MESSAGES):
            await s.host.show_text(f"line {i}")
        await s.host.raise_walls()
        with pytest.raises(TableFault):
            await s.host.shuffle()
    in_session(chatter_then_jam, FaultPlan(jam={1: "stacker"}))
    [dump] = dumps(caplog)
    lines = dump.splitlines()[1:]
    assert len(lines) == RECENT_MESSAGES
    assert "identify" not in dump and "line 0'" not in dump  # the oldest went first
    assert f"line {RECENT_MESSAGES - 1}'" in dump


def test_an_operation_past_its_deadline_logs_the_messages_before_the_host_gave_up(caplog):
    caplog.set_level(logging.INFO, "mjtable.table")

    async def slow_dice(s: Session):
        with pytest.raises(TableFault) as failed:
            await s.host.roll_dice(2)  # 2 s on this table
        return failed.value
    overdue = in_session(slow_dice, operation_limits={"roll_dice": 1.0})
    assert overdue.fault.code == Code.OPERATION_TIMEOUT and overdue.fault.subsystem == "dice"
    [dump] = dumps(caplog)
    assert dump.startswith("the host gave up waiting, E202 operation_timeout: roll_dice still running after 1 s")
    assert dump.splitlines()[-1].endswith("received  ok")  # the stop's: sent, then answered, before the fault
    assert "sent      roll_dice(count=2)" in dump and "sent      stop" in dump


def test_a_lost_link_comes_as_an_event_and_logs_the_messages_before_it(caplog):
    caplog.set_level(logging.INFO, "mjtable.table")

    async def hang_up(s: Session):
        await s.host.roll_dice(2)
        s.sim.close()  # the table's end of the line goes away
        await asyncio.sleep(1)
        return s.host.connected, s.events
    connected, events = in_session(hang_up)
    assert not connected and events == [LinkDropped()]
    [dump] = dumps(caplog)
    assert dump.startswith("the link to the table is lost")
    assert "sent      roll_dice(count=2)" in dump and "received  dice_rolled(values=" in dump


def test_a_reboot_comes_as_an_event_and_logs_the_messages_before_it(caplog):
    caplog.set_level(logging.INFO, "mjtable.table")

    async def reset(s: Session):
        await s.host.set_dealer_lamp(1)
        s.sim.reset_mcu()
        await asyncio.sleep(5)  # the host hears of it at its next heartbeat, a second later at most

        return s.sim.boot_id, s.events
    boot_id, events = in_session(reset)
    assert events == [TableRebooted(boot_id)]
    [dump] = dumps(caplog)
    assert dump.startswith(f"the table rebooted (boot id {boot_id})")
    assert "sent      set_dealer_lamp(seat=1)" in dump


def test_a_completion_nothing_waits_for_is_logged_and_handed_over(caplog):
    caplog.set_level(logging.WARNING, "mjtable.table")

    async def roll_unawaited(s: Session):
        await s.host.command("roll_dice", count=2)  # the command alone: nobody waits for its end
        await asyncio.sleep(5)
        return s.events
    [event] = in_session(roll_unawaited)
    assert isinstance(event, UnexpectedMessage) and event.message.name == "dice_rolled"
    assert [r.getMessage() for r in caplog.records] == [
        f"unexpected dice_rolled(values={event.message['values']}) from the table: no operation was waiting for it"]


def test_a_flood_of_unexpected_messages_is_logged_once_per_interval_and_counted(caplog):
    caplog.set_level(logging.WARNING, "mjtable.table")

    async def flood(s: Session):
        for _ in range(4):  # within one interval: one warning
            await s.host.command("roll_dice", count=2)
            await asyncio.sleep(2.5)
        await asyncio.sleep(UNEXPECTED_LOG_EVERY)
        await s.host.command("roll_dice", count=2)
        await asyncio.sleep(2.5)
        return s.of(UnexpectedMessage)
    unexpected = in_session(flood)
    assert len(unexpected) == 5  # every one is handed over, whatever is logged
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2
    assert warnings[1].endswith("no operation was waiting for it (3 more unexpected messages since the last warning)")


def test_closing_the_facade_leaves_no_task_or_timer_of_it_running():
    async def beat_then_close(s: Session):
        await asyncio.sleep(10)  # heartbeats meanwhile
        s.host.close()
        await asyncio.sleep(0)  # the cancelled tasks finish
        beats = sum(1 for r in s.sim.trace.records if r.dir == "cmd" and r.name == "heartbeat")
        timers = [h for h in s.loop._scheduled if not h.cancelled() and getattr(h._callback, "__self__", None) is s.host]
        return beats, asyncio.all_tasks() - {asyncio.current_task()}, timers
    beats, left, timers = in_session(beat_then_close)
    assert beats >= 5 and left == set() and timers == []


def test_on_an_idle_line_a_table_that_stops_answering_heartbeats_is_one_fault_on_time():
    async def hang(s: Session):
        emit = s.sim.firmware._emit
        s.sim.firmware._emit = lambda to, msg: None if to == "reply" else emit(to, msg)  # acks, never answers
        await asyncio.sleep(CLEAN_LINE_PATIENCE - 0.1)  # the first unanswered heartbeat goes out within a second
        early = s.of(TableFaulted)
        await asyncio.sleep(1.2 + 5)
        return early, s.of(TableFaulted), s.of(LinkDropped)
    early, faults, dropped = in_session(hang)
    assert early == [] and dropped == []
    [fault] = faults
    assert fault.fault.code == Code.OPERATION_TIMEOUT and "no reply to heartbeat" in fault.fault.describe()


def test_on_an_idle_line_a_table_that_falls_silent_is_a_lost_link_within_a_heartbeat_and_give_up():
    async def silence(s: Session):
        table_end = s.host._endpoint._transport.peer
        table_end.set_receiver(lambda data: None)
        table_end.write = lambda data: None  # deaf and mute, the line still there
        await asyncio.sleep(1.0 + s.host._link.give_up + 0.01)  # the next heartbeat, then the link's give-up
        return s.of(LinkDropped), s.host.connected
    assert in_session(silence) == ([LinkDropped()], False)


def beats(s: Session) -> int:
    return sum(1 for r in s.sim.trace.records if r.dir == "cmd" and r.name == "heartbeat")


def test_no_heartbeat_goes_out_while_other_commands_flow():
    async def busy(s: Session):
        for _ in range(40):  # 20 s, a command every half second (the watchdog's third is 1 s)
            await s.host.command("get_status")
            await asyncio.sleep(0.5)
        return beats(s), s.sim.firmware.fault
    assert in_session(busy) == (0, 0)


def test_an_idle_line_keeps_the_tables_watchdog_fed():
    async def idle(s: Session):
        await asyncio.sleep(600)
        return beats(s), s.of(TableFaulted), s.sim.firmware.fault
    heartbeats, faults, fault = in_session(idle)
    assert heartbeats >= 590 and faults == [] and fault == 0
