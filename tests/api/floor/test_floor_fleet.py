"""A few simulated tables play whole games on the broker, as their controllers publish them,
while the floor view is open: every hand of every table shows on the floor."""
from __future__ import annotations

import asyncio

from benchmarks.fleet import play_fleet, watch

from ...support.mosquitto import PASSWORD

TABLES = 3
SPEED = 2000  # a hanchan in about a second
WAIT = 30.0  # for the last hands after the games: a hang guard, not a measure


def test_every_hand_of_every_table_shows_on_the_floor(broker, floor):
    seen: dict = {}

    async def games_and_floor():
        watcher = asyncio.ensure_future(watch(floor.url, seen.__setitem__))
        try:
            tables = await play_fleet(TABLES, speed=SPEED, broker=broker.url, password=PASSWORD, seed=5)
            ended = {hand: t for table in tables for hand, t in table.ended.items()}
            await asyncio.wait_for(_until(lambda: ended.keys() <= seen.keys()), WAIT)
        finally:
            watcher.cancel()
        return tables, ended

    tables, ended = asyncio.run(games_and_floor())
    assert all(t.controller.standings is not None for t in tables)  # each game played to its end
    assert {table for table, _, _ in ended} == {"fleet-1", "fleet-2", "fleet-3"}
    assert len(ended) == sum(len(t.controller.results_so_far) for t in tables)
    assert ended.keys() <= seen.keys()


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.05)
