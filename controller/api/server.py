"""The control API: newline-delimited JSON over a Unix socket.

The server knows no game logic. It frames messages, checks their shape (op name,
argument names and types, from the op table in controller/api/ops.py) and hands valid
requests to a :class:`ControlHandler` (the controller). Anything refused — here or by the handler — gets an error reply and
changes nothing. The wire format is documented in docs/API.md.
"""
from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import socket
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol

from firmware_protocol.log_throttle import LogThrottle

from controller.errors import MjtableError, Refusal
from controller.api.ops import TABLE, Arg, is_int

log = logging.getLogger("mjtable.api")

MAX_MESSAGE = 64 * 1024  # bytes per line, newline excluded
MAX_DEPTH = 32           # lists and objects inside one another in a request (a result uses 3)
BACKLOG = 64             # connections the kernel holds until the server accepts them
SOCKET_MODE = 0o660
SUBSCRIBER_BACKLOG = 1000  # events unsent to one slow subscriber before it is dropped
_HELD_BACK = "more like it not logged"  # a repeated failure, counted in its next log line


# The API answers every refusal with an error reply; its own refusals are the same type.


class ServerStartError(MjtableError):
    """The socket cannot be served (another controller there, not a socket, no access)."""


class ControlHandler(Protocol):
    """What the controller provides to the server.

    ``handle`` is called with a shape-checked op and its arguments (without ``op`` and
    ``id``); it returns the reply fields or raises :class:`Refusal`, in which case it
    must have changed nothing. Calls from different connections may overlap.
    ``subscribe`` registers a listener called (on the loop) with every event
    ``{"event": name, ...}`` and returns the function that unregisters it.
    """

    async def handle(self, op: str, args: dict) -> dict: ...

    def subscribe(self, listener: Callable[[dict], None]) -> Callable[[], None]: ...


# -- request shapes ----------------------------------------------------------------

# Each op's argument shape, from the op table (the one declaration of an op).
OPS: dict[str, dict[str, Arg]] = {op.name: op.args for op in TABLE}


def decode_request(line: bytes) -> dict:
    """The JSON object of one request line, or Refusal."""
    try:
        request = json.loads(line, object_pairs_hook=_no_repeated_keys)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Refusal("bad_json", f"not valid JSON: {exc}") from None
    except ValueError:  # an integer of more digits than Python converts
        raise Refusal("bad_json", f"not valid JSON here: a number of more than {sys.get_int_max_str_digits()} "
                       "digits") from None
    except RecursionError:
        raise Refusal("bad_json", f"not valid JSON here: nested more than {MAX_DEPTH} levels deep") from None
    if _depth(request) > MAX_DEPTH:
        raise Refusal("bad_json", f"not valid JSON here: nested more than {MAX_DEPTH} levels deep")
    if not isinstance(request, dict):
        raise Refusal("bad_request", f"a request is a JSON object, got {type(request).__name__}")
    return request


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict:
    """An object naming a key twice is refused: readers differ on which one counts."""
    request = dict(pairs)
    if len(request) < len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise json.JSONDecodeError(f"key {twice!r} given twice", "", 0)
    return request


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, level)
            todo.extend((child, level + 1) for child in children)
    return deepest


def check_request(request: dict) -> tuple[str, dict]:
    """(op, args) of a decoded request without its id, or Refusal."""
    args = dict(request)
    op = args.pop("op", None)
    if not isinstance(op, str):
        raise Refusal("bad_request", 'a request needs "op": the operation name (a string)')
    if op not in OPS:
        raise Refusal("unknown_op", f"unknown op {op!r}; known: {', '.join(OPS)}")
    _check_args(op, args)
    return op, args


def _check_args(op: str, args: dict) -> None:
    shape = OPS[op]
    unknown = sorted(set(args) - set(shape))
    if unknown:
        allowed = ", ".join(shape) or "none"
        raise Refusal("bad_request", f"{op}: unknown argument {', '.join(map(repr, unknown))} (allowed: {allowed})")
    for name, arg in shape.items():
        if name not in args:
            if arg.required:
                raise Refusal("bad_request", f"{op}: missing argument {name!r}: {arg.expected}")
        elif not arg.check(args[name]):
            raise Refusal("bad_request", f"{op}: {name!r} must be {arg.expected}, got {json.dumps(args[name])}")


def _error(code: str, message: str, client_id: Any = None, details: dict | None = None) -> dict:
    reply: dict = {"ok": False, "error": {"code": code, "message": message, **(details or {})}}
    if client_id is not None:
        reply["id"] = client_id
    return reply


def _text(message: dict) -> str:
    return json.dumps(message, separators=(",", ":"))


def encode(message: dict) -> bytes:
    return _text(message).encode() + b"\n"


