"""A table whose config gives no `table.number`: it takes a schedule, with a warning, but
refuses to start a round, changing nothing (the service in process, as `mjtable run`
assembles it)."""
import pytest

from controller.api.client import RequestError
from controller.store.database import Store

from ...app.service.service_harness import wait_for


def test_a_table_without_a_number_takes_a_schedule_but_starts_no_round(service):
    wait_for(lambda: service.status()["state"] == "idle", "the controller to be ready")
    players = [{"number": n, "name": name} for n, name in enumerate(("Ann", "Bo", "Cy", "Di"), start=1)]
    reply = service.request("schedule_import", players=players, tables=[[1, 7, 1, 2, 3, 4]])
    assert (reply["players"], reply["rounds"], reply["table"], reply["rounds_here"]) == (4, [1], None, [])
    assert reply["warnings"] == ["this table has no number (table.number in the table config): "
                                 "starting a round needs it to find its seats"]
    with Store(service.database, create=False) as reader:  # a reader of its own, as `mjtable schedule show`
        assert reader.schedule(1, 7)[0] == {"number": 1, "name": "Ann"}
    with pytest.raises(RequestError) as refused:
        service.request("start", round=1)
    assert (refused.value.code, refused.value.message) == (
        "not_allowed", "this table has no number: set table.number in the table config to take its seats from "
                       "the schedule")
    status = service.status()
    assert status["state"] == "idle" and "scores" not in status
