"""The event stream (GET /api/events): the status snapshot first, then the socket's
events; read-only, so a flood of messages from a page closes it and harms no one else."""
import asyncio
import json

import aiohttp

from controller.api.web.server import MAX_WS_MESSAGE, MAX_WS_MESSAGES

from .web_harness import TIMEOUT, events

RON = {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}], "riichi": []}


def _until(port: int, name: str, act) -> list[dict]:
    """The stream's messages up to the first event ``name``, ``act()`` run after the snapshot."""
    async def read():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(f"http://127.0.0.1:{port}/api/events") as ws:
                got = [json.loads((await ws.receive(timeout=TIMEOUT)).data)]
                await asyncio.to_thread(act)
                while got[-1]["event"] != name:
                    got.append(json.loads((await ws.receive(timeout=TIMEOUT)).data))
                return got
    return asyncio.run(read())


def test_the_stream_begins_with_the_snapshot_then_gets_hand_ended(in_play):
    player = in_play.player()
    got = _until(in_play.web.port, "hand_ended", lambda: player.op("result", hand=1, result=RON))
    snapshot = got[0]
    assert snapshot["event"] == "snapshot" and snapshot["status"]["hand_in_play"]["seq"] == 1
    assert "ok" not in snapshot["status"]
    ended = got[-1]
    assert ended["record"]["result"] == RON and ended["record"]["payments"] == [0, 5200, -5200, 0]


def test_the_stream_has_the_sockets_events(in_play):
    player = in_play.player()
    got = events(in_play.web.port, 2, lambda: player.op("riichi", seat=3))
    assert got[1] == {"event": "riichi", "state": "playing", "seat": 3}


def _flood(port: int, messages: list[str]) -> tuple[int | None, bool]:
    """Send ``messages`` on a stream; (its close code, whether a second stream still reads)."""
    async def flood():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(f"http://127.0.0.1:{port}/api/events") as ws, \
                       session.ws_connect(f"http://127.0.0.1:{port}/api/events") as bystander:
                await ws.receive(timeout=TIMEOUT)
                await bystander.receive(timeout=TIMEOUT)
                for text in messages:
                    if ws.closed:
                        break
                    await ws.send_str(text)
                while (await ws.receive(timeout=TIMEOUT)).type not in (aiohttp.WSMsgType.CLOSE,
                                                                        aiohttp.WSMsgType.CLOSED):
                    pass
                return ws.close_code, not bystander.closed
    return asyncio.run(flood())


def test_a_flood_of_messages_closes_that_stream_only(in_play):
    code, bystander_open = _flood(in_play.web.port, ["{}"] * (MAX_WS_MESSAGES + 5))
    assert code == 1008 and bystander_open
    assert in_play.http().request("GET", "/api/status")[0] == 200


def test_an_oversized_message_closes_the_stream(in_play):
    code, bystander_open = _flood(in_play.web.port, ["x" * (MAX_WS_MESSAGE + 1)])
    assert code == 1009 and bystander_open


def test_the_stream_is_closed_without_credentials_when_spectators_need_a_pin(web_factory):
    closed = web_factory(spectators="pin")

    async def connect():
        async with aiohttp.ClientSession() as session:
            try:
                await session.ws_connect(f"http://127.0.0.1:{closed.web.port}/api/events")
            except aiohttp.WSServerHandshakeError as refused:
                return refused.status
    assert asyncio.run(connect()) == 401


def test_a_stream_from_another_sites_page_is_refused(in_play):
    async def connect():
        async with aiohttp.ClientSession() as session:
            try:
                await session.ws_connect(f"http://127.0.0.1:{in_play.web.port}/api/events",
                                         headers={"Origin": "http://evil.example"})
            except aiohttp.WSServerHandshakeError as refused:
                return refused.status
    assert asyncio.run(connect()) == 403