async def answer(handler: ControlHandler, op: str, args: dict,
                 then: Callable[[dict], Any] | None = None) -> dict:
    """The reply to a shape-checked op, whichever transport carried it: ``{"ok": true, ...}``
    or the error reply; ``then`` (async) turns the handler's fields into the reply's."""
    try:
        fields = await handler.handle(op, args)
        if then is not None:
            fields = await then(fields)
    except Refusal as exc:
        return _error(exc.code, exc.message, details=exc.details)
    except Exception:  # a bug in the handler must not take the API down with it
        log.exception("handler failed on op %s", op)
        return _error("internal", "internal error in the controller; see its log")
    return {"ok": True, **fields}


class Subscription:
    """The events for one subscriber, queued until sent; one that falls
    ``SUBSCRIBER_BACKLOG`` behind gets ``lagged`` and its subscription ends (memory stays
    bounded). Subscribe before taking the status snapshot, so no change falls between."""

    def __init__(self, handler: ControlHandler) -> None:
        self._queue: asyncio.Queue = asyncio.Queue()
        self._unsubscribe: Callable[[], None] | None = handler.subscribe(self._on_event)

    def _on_event(self, event: dict) -> None:
        """The listener: never raises into the controller, never blocks it."""
        try:
            text = _text(event)
        except (TypeError, ValueError):
            log.exception("event cannot be sent as JSON: %r", event)
            return
        if self._queue.qsize() < SUBSCRIBER_BACKLOG:
            self._queue.put_nowait(text)
            return
        self._queue.put_nowait(_text({"event": "lagged", "message": "too many events unread; subscribe again"}))
        self.close()

    async def next(self) -> str | None:
        """The next event's JSON text; None once the subscription has ended and its events are sent."""
        return await self._queue.get()

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
            self._queue.put_nowait(None)


async def answer_line(handler: ControlHandler, line: bytes,
                      subscribe: Callable[[dict], Awaitable[dict]] | None = None, needs_id: bool = False) -> dict:
    """The reply to one request line, as the socket and MQTT frame requests (with an ``id``
    echoed back). ``subscribe`` (given the status) turns the transport into an event
    stream; without it, `subscribe` is refused."""
    client_id = None
    try:
        request = decode_request(line)
        client_id = request.pop("id", None)
        if not (client_id is None or isinstance(client_id, str) or is_int(client_id)):
            client_id = None
            raise Refusal("bad_request", '"id" must be a string or an integer')
        if needs_id and client_id is None:
            raise Refusal("bad_request", 'a command needs an "id" (a string or an integer), to be run once')
        op, args = check_request(request)
        if op == "subscribe" and subscribe is None:
            raise Refusal("not_allowed", "subscribe: not on this transport (it has its own event stream)")
    except Refusal as exc:
        return _error(exc.code, exc.message, client_id, exc.details)
    reply = await (answer(handler, "status", {}, subscribe) if op == "subscribe" else answer(handler, op, args))
    if client_id is not None:
        reply["id"] = client_id
    return reply


# -- the server ----------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """What one client may hold of the server (docs/API.md, "Limits")."""

    connections: int = 64              # open at once; one more is told `busy` and closed
    idle_timeout: float = 60.0         # seconds to send a whole request line (or read a reply); subscribers wait
    accept_retry: float = 0.1          # pause after a failed accept (out of file descriptors, ...)
    log_interval: float = 10.0         # at most one log line per this many seconds for each such failure


