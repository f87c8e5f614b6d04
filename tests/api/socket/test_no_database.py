"""A controller built without a state database (an in-process simulation's) refuses what
needs one, each op with the same words and changing nothing."""
from __future__ import annotations

import asyncio

from controller import rules as R
from controller.game.controller import Controller
from controller.errors import Refusal
from controller.api.handlers import Service
from firmware_protocol.virtual_time import run_virtual
from sim.serve import connect_in_process
from sim.table import SimulatedTable

NEEDING_ONE = [  # (op, args, what the refusal says is missing)
    ("journal", {}, "no journal"),
    ("session_start", {}, "no sessions"),
    ("schedule_import", {"players": [{"number": n, "name": f"P{n}"} for n in range(1, 5)],
                         "tables": [[1, 1, 1, 2, 3, 4]]}, "it has no schedule"),
    ("start", {"round": 1}, "it has no schedule"),
]


def test_each_op_that_needs_the_database_says_there_is_none():
    async def scenario():
        loop = asyncio.get_running_loop()
        sim = SimulatedTable()

        async def connect():
            return connect_in_process(loop, sim)
        controller = Controller(connect, R.load_ruleset("ema-2016"))
        service = Service(controller, table_number=1)
        await service.start()
        replies = []
        try:
            for op, args, _ in NEEDING_ONE:
                try:
                    replies.append(await service.handle(op, args))
                except Refusal as exc:
                    replies.append((exc.code, exc.message))
            return replies, controller.sm.state
        finally:
            controller.close()
    replies, state = run_virtual(scenario())
    assert replies == [("not_allowed", f"this controller keeps no state database, so {missing}")
                       for _, _, missing in NEEDING_ONE]
    assert state == "idle"
