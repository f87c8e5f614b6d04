"""The maintenance ops of a running service (docs/MAINTENANCE.md): a game is refused while
a sensor test runs, a test is refused while the table runs an operation, and the table is
never left in maintenance mode."""
import asyncio

import pytest

from controller.errors import Refusal


def test_start_is_refused_while_a_sensor_test_runs_and_allowed_after_it(service):
    async def start_during_the_test():
        test = asyncio.ensure_future(service.service.handle("sensor_test", {"subsystem": "lifts"}))
        await asyncio.sleep(0)  # the test has entered maintenance mode and waits on the lifts
        with pytest.raises(Refusal, match="a sensor test is running"):
            await service.service.handle("start", {})
        return await test
    tested = service.call(start_during_the_test)
    assert [(t["subsystem"], t["passed"]) for t in tested["tests"]] == [("lifts", True)]
    assert not service.table.firmware.maintenance.active  # left at the end of the test
    assert service.request("start")["state"] == "preparing"


def test_the_table_refuses_maintenance_while_an_operation_runs_and_changes_nothing(service):
    async def test_while_moving():
        service.table.firmware.mechanics.start("raise_walls", {})  # moving on its own, as a real table may
        with pytest.raises(Refusal, match="E101 busy: raise_walls is running"):
            await service.service.handle("sensor_test", {})
    service.call(test_while_moving)
    assert not service.table.firmware.maintenance.active and service.status()["state"] == "idle"