class ApiServer:
    """Serves ``handler`` on the Unix socket ``path`` (use as ``async with``)."""

    def __init__(self, path: str | Path, handler: ControlHandler, limits: Limits = Limits()) -> None:
        self.path = Path(path)
        self.handler = handler
        self.limits = limits
        self._listener: socket.socket | None = None
        self._acceptor: asyncio.Task | None = None
        self._inode: int | None = None
        self._connections: set[asyncio.Task] = set()
        self._accept_failed = LogThrottle(limits.log_interval)
        self._refused = LogThrottle(limits.log_interval)

    async def start(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ServerStartError(f"cannot create the folder for the control socket {self.path}: {exc.strerror or exc}") from None
        await self._remove_stale_socket()
        try:
            self._listener = _listen(self.path)
            os.chmod(self.path, SOCKET_MODE)
        except OSError as exc:
            await self.close()
            raise ServerStartError(f"cannot serve the control socket {self.path}: {exc.strerror or exc}") from None
        self._inode = self.path.stat().st_ino
        self._acceptor = asyncio.create_task(self._accept())
        log.info("control API listening on %s", self.path)

    async def _remove_stale_socket(self) -> None:
        try:
            mode = self.path.lstat().st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISSOCK(mode):
            raise ServerStartError(f"{self.path} exists and is not a socket; remove it or choose another api.socket path")
        if await asyncio.to_thread(_answers, self.path):
            raise ServerStartError(f"another controller is already running on {self.path}; stop it first")
        log.info("removing stale control socket %s", self.path)
        self.path.unlink(missing_ok=True)

    async def close(self) -> None:
        if self._acceptor is not None:
            self._acceptor.cancel()
            await asyncio.gather(self._acceptor, return_exceptions=True)
            self._acceptor = None
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        if self._inode is not None and _inode(self.path) == self._inode:  # still ours, not a successor's
            self.path.unlink(missing_ok=True)
        self._inode = None

    async def __aenter__(self) -> "ApiServer":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # -- accepting -----------------------------------------------------------------------

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                client, _ = await loop.sock_accept(self._listener)
            except OSError as exc:  # e.g. out of file descriptors: wait, the client stays queued
                self._accept_failed.warning(log, time.monotonic(), "control API: cannot accept a connection: %s",
                                            exc.strerror or exc, held_back=_HELD_BACK)
                await asyncio.sleep(self.limits.accept_retry)
                continue
            if len(self._connections) >= self.limits.connections:
                self._turn_away(client)
                continue
            task = asyncio.create_task(self._serve(client))
            self._connections.add(task)
            task.add_done_callback(self._connections.discard)

    def _turn_away(self, client: socket.socket) -> None:
        self._refused.warning(log, time.monotonic(), "control API: %d connections open, the limit; refusing another",
                              self.limits.connections, held_back=_HELD_BACK)
        with client:
            try:  # a fresh socket's buffer takes one line without blocking
                client.send(encode(_error("busy", f"{self.limits.connections} connections are open, the limit; "
                                                  "try again later")))
            except OSError:
                pass

    # -- one connection ----------------------------------------------------------------

    async def _serve(self, client: socket.socket) -> None:
        try:
            reader, writer = await asyncio.open_unix_connection(sock=client, limit=MAX_MESSAGE)
        except OSError:
            client.close()
            return
        connection = _Connection(self.handler, reader, writer, self.limits.idle_timeout)
        try:
            await connection.run()
        except (ConnectionError, asyncio.CancelledError, asyncio.TimeoutError):
            pass
        finally:
            await connection.close()


class _Connection:
    """Requests are answered in order; events of a subscription are interleaved as lines."""

    def __init__(self, handler: ControlHandler, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 idle_timeout: float) -> None:
        self.handler = handler
        self.reader = reader
        self.writer = writer
        self.idle_timeout = idle_timeout
        self.events: Subscription | None = None
        self.pump: asyncio.Task | None = None

    async def run(self) -> None:
        while (line := await self._read_line()) is not None:
            if line.strip():
                await self._send(await self._answer(line))

    async def _read_line(self) -> bytes | None:
        timeout = None if self.events is not None else self.idle_timeout  # a subscriber waits for events
        try:
            return await asyncio.wait_for(self.reader.readuntil(b"\n"), timeout)
        except asyncio.IncompleteReadError as exc:  # EOF: a last line without newline still counts
            return exc.partial or None
        except asyncio.LimitOverrunError:
            await self._send(_error("too_large", f"message longer than {MAX_MESSAGE} bytes; closing"))
            return None
        except asyncio.TimeoutError:
            await self._send(_error("timeout", f"no whole request line in {timeout:g} s; closing"))
            return None

    async def _answer(self, line: bytes) -> dict:
        return await answer_line(self.handler, line, self._subscribe)

    async def _subscribe(self, status: dict) -> dict:
        if self.events is None:
            self.events = Subscription(self.handler)
            self.pump = asyncio.create_task(self._pump(self.events))
        return {"subscribed": True, "status": status}

    async def _pump(self, events: "Subscription") -> None:
        try:
            while (text := await events.next()) is not None:
                self.writer.write(text.encode() + b"\n")
                await self.writer.drain()
        except ConnectionError:  # the subscriber went away; the request loop sees EOF and cleans up
            return
        self.writer.close()

    def _unsubscribe(self) -> None:
        if self.events is not None:
            self.events.close()

    async def _send(self, message: dict) -> None:
        self.writer.write(encode(message))
        await asyncio.wait_for(self.writer.drain(), self.idle_timeout)  # a client that reads nothing is let go

    async def close(self) -> None:
        self._unsubscribe()
        if self.pump is not None:
            self.pump.cancel()
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except (ConnectionError, asyncio.CancelledError):
            pass


def _listen(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))
        listener.listen(BACKLOG)
        listener.setblocking(False)
    except OSError:
        listener.close()
        raise
    return listener


def _answers(path: Path) -> bool:
    """True when something accepts connections on the socket ``path``."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except OSError as exc:
            if exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
                return False
            raise ServerStartError(f"cannot check the control socket {path}: {exc.strerror or exc}") from None
        return True


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None
