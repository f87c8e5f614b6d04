"""The running hall's control socket: how `mjtable hall correct`, `penalty` and `seating
swiss` reach the one process that owns the hall's database while it runs.

A Unix socket next to the database (``hall.db.sock``, only for the hall's own user), one
JSON request line and one reply line per connection, in the control API's framing and
replies (docs/API.md): ``{"op": "record", ...}`` answered ``{"ok": true, ...}`` or
``{"ok": false, "error": {"code": ..., "message": ...}}``. The hall holds the database's
lock while it serves, so a socket file found at its start is a killed hall's and is
replaced.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

from controller.api.server import MAX_MESSAGE, decode_request, encode
from controller.errors import Refusal

log = logging.getLogger("mjtable.hall")
SOCKET_MODE = 0o600
READ_TIMEOUT = 10.0  # seconds a client has to send its request line
ANSWER_TIMEOUT = 60.0  # seconds the CLI waits for the hall's answer

Handler = Callable[[str, dict], Awaitable[dict]]


def socket_path(database: str | Path) -> Path:
    database = Path(database)
    return database.with_name(database.name + ".sock")


async def serve(path: Path, handle: Handler) -> None:
    """Answer requests on ``path`` with ``handle(op, args)`` until cancelled."""
    try:
        path.unlink(missing_ok=True)  # a killed hall's: this hall holds the database's lock
        server = await asyncio.start_unix_server(lambda r, w: _answer(handle, r, w), str(path), limit=MAX_MESSAGE)
        os.chmod(path, SOCKET_MODE)
    except OSError as exc:  # the hall goes on: its page's correction still works
        log.error("no hall control socket on %s (%s): `mjtable hall correct`, `penalty` and `seating swiss` need "
                  "the hall stopped", path, exc.strerror or exc)
        return
    log.info("hall control socket on %s", path)
    try:
        async with server:
            await server.serve_forever()
    finally:
        path.unlink(missing_ok=True)


async def _answer(handle: Handler, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        line = await asyncio.wait_for(reader.readuntil(b"\n"), READ_TIMEOUT)
        request = decode_request(line)
        op = request.pop("op", None)
        reply = {"ok": True, **await handle(op, request)}
    except Refusal as refusal:
        reply = {"ok": False, "error": {"code": refusal.code, "message": refusal.message}}
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
        writer.close()
        return
    except Exception:  # a bug here must not take the hall down
        log.exception("hall control request failed")
        reply = {"ok": False, "error": {"code": "internal", "message": "internal error in the hall; see its log"}}
    try:
        writer.write(encode(reply))
        await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


def ask(path: Path, op: str, args: dict, timeout: float = ANSWER_TIMEOUT) -> dict | None:
    """The running hall's reply to one request; None when no hall answers on ``path``."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError):
            return None
        sock.sendall(json.dumps({"op": op, **args}).encode() + b"\n")
        with sock.makefile("rb") as replies:
            line = replies.readline(MAX_MESSAGE + 1)
    try:
        return json.loads(line)
    except ValueError:
        return {"ok": False, "error": {"code": "internal", "message": "the hall's answer is no JSON: see its log"}}
