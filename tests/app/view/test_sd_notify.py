"""systemd notify protocol against a real AF_UNIX datagram socket."""
from __future__ import annotations

import asyncio
import os
import socket
import threading
import uuid

import pytest

from controller.app.sd_notify import Notifier, watchdog_interval
from firmware_protocol.virtual_time import VirtualTimeLoop


@pytest.fixture
def listener(tmp_path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify"
    sock.bind(str(path))
    sock.settimeout(1.0)
    yield sock, {"NOTIFY_SOCKET": str(path)}
    sock.close()


def received(sock) -> list[str]:
    """Every datagram waiting on the socket."""
    sock.setblocking(False)
    out = []
    while True:
        try:
            out.append(sock.recv(4096).decode())
        except BlockingIOError:
            return out


def test_ready_status_stopping_reach_the_socket(listener):
    sock, env = listener
    n = Notifier(env)
    assert n.enabled
    assert n.ready("table identified")
    assert n.status("playing E2\nhonba 1")
    assert n.stopping()
    n.close()
    assert received(sock) == ["READY=1\nSTATUS=table identified", "STATUS=playing E2 honba 1", "STOPPING=1"]


def test_abstract_socket_name():
    name = f"mjtable-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        n = Notifier({"NOTIFY_SOCKET": "@" + name})
        assert n.ready()
        n.close()
        assert received(sock) == ["READY=1"]


@pytest.mark.parametrize("env", [{}, {"NOTIFY_SOCKET": ""}, {"NOTIFY_SOCKET": "vsock:2:1234"}])
def test_no_op_outside_systemd(env):
    n = Notifier(env)
    assert not n.enabled
    assert not n.ready("x") and not n.status("x") and not n.stopping()
    loop = VirtualTimeLoop()
    assert n.start_watchdog(loop) is None
    loop.close()


def test_vanished_socket_is_not_fatal(tmp_path):
    n = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert n.enabled and not n.ready()
    n.close()


@pytest.mark.parametrize("env, expected", [
    ({}, None),
    ({"WATCHDOG_USEC": "30000000"}, 15.0),
    ({"WATCHDOG_USEC": "0"}, None),
    ({"WATCHDOG_USEC": "soon"}, None),
    ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}, 15.0),
    ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, None),
])
def test_watchdog_interval(env, expected):
    assert watchdog_interval(env) == expected


def test_watchdog_is_fed_by_the_event_loop_without_threads(listener):
    sock, env = listener
    loop = VirtualTimeLoop()
    n = Notifier({**env, "WATCHDOG_USEC": "20000000"})
    threads = threading.active_count()
    assert n.start_watchdog(loop) == 10.0
    loop.run_until_complete(asyncio.sleep(35.0))
    assert threading.active_count() == threads
    assert received(sock) == ["WATCHDOG=1"] * 4  # at 0, 10, 20 and 30 s
    n.close()
    loop.run_until_complete(asyncio.sleep(30.0))
    assert received(sock) == []
    loop.close()
