"""Hostile clients on a real socket: what they send is refused as bad JSON (no traceback per
request), and what they hold (idle, half-sent or too many connections) is let go, so other
clients are still served. Small limits are passed in so the tests are quick."""
import errno
import json
import logging
import socket
import time

import pytest

from controller.api.server import Limits

from .api_harness import FakeHandler, Served


def line(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


@pytest.fixture
def serve(short_tmp):
    running = []

    def start(**limits) -> Served:
        s = Served(short_tmp / f"api{len(running)}.sock", FakeHandler(), Limits(**limits))
        s.start()
        running.append(s)
        return s
    yield start
    for s in running:
        s.stop()


def read_all(sock: socket.socket) -> list[dict]:
    """Every line the server sends until it closes the connection."""
    with sock.makefile("rb") as reader:
        return [json.loads(raw) for raw in reader]


@pytest.mark.parametrize("text", [
    b'{"op": "result", "hand": 1, "result": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    b'{"op": "result", "hand": 1, "result": ' + b'{"a": ' * 100 + b"1" + b"}" * 100 + b"}",
    b'{"op": "riichi", "seat": ' + b"7" * 5000 + b"}",
], ids=["nested-10000", "nested-100", "int-5000-digits"])
def test_deep_or_huge_json_is_bad_json_without_a_traceback(serve, caplog, text):
    served = serve()
    with caplog.at_level(logging.INFO, logger="mjtable.api"):
        reply, after = served.exchange(text + b"\n", line({"op": "status"}))
    assert reply["ok"] is False and reply["error"]["code"] == "bad_json", reply
    assert len(reply["error"]["message"]) < 200
    assert after["ok"] is True  # the connection stays usable
    assert served.handler.calls == [("status", {})]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_a_connection_over_the_limit_gets_one_error_line_and_is_closed(serve):
    served = serve(connections=2)
    first, second = served.connect(), served.connect()
    for sock in (first, second):  # answered, so the server holds both
        sock.sendall(line({"op": "status"}))
        assert json.loads(sock.makefile("rb").readline())["ok"] is True
    third = served.connect()
    refused = read_all(third)
    assert [r["error"]["code"] for r in refused] == ["busy"]
    assert "2 connections" in refused[0]["error"]["message"]
    first.close()
    assert served.wait_until(lambda: len(served.server._connections) == 1)
    assert served.exchange(line({"op": "status"}))[0]["ok"] is True
    second.close()
    third.close()


@pytest.mark.parametrize("sent", [b"", b'{"op": "sta'], ids=["nothing", "half a line"])
def test_an_idle_or_half_sent_connection_is_closed_after_the_idle_timeout(serve, sent):
    served = serve(idle_timeout=0.2)
    with served.connect() as sock:
        sock.sendall(sent)
        replies = read_all(sock)  # returns: the server closes (the socket's own timeout is 5 s)
    assert [r["error"]["code"] for r in replies] == ["timeout"]
    assert served.wait_until(lambda: not served.server._connections)
    assert served.handler.calls == []


def test_idle_connections_do_not_shut_out_a_new_client(serve):
    served = serve(connections=3, idle_timeout=0.2)
    idle = [served.connect() for _ in range(3)]
    assert served.wait_until(lambda: len(served.server._connections) == 3)
    assert served.wait_until(lambda: not served.server._connections)  # timed out, let go
    assert served.exchange(line({"op": "status"}))[0]["ok"] is True
    for sock in idle:
        sock.close()


def test_a_subscriber_is_not_idle(serve):
    served = serve(idle_timeout=0.1)
    with served.connect() as sock, sock.makefile("rb") as reader:
        sock.sendall(line({"op": "subscribe"}))
        assert json.loads(reader.readline())["subscribed"] is True
        time.sleep(0.5)  # five idle timeouts with nothing sent
        served.publish("button", name="start")
        assert json.loads(reader.readline()) == {"event": "button", "name": "start"}


def test_failing_accepts_are_logged_at_most_once_per_interval(short_tmp, caplog):
    served = Served(short_tmp / "api.sock", FakeHandler(), Limits(accept_retry=0.001, log_interval=60))
    accept = served.loop.sock_accept
    failures = []

    async def out_of_descriptors(listener):
        if len(failures) < 200:
            failures.append(1)
            raise OSError(errno.EMFILE, "Too many open files")
        return await accept(listener)

    served.loop.sock_accept = out_of_descriptors
    with caplog.at_level(logging.INFO, logger="mjtable.api"):
        served.start()
        try:
            with served.connect() as sock:  # queued by the kernel while accept fails, then served
                sock.sendall(line({"op": "status"}))
                assert json.loads(sock.makefile("rb").readline())["ok"] is True
        finally:
            served.stop()
    assert len(failures) == 200
    logged = [r for r in caplog.records if "cannot accept" in r.getMessage()]
    assert len(logged) == 1 and "Too many open files" in logged[0].getMessage()
