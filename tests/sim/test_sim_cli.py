"""`mjtable sim`: its errors, and TCP connections replacing each other."""
from __future__ import annotations

import asyncio

from controller.cli import main
from firmware_protocol.catalog import Message
from firmware_protocol.endpoint import LinkEndpoint
from firmware_protocol.link import Link
from firmware_protocol.transport import SerialTransport
from sim import DEFAULT_PROFILE, SimulatedTable, serve_tcp


def test_a_bad_profile_is_reported_with_its_place(tmp_path, capsys):
    bad = tmp_path / "t.yaml"
    bad.write_text(DEFAULT_PROFILE.read_text().replace("dice: 2", "dice: 2\ncolour: red", 1))
    assert main(["sim", "--pty", "--profile", str(bad)]) == 2
    assert f"{bad}:11: colour: unknown key" in capsys.readouterr().err


def test_a_bad_tcp_address_is_reported(capsys):
    assert main(["sim", "--tcp", "localhost"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err


def test_a_new_tcp_connection_replaces_the_old_one():
    async def scenario() -> None:
        table = SimulatedTable(DEFAULT_PROFILE)
        async with serve_tcp(table) as url:
            first_lost = asyncio.Event()
            LinkEndpoint(Link(role="host"), SerialTransport.open(url), on_message=print, on_lost=first_lost.set)
            await asyncio.sleep(0.1)
            replies: asyncio.Queue = asyncio.Queue()
            second = LinkEndpoint(Link(role="host"), SerialTransport.open(url), on_message=replies.put_nowait)
            second.send(Message("identify", {"protocol_version": 1}))
            assert (await asyncio.wait_for(replies.get(), 5)).name == "identity"
            await asyncio.wait_for(first_lost.wait(), 5)
            second.close()
        table.close()

    asyncio.run(scenario())
