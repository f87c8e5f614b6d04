"""`mjtable run`'s web page cannot starve the controller or fill its log: 1,100 idle
connections at the systemd default of 1,024 open files leave the control socket answering
and add a few log lines at most; an oversized header is refused without its bytes in the
log; one address holds at most a few of the event streams."""
import asyncio
import json
import re
import resource
import secrets
import socket
import time

import aiohttp
import pytest

from controller.api.web.server import MAX_WEBSOCKETS_PER_ADDRESS

from ...support.processes import stderr_of, wait_for
from .test_web_run import STARTUP, _web_config
from .web_harness import SECRET_HASH, Http

IDLE = 1100


@pytest.fixture(autouse=True)
def _open_files():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _files(limit: int):
    """The child's open files, and no higher to raise to (1,024: what systemd gives by default)."""
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


def _run(procs, files: int = 1024):
    config = _web_config(procs, f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {SECRET_HASH}\n")
    run = procs.start("run", "--config", str(config), name="run", preexec_fn=_files(files))

    def ready():
        assert run.poll() is None, stderr_of(run)
        return "ready in" in stderr_of(run) and re.search(r"listening on 127\.0\.0\.1:(\d+)\)", stderr_of(run))
    port = int(wait_for(ready, "mjtable run ready", timeout=STARTUP)[1])
    return run, port, config.parent / "api.sock"


def _status_within_a_second(path) -> dict:
    with socket.socket(socket.AF_UNIX) as conn:
        conn.settimeout(1.0)
        conn.connect(str(path))
        conn.sendall(b'{"op": "status"}\n')
        return json.loads(conn.makefile().readline())


def test_idle_connections_leave_the_control_socket_answering_and_the_log_short(procs):
    run, port, api = _run(procs)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))  # the test's own sockets
    lines_before = len(stderr_of(run).splitlines())
    idle = []
    try:
        for _ in range(IDLE):
            idle.append(socket.create_connection(("127.0.0.1", port)))
        Http(port)  # a moment for the server to take them all
        assert _status_within_a_second(api)["ok"] is True
        added = stderr_of(run).splitlines()[lines_before:]
        assert len(added) <= 5, "\n".join(added[:20])
    finally:
        for conn in idle:
            conn.close()
    # The server frees a slot as it reads each closed connection's end, not at the close.
    wait_for(lambda: _page_answers(port), "the page answering once the idle connections closed")


def _page_answers(port: int) -> bool:
    try:
        return Http(port).request("GET", "/api/status")[0] == 200
    except ConnectionError:
        return False


def test_out_of_files_the_failed_accepts_are_one_line(procs):
    run, port, _ = _run(procs, files=128)  # below the cap: accepting fails for want of files
    lines_before = len(stderr_of(run).splitlines())
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(300)]
    try:
        wait_for(lambda: "cannot accept a connection" in stderr_of(run), "the failed accepts told")
        time.sleep(3)  # the accept is retried every second: a few more tries
        added = stderr_of(run).splitlines()[lines_before:]
        assert len(added) <= 5 and "Traceback" not in stderr_of(run), "\n".join(added[:20])
    finally:
        for conn in idle:
            conn.close()


def test_an_oversized_header_leaves_no_byte_of_it_in_the_log(procs):
    run, port, _ = _run(procs)
    secret = secrets.token_hex(6000)  # 12,000 characters, past the server's 8,190
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(f"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {secret}\r\n\r\n".encode())
        assert conn.makefile("rb").readline().split()[1].startswith(b"4")
    with socket.create_connection(("127.0.0.1", port)) as conn:  # one that has not ended when it passes the limit
        conn.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: mjtable_session={secret}".encode())
        assert conn.makefile("rb").readline().split()[1] == b"400"
    for _ in range(50):  # the same again: one line for them all
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: mjtable_session={secret}\r\n\r\n".encode())
            conn.makefile("rb").readline()
    log = stderr_of(run)
    assert secret[:32] not in log and secret[-32:] not in log and "Traceback" not in log
    assert len(re.findall("malformed request", log)) == 1


def test_one_address_holds_a_few_event_streams_and_a_foreign_host_is_refused(procs):
    _, port, _ = _run(procs)

    async def probe():
        async with aiohttp.ClientSession() as session:
            streams = [await session.ws_connect(f"http://127.0.0.1:{port}/api/events")
                       for _ in range(MAX_WEBSOCKETS_PER_ADDRESS)]
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(f"http://127.0.0.1:{port}/api/events")
            assert refused.value.status == 503
            for stream in streams:
                await stream.close()
    asyncio.run(probe())
    rebound = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
    assert Http(port).request("GET", "/api/status", headers=rebound)[0] == 403
