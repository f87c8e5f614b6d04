"""The director's orders to every table at once, over the broker: the seating
(``schedule_import``), ``start`` of a round, a time ``signal``.

Each table gets the op on its ``command`` topic (docs/MQTT.md: carried out only with its
``commands: true`` and the broker's ACL letting the hall write there), with an id of this
order, and its answer comes back on ``command/reply``: the table checks the seating with
its own ``schedule import`` rules and refuses what it cannot seat, with the reason. A
table that does not answer in time is said to, with the likely causes.
"""
from __future__ import annotations

import asyncio
import json
import uuid

import aiomqtt

from controller.api.floor.broker import Connection, payload_bytes
from controller.api.server import MAX_MESSAGE
from controller.club.players import MAX_NAME_BYTES
from controller.club.schedule import TableSeating
from controller.hall.entry import HallPlayer

ANSWER_TIMEOUT = 10.0  # seconds every table has to answer


def display_names(players: dict[int, HallPlayer]) -> dict[int, str]:
    """Each player's name on the tables' displays: ``Ann Archer``, else ``Ann A.`` when that
    is too long for a seat display, cut to fit; the tournament number added where two
    would read the same."""
    names, seen = {}, set()
    for n, p in sorted(players.items()):
        name = _fit(f"{p.first_name} {p.last_name}") if _fits(f"{p.first_name} {p.last_name}") \
            else _fit(f"{p.first_name} {p.last_name[0]}.")
        if name.casefold() in seen:
            name = _fit(name, f" {n}")
        seen.add(name.casefold())
        names[n] = name
    return names


def _fits(text: str) -> bool:
    return len(text.encode()) <= MAX_NAME_BYTES


def _fit(text: str, suffix: str = "") -> str:
    room = MAX_NAME_BYTES - len(suffix.encode())
    return text.encode()[:room].decode(errors="ignore").rstrip() + suffix


def schedule_request(players: dict[int, HallPlayer], seating: list[TableSeating]) -> dict:
    """``schedule_import``'s arguments: every player and every table of every round (each
    table checks the whole schedule, as `mjtable schedule import` has it do)."""
    names = display_names(players)
    return {"op": "schedule_import",
            "players": [{"number": n, "name": names[n], **({"ema_id": p.ema_id} if p.ema_id else {})}
                        for n, p in sorted(players.items())],
            "tables": [[s.round, s.table, *s.numbers] for s in seating]}


async def send(connection: Connection, prefix: str, tables: dict[int, str], request: dict,
               timeout: float = ANSWER_TIMEOUT) -> dict[int, dict | None]:
    """``request`` to every table; table number -> its reply (None: no answer in time)."""
    order = f"hall-{uuid.uuid4().hex[:8]}"
    topics = {f"{prefix}/{table_id}/command/reply": n for n, table_id in tables.items()}
    replies: dict[int, dict | None] = dict.fromkeys(tables)
    try:
        async with connection.client() as client:
            for topic in topics:
                await client.subscribe(topic, qos=1)
            for n, table_id in tables.items():
                await client.publish(f"{prefix}/{table_id}/command", json.dumps({**request, "id": f"{order}-{n}"}),
                                     qos=1)
            try:
                await asyncio.wait_for(_answers(client, topics, order, replies), timeout)
            except asyncio.TimeoutError:
                pass
    except aiomqtt.MqttError as exc:  # the broker refused the account, or is not there
        why = {"ok": False, "error": {"code": "not_sent", "message": f"not sent: the broker {connection.host}:"
                                                                     f"{connection.port} refused or lost the "
                                                                     f"connection as {connection.username} ({exc})"}}
        return {n: replies[n] or why for n in tables}
    return replies


async def _answers(client: aiomqtt.Client, topics: dict[str, int], order: str, replies: dict) -> None:
    async for message in client.messages:
        try:
            reply = json.loads(payload_bytes(message.payload))
        except ValueError:
            continue
        n = topics.get(message.topic.value)
        if n is not None and isinstance(reply, dict) and reply.get("id") == f"{order}-{n}":
            replies[n] = reply
        if all(r is not None for r in replies.values()):
            return


def answer_lines(tables: dict[int, str], replies: dict[int, dict | None], done: str, timeout: float) -> list[str]:
    """One line per table: done, refused (the table's reason) or silent."""
    lines = []
    for n, table_id in sorted(tables.items()):
        reply = replies.get(n)
        if reply is None:
            lines.append(f"table {n} ({table_id}): no answer in {timeout:g} s (offline, its mqtt.commands off, "
                         f"or the broker's ACL does not let this account command it)")
        elif reply.get("ok"):
            lines.append(f"table {n} ({table_id}): {done}" + "".join(f"; warning: {w}" for w in _warnings(n, reply)))
        else:
            error = reply.get("error") or {}
            told = "" if error.get("code") == "not_sent" else "refused: "
            lines.append(f"table {n} ({table_id}): {told}{error.get('message', error)}")
    return lines


def _warnings(number: int, reply: dict) -> list[str]:
    """What a table accepted but the director must know: its own warnings, and a table that
    is not the number the tables file gives it."""
    found = [w for w in reply.get("warnings", ()) if isinstance(w, str)]
    if "table" in reply and reply["table"] != number:
        found.append(f"it is table {reply['table']} by its config (table.number), not {number}: it would seat "
                     f"the players of another table")
    return found


def too_large(request: dict) -> str | None:
    """Why ``request`` cannot go to a table in one command (the control API's 64 KB), if so."""
    size = len(json.dumps(request, separators=(",", ":")).encode()) + 64  # the order's id
    if size > MAX_MESSAGE:
        return (f"the order takes {size // 1024} KB, more than a table takes in one command ({MAX_MESSAGE // 1024} "
                f"KB); nothing was sent")
    return None
