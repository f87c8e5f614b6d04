"""Guessing the PIN or the operator secret of `mjtable run`'s web page is bounded by design
(docs/WEB.md, "Guessing"): tries raced over many connections, from one address or from a
thousand, are counted before they are checked, so no more are evaluated (answered 401)
than the lockout allows; the rest are refused unchecked (429)."""
import asyncio
import resource
from collections import Counter

import pytest

from controller.api.web import access as A

from .test_web_run import _run, _web_config
from .web_harness import SECRET, SECRET_HASH, Http


@pytest.fixture(autouse=True)
def _open_files():
    """The test's own sockets: a thousand at once need more than the default 1,024 files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _request(path: str, body: bytes = b"", headers: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{headers}"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


def _burst(port: int, sources: list[str], request: bytes) -> Counter:
    """Each source address's request sent at once on its own connection: the statuses counted
    ("closed": a connection past the server's cap, turned away unread)."""
    async def burst():
        connections = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
                                             for source in sources))
        for _, writer in connections:  # every connection open first: the requests race
            writer.write(request)
        statuses = []
        for reader, writer in connections:
            try:
                line = await reader.readline()
            except ConnectionError:
                line = b""
            statuses.append(int(line.split()[1]) if line else "closed")
            writer.close()
        return Counter(statuses)
    return asyncio.run(burst())


def _wrong_pin(pin: str) -> str:
    return f"{(int(pin) + 1) % 10 ** A.PIN_DIGITS:0{A.PIN_DIGITS}d}"


def _in_play(procs) -> tuple[int, str]:
    config = _web_config(procs, f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {SECRET_HASH}\n")
    _, port = _run(procs, config)
    operator = Http(port)
    assert operator.op("start", headers={"Authorization": f"Bearer {SECRET}"})[0] == 200
    return port, operator.request("GET", "/api/session", headers={"Authorization": f"Bearer {SECRET}"})[1]["pin"]


def test_a_pin_burst_over_500_connections_from_one_address(procs):
    port, pin = _in_play(procs)
    statuses = _burst(port, ["127.0.0.1"] * 500,
                      _request("/api/op/pause", b"{}", f"Authorization: Bearer {_wrong_pin(pin)}\r\n"))
    assert statuses[401] <= A.MAX_FAILURES and statuses[429] + statuses["closed"] == 500 - statuses[401], statuses
    assert Http(port).op("pause", headers={"Authorization": f"Bearer {SECRET}"})[0] == 200  # the known secret


def test_a_pin_burst_from_1000_loopback_addresses(procs):
    port, pin = _in_play(procs)
    sources = [f"127.{1 + i // 250}.{i % 250}.{1 + i % 7}" for i in range(1000)]
    statuses = _burst(port, sources, _request("/api/op/riichi", b'{"seat": 1}',
                                              f"Authorization: Bearer {_wrong_pin(pin)}\r\n"))
    assert statuses[401] <= A.MAX_TOTAL_FAILURES and statuses[429] + statuses["closed"] == 1000 - statuses[401], statuses
    # the network's budget is spent: the right PIN too waits (logins already made carry on)
    again = _burst(port, ["127.0.0.1"] * 10, _request("/api/login", b'{"role": "player", "pin": "%s"}' % pin.encode()))
    assert again == Counter({429: 10})


def test_operator_logins_raced_from_one_address(procs):
    port, _ = _in_play(procs)
    body = b'{"role": "operator", "secret": "not the operator secret"}'
    statuses = _burst(port, ["127.0.0.1"] * 40, _request("/api/login", body))
    assert statuses[401] <= A.MAX_FAILURES and statuses[429] == 40 - statuses[401], statuses
