"""The hall's service: the tables' results from the broker into the hall's store, each
exactly once, and the tables' tiles as the floor view keeps them.

A result arrives on ``{prefix}/{table_id}/results/{key}`` (controller/api/mqtt/results.py).
The hall takes it only from a table of its tournament (any other is logged and ignored),
finds the round it belongs to (the result's own ``round`` when the table plays from a
schedule, else the first round that table has not reported), stores it under its key in
one transaction, and only then confirms it on ``.../results/{key}/ack``. A result
received again (the table republishes until it is confirmed, the broker keeps it
retained) changes nothing and is confirmed again. A lost broker is tried again for ever,
as the floor view does (controller/api/floor/broker.py), and each new subscription gets
the retained results that came in while the hall was away.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable

import aiomqtt

from controller.api.floor.board import Board
from controller.api.floor.broker import Connection, keep_subscribed
from controller.hall import director
from controller.hall.store import HallStore, HallStoreError

log = logging.getLogger("mjtable.hall")


class Refused(Exception):
    """A result the hall does not take; the message says why (logged once per key)."""


class Hall:
    def __init__(self, store: HallStore, board: Board, on_change: Callable[[str], None] = lambda _: None,
                 on_result: Callable[[], None] = lambda: None,
                 on_broker: Callable[[bool, str | None], None] = lambda up, why: None) -> None:
        self.store = store
        self.board = board
        self.on_change = on_change
        self.on_result = on_result
        self.on_broker = on_broker
        self.table_numbers = {table_id: n for n, table_id in store.tables().items()}
        self._told: set[str] = set()  # keys whose refusal was logged already
        self._writing = asyncio.Lock()  # one change of the store at a time (its one connection)

    def subscriptions(self) -> list[str]:
        return [*self.board.subscriptions(), f"{self.board.prefix}/+/results/+"]

    async def follow(self, connection: Connection) -> None:
        await keep_subscribed(connection, self.subscriptions(), self.receive, self.on_broker, "hall")

    async def receive(self, client: aiomqtt.Client, topic: str, payload: bytes) -> None:
        parts = topic.removeprefix(self.board.prefix + "/").split("/")
        if len(parts) == 3 and parts[1] == "results":
            if payload:  # empty: a confirmed result cleared by its table
                await self.result(client, topic, parts[0], parts[2], payload)
            return
        changed = self.board.receive(topic, payload, time.time())
        if changed is not None:
            self.on_change(changed)

    async def result(self, client: aiomqtt.Client, topic: str, table_id: str, key: str, payload: bytes) -> None:
        try:
            async with self._writing:
                new, round_, table = await asyncio.to_thread(self.take, table_id, key, payload)
        except Refused as exc:
            if key not in self._told:
                self._told.add(key)
                log.warning("result %s from %s ignored: %s", key, table_id, exc)
            return
        except HallStoreError as exc:  # not confirmed: the table sends it again, and it is taken then
            log.error("result %s from %s not stored: %s", key, table_id, exc)
            return
        if new:
            log.info("round %d table %d (%s): result %s stored", round_, table, table_id, key)
            self.on_result()
        else:
            log.info("round %d table %d (%s): result %s again: stored already, nothing changed", round_, table,
                     table_id, key)
        await client.publish(f"{topic}/ack", b"stored", qos=1)

    async def direct(self, op: str, args: dict) -> dict:
        """A director's change asked on the control socket (controller/hall/director.py),
        made on the store, then the standings pushed; Refusal."""
        async with self._writing:
            reply = await asyncio.to_thread(director.handle, self.store, op, args)
        log.info("director's %s: %s", op, reply)
        self.on_result()
        return reply

    def take(self, table_id: str, key: str, payload: bytes) -> tuple[bool, int, int]:
        """Store one result (on the store's thread): (new?, round, table); Refused."""
        table = self.table_numbers.get(table_id)
        if table is None:
            raise Refused(f"{table_id} is not a table of this tournament (the tables file names "
                          f"{', '.join(sorted(self.table_numbers)) or 'none'})")
        result = _checked(payload, key)
        known = self.store.result_round(key)
        if known is not None:
            return False, known, table
        if result.get("table", table) != table:  # a table config's number, or the tables file, is wrong
            raise Refused(f"it says it is table {result['table']}, but the tables file has {table_id} as table {table}")
        round_ = result.get("round") or self._next_round(table)
        other = self.store.result_key(round_, table)
        if other is not None:  # a second game at one table in one round: which one counts is the director's call
            raise Refused(f"round {round_} table {table} has a result already ({other}); this second game is not "
                          f"counted")
        seating = {s.table: s for s in self.store.seating(round_)}
        if table not in seating:
            raise Refused(f"the seating has no table {table} in round {round_}")
        if len(seating[table].numbers) != len(result["winds"]):
            raise Refused(f"{len(result['winds'])} players, but the seating puts {len(seating[table].numbers)} "
                          f"at table {table} in round {round_}")
        return self.store.add_result(key, table_id, round_, table, result), round_, table

    def _next_round(self, table: int) -> int:
        rounds = sorted({s.round for s in self.store.seating() if s.table == table})
        done = {r.round for r in self.store.results() if r.table == table}
        left = [r for r in rounds if r not in done]
        if not left:
            raise Refused(f"table {table} has reported every round of the seating already")
        return left[0]


def _checked(payload: bytes, key: str) -> dict:
    try:
        result = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        raise Refused("not JSON") from None
    winds = result.get("winds") if isinstance(result, dict) else None
    if result.get("key") != key if isinstance(result, dict) else True:
        raise Refused("its key is not its topic's")
    if not isinstance(winds, list) or not 3 <= len(winds) <= 4 or not all(
            isinstance(w, dict) and all(isinstance(w.get(f), int) for f in ("score", "table_points", "rank"))
            for w in winds):
        raise Refused("it has no seats with score, table_points and rank")
    if "round" in result and not (isinstance(result["round"], int) and result["round"] >= 1):
        raise Refused(f"round {result['round']!r} is no round")
    return result
