"""One contract, every transport: in-memory, a real pty through pyserial, socket:// on loopback."""
import asyncio
import os
from contextlib import asynccontextmanager

import pytest

from firmware_protocol.catalog import Message
from firmware_protocol.endpoint import LinkEndpoint
from firmware_protocol.link import Link
from firmware_protocol.transport import FdTransport, Impairment, SerialTransport, StreamTransport, memory_pair
from firmware_protocol.virtual_time import VirtualTimeLoop


@asynccontextmanager
async def memory():
    yield memory_pair(asyncio.get_running_loop())


@asynccontextmanager
async def pty():
    master, slave = os.openpty()
    device = SerialTransport.open(os.ttyname(slave), 115200)  # pyserial sets raw mode
    os.close(slave)  # only pyserial's descriptor remains: its close() must hang the line up
    yield FdTransport(master), device


@asynccontextmanager
async def tcp():
    accepted: asyncio.Future = asyncio.get_running_loop().create_future()
    server = await asyncio.start_server(lambda r, w: accepted.set_result(StreamTransport(r, w)), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = SerialTransport.open(f"socket://127.0.0.1:{port}")
    served = await asyncio.wait_for(accepted, 5)
    async with server:
        yield served, client


LINES = [memory, pty, tcp]


def run(coro):
    async def bounded():
        return await asyncio.wait_for(coro, 10)
    return asyncio.run(bounded())


class Collector:
    def __init__(self, transport) -> None:
        self.data = bytearray()
        self.closed = 0
        self.more = asyncio.Event()
        transport.set_receiver(self._receive)
        transport.on_close = self._on_close

    def _receive(self, data: bytes) -> None:
        self.data += data
        self.more.set()

    def _on_close(self) -> None:
        self.closed += 1
        self.more.set()

    async def wait_for(self, predicate) -> None:
        while not predicate():
            self.more.clear()
            await self.more.wait()


@pytest.mark.parametrize("line", LINES)
def test_bytes_arrive_intact_and_in_order_both_ways(line):
    payload = bytes(range(256)) * 200  # larger than a pty buffer: exercises write buffering

    async def main():
        async with line() as (a, b):
            at_a, at_b = Collector(a), Collector(b)
            for i in range(0, len(payload), 1000):
                a.write(payload[i:i + 1000])
                b.write(payload[i:i + 1000])
            await at_b.wait_for(lambda: len(at_b.data) >= len(payload))
            await at_a.wait_for(lambda: len(at_a.data) >= len(payload))
            assert at_b.data == payload and at_a.data == payload
            a.close()
            b.close()

    run(main())


@pytest.mark.parametrize("line", LINES)
def test_closing_one_end_tells_the_other_once(line):
    async def main():
        async with line() as (a, b):
            at_a, at_b = Collector(a), Collector(b)
            b.close()
            await at_a.wait_for(lambda: at_a.closed)
            a.write(b"after the end")  # ignored, never raises
            await asyncio.sleep(0.05)
            assert (at_a.closed, at_b.closed) == (1, 0)

    run(main())


@pytest.mark.parametrize("line", LINES)
def test_link_endpoints_talk_over_the_line(line):
    async def main():
        async with line() as (a, b):
            at_host, at_table = [], []
            host = LinkEndpoint(Link("host"), a, at_host.append)
            table = LinkEndpoint(Link("table"), b, at_table.append)
            for i in range(50):
                host.send(Message("roll_dice", {"count": i}))
                table.send(Message("tiles_collected", {"count": i}))
            while len(at_host) < 50 or len(at_table) < 50:
                await asyncio.sleep(0.01)
            assert [m["count"] for m in at_table] == list(range(50))
            assert [m["count"] for m in at_host] == list(range(50))
            host.close()
            table.close()

    run(main())


def test_open_fails_cleanly_for_a_missing_device():
    with pytest.raises(OSError):
        SerialTransport.open("/dev/does-not-exist", 115200)


def line_output(impairment, seed: int = 0, byte_time: float = 1e-5) -> list[tuple[float, bytes]]:
    """(arrival time, chunk) at b for 100 ten-byte writes at a, in virtual time."""
    loop = VirtualTimeLoop()
    a, b = memory_pair(loop, byte_time=byte_time, impairment=(impairment, None), seed=seed)
    seen = []
    b.set_receiver(lambda data: seen.append((loop.time(), data)))
    for i in range(100):
        a.write(bytes([i]) * 10)
    loop.run_until_complete(asyncio.sleep(10))
    loop.close()
    return seen


def test_memory_line_is_deterministic_for_a_seed():
    bad = Impairment(corrupt=0.05, drop=0.1, duplicate=0.1, jitter=0.001, reorder=0.1, burst=0.1)
    assert line_output(bad, seed=5) == line_output(bad, seed=5)
    assert line_output(bad, seed=5) != line_output(bad, seed=6)


def test_memory_line_takes_its_byte_time_and_keeps_order_under_jitter():
    seen = line_output(Impairment(jitter=0.005), byte_time=1e-3)
    assert [data[0] for _, data in seen] == list(range(100))
    assert seen[0][0] >= 0.010  # ten bytes at 1 ms each


def test_memory_line_impairments_do_what_they_say():
    seen = line_output(Impairment(drop=0.2, duplicate=0.2, corrupt=0.01))
    firsts = [data[0] for _, data in seen]
    assert 60 < len(set(firsts)) < 100  # some writes lost
    assert len(firsts) > len(set(firsts))  # some twice
    assert any(len(set(data)) > 1 for _, data in seen)  # some bytes changed
