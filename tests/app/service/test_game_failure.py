"""A game task that fails on a bug is never silent: it becomes a described fault (its hands
kept, `abandon` or a restart the way on), logged once with its traceback; and the table
facade stays in step whatever a command raises, so the next game plays."""
from __future__ import annotations

import asyncio
import logging

import pytest

from controller.api.client import RequestError
from controller.table.facade import Table
from firmware_protocol.catalog import EncodeError
from firmware_protocol.codes import Code
from firmware_protocol.virtual_time import run_virtual
from .service_harness import wait_for
from sim.serve import connect_in_process
from sim.table import SimulatedTable

RON = {"kind": "ron", "discarder": 1, "winners": [{"seat": 0, "han": 3, "fu": 30}]}
TOO_BIG = 3_000_000_000  # beyond the i32 of show_scores


def test_a_command_that_cannot_be_encoded_leaves_the_facade_in_step():
    async def scenario():
        loop = asyncio.get_running_loop()
        sim = SimulatedTable()
        table = Table(lambda: _connected(loop, sim))
        await table.connect()
        with pytest.raises(EncodeError):
            await table.show_scores([TOO_BIG] * 4, 0, 0)
        status = await asyncio.wait_for(table.get_status(), 5.0)
        table.close()
        return status
    assert "sets" in run_virtual(scenario())


async def _connected(loop, sim):
    return connect_in_process(loop, sim)


def _overflow_the_displays_once(service):
    """The next scores shown are beyond the display encoding (as a result the rules let
    through would make them): the command raises EncodeError inside the game task."""
    table = service.controller.table
    real = table.show_scores

    async def overflowing(scores, mode, dealer):
        table.show_scores = real
        return await real([TOO_BIG] * 4, mode, dealer)
    table.show_scores = overflowing


def test_a_failed_game_task_is_a_described_fault_until_abandon(service, caplog):
    caplog.set_level(logging.ERROR, logger="mjtable.service")
    service.request("start")
    service.wait_playing(1)
    service.call(_overflow_the_displays_once, service)
    assert service.request("result", hand=1, result=RON) == {"duplicate": False}

    status = wait_for(lambda: (s := service.status())["state"] == "fault" and s, "the game's fault")
    assert status["fault_code"] == Code.GAME_STOPPED
    assert "internal error" in status["fault"] and "EncodeError" in status["fault"]
    assert "abandon" in status["fault"] and "restart" in status["fault"]
    assert "retry" not in status["fault"]
    (game,) = service.stored()
    assert [h["result"]["winners"] for h in game["hands"]] == [RON["winners"]]  # the hand is kept
    with pytest.raises(RequestError) as refused:
        service.request("retry")
    assert refused.value.code == "not_allowed" and "abandon" in refused.value.message
    assert Code.GAME_STOPPED in service.shown()["errors"]
    tracebacks = [r for r in caplog.records if r.exc_info and r.name == "mjtable.service"]
    assert len(tracebacks) == 1 and "internal error" in tracebacks[0].getMessage()

    service.request("abandon")
    assert service.status()["state"] == "idle" and service.status()["fault"] is None
    service.request("start")
    service.wait_playing(1)  # the facade is in step: the next game sets up its walls
    assert service.request("result", hand=1, result=RON) == {"duplicate": False}
    service.wait_playing(2)

