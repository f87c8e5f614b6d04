"""Maintenance through the running controller (protocol 1.1): the table's counters, and
the sensor test, one subsystem at a time.

The state rules: the counters may be read at any time; resetting them and the sensor test
are refused during a game (anywhere but `idle` and `game_over`), and a game is refused
while a test runs. The table itself refuses maintenance mode while an operation runs (a
background shuffle after the last hand) and the game's motion while in it; each request
enters and leaves the mode, so the table is never left in it (a new session leaves it too).
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from firmware_protocol.catalog import SEAT_TESTS, TEST_SUBSYSTEMS

from controller.errors import Refusal
from controller.table.capabilities import Capabilities
from controller.table.facade import Table, TableError

log = logging.getLogger("mjtable.maintenance")

SIDES = 4
def tests_of(caps: Capabilities) -> list[tuple[str, int]]:
    """(subsystem, seat) of every test the table has, in TEST_SUBSYSTEMS order."""
    return [(subsystem, seat) for subsystem in TEST_SUBSYSTEMS if has(caps, subsystem)
            for seat in (range(SIDES) if subsystem in SEAT_TESTS else (0,))]


def has(caps: Capabilities, subsystem: str) -> bool:
    return {"separator": caps.dead_wall_separator, "dora": caps.dora_flipper, "marker": caps.has_wind_marker,
            "display": caps.seat_displays, "buttons": caps.seat_buttons}.get(subsystem, True)


class Maintenance:
    """Handed what it uses: the table facade, the machine (between games?) and the
    maintenance reminders."""

    def __init__(self, table: Table, sm, reminders) -> None:
        self.table, self.sm, self.reminders = table, sm, reminders
        self._testing = asyncio.Lock()

    def refuse_game(self) -> None:
        """For `start`: no game while a sensor test runs."""
        if self._testing.locked():
            raise Refusal("not_allowed", "a sensor test is running (mjtable maintenance); start when it ends")

    async def counters(self) -> dict[str, Any]:
        table = self._table("counters")
        with _refused():
            return {"counters": await table.get_counters()}

    async def reset_service_counter(self) -> dict[str, Any]:
        """The table's cycles since service from 0, and every maintenance reminder; a table
        without counters (protocol 1.0) has only the reminders of the controller's counters."""
        self._out_of_game("record a service")
        reminders = self.reminders
        caps = self.table.capabilities
        if reminders.intervals and caps is not None and not caps.counters:
            await reminders.serviced()
            log.info("service recorded: the maintenance reminders count from now (the table keeps no counters)")
            return {"counters": None}
        table = self._table("counters")
        with _refused():
            await table.reset_service_counter()
            log.info("service recorded: the table's cycles since service start again from 0")
            await self.reminders.serviced()
            return {"counters": await table.get_counters()}

    async def sensor_test(self, subsystem: str | None = None, seat: int | None = None) -> dict[str, Any]:
        """The named subsystem (at one seat, or all four for a seat's display or buttons),
        or every subsystem the table has; then every sensor."""
        self._out_of_game("run the sensor test")
        table = self._table("sensor_test")
        tests = self._chosen(table.capabilities, subsystem, seat)
        async with self._testing:
            with _refused():
                await table.enter_maintenance()
                try:
                    results = [await self._run(table, *test) for test in tests]
                    sensors = await table.read_sensors()
                finally:
                    await table.leave_maintenance()
        return {"tests": results, "sensors": sensors}

    # ---- the rules ----
    def _out_of_game(self, what: str) -> None:
        sm = self.sm
        if not (sm.between_games() and sm.is_motion_running()):
            raise Refusal("not_allowed", f"cannot {what} during a game (state {sm.state}): "
                                          f"finish or abandon the game first")

    def _table(self, feature: str) -> Table:
        table = self.table
        if not table.connected or table.capabilities is None:
            raise Refusal("not_allowed", "the table is not connected")
        caps = table.capabilities
        if not getattr(caps, feature):
            version = f"protocol 1.{caps.protocol_minor}"
            raise Refusal("not_allowed", f"table {caps.model} ({version}) has no "
                                          f"{'counters' if feature == 'counters' else 'sensor test'}")
        return table

    @staticmethod
    def _chosen(caps: Capabilities, subsystem: str | None, seat: int | None) -> list[tuple[str, int]]:
        if subsystem is None:
            return tests_of(caps)
        if not has(caps, subsystem):
            raise Refusal("not_allowed", f"table {caps.model} has no {subsystem} to test")
        if subsystem not in SEAT_TESTS:
            return [(subsystem, 0)]
        return [(subsystem, s) for s in (range(SIDES) if seat is None else (seat,))]

    @staticmethod
    async def _run(table: Table, subsystem: str, seat: int) -> dict[str, Any]:
        where = {"subsystem": subsystem, **({"seat": seat} if subsystem in SEAT_TESTS else {})}
        try:
            done = await table.test_subsystem(subsystem, seat)
        except TableError as exc:  # refused, or the test faulted: reported, the next one runs
            return {**where, "passed": False, "message": str(exc)}
        return {**where, "passed": done["result"] == 0, "code": done["result"], "sensor": done["sensor"]}


@contextmanager
def _refused() -> Iterator[None]:
    """A table that refuses (busy with an operation) or is lost: the request is refused."""
    try:
        yield
    except TableError as exc:
        raise Refusal("not_allowed", f"the table: {exc}") from None
