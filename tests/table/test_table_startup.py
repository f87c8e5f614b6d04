"""A table announces its power-on with `booted` (PROTOCOL.md "Boot"): meeting one at
start-up is the normal case, not a reboot, and the host says nothing alarming about it."""
import asyncio
import logging

from firmware_protocol.codes import Code
from firmware_protocol.virtual_time import run_virtual
from sim.serve import connect_in_process
from sim.table import SimulatedTable

from controller import rules as R
from controller.game.controller import Controller
from controller.table.facade import Table


def _powered_on(loop):
    """A table whose `booted` waits in its link for the host's first session; its line."""
    table = SimulatedTable(seed=3, loop=loop)
    line = connect_in_process(loop, table)
    table.reset_mcu()  # queued like a power-on's booted: sent in the first session
    return table, line


def test_a_booted_at_start_up_is_no_reboot_and_identify_succeeds_at_once():
    async def main():
        table, line = _powered_on(asyncio.get_running_loop())
        events, connections = [], []

        async def connector():
            connections.append(line)
            return line

        host = Table(connector, on_event=lambda kind, value: events.append(kind))
        identity = await host.connect()
        await asyncio.sleep(1)
        host.close()
        return identity, table, events, connections

    identity, table, events, connections = run_virtual(main())
    assert identity["boot_id"] == table.boot_id
    assert table.trace.named("booted") and len(connections) == 1
    assert "mcu_reset" not in events


def test_controller_start_up_logs_no_warning_when_the_table_announces_its_boot(caplog):
    async def main():
        table, line = _powered_on(asyncio.get_running_loop())

        async def connector():
            return line

        controller = Controller(connector, R.load_ruleset("ema-2016"), seed=1)
        await controller.start()
        state = controller.sm.state
        controller.close()
        return state

    with caplog.at_level(logging.INFO):
        assert run_virtual(main()) == "idle"
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_table_found_stopped_without_a_fault_is_shown_paused_until_the_operators_resume():
    # A host's pause (fault 0), that host killed before it could store it: not this host's
    # own watchdog stop, so it is shown paused and nothing is sent to move it.
    async def main():
        loop = asyncio.get_running_loop()
        table = SimulatedTable(seed=3, loop=loop)
        line = connect_in_process(loop, table)
        table.firmware.stopped = True

        async def connector():
            return line

        controller = Controller(connector, R.load_ruleset("ema-2016"), seed=1)
        await controller.start()
        await asyncio.sleep(10)
        held = (controller.sm.state, controller.snapshot()["waiting_for"], table.firmware.stopped,
                [r.name for r in table.trace.named("resume", "cmd")])
        await controller.resume()
        after = (controller.sm.state, table.firmware.stopped)
        controller.close()
        return held, after

    held, after = run_virtual(main())
    assert held == ("paused", "resume", True, [])
    assert after == ("idle", False)


def test_a_table_stopped_by_its_watchdog_with_its_lid_open_is_a_fault_for_the_operator_not_a_crash():
    # The host was away long enough for the table's watchdog, and meanwhile someone opened
    # the lid: the resume at start-up is refused, which is the operator's to see to.
    async def main():
        loop = asyncio.get_running_loop()
        table = SimulatedTable(seed=3, loop=loop)
        line = connect_in_process(loop, table)
        table.firmware.stopped, table.firmware.fault = True, int(Code.WATCHDOG)
        table.open_lid()

        async def connector():
            return line

        controller = Controller(connector, R.load_ruleset("ema-2016"), seed=1)
        await controller.start()
        await asyncio.sleep(5)
        held = (controller.sm.state, controller.snapshot()["fault_code"], table.firmware.stopped)
        table.close_lid()
        controller.retry()
        await asyncio.sleep(5)
        after = (controller.sm.state, controller.fault, table.firmware.stopped)
        controller.close()
        return held, after

    held, after = run_virtual(main())
    assert held[1] == Code.LID_OPEN and held[2] is True, held
    assert after == ("idle", None, False), after
