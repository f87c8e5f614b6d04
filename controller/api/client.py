"""A small blocking client of the control API (docs/API.md), for the CLI and scripts.

Each request uses its own connection: Unix sockets connect in microseconds, and a
controller restart between two requests then needs no reconnection logic.
"""
from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any, Iterator


class ClientError(Exception):
    """The controller cannot be reached or answered nonsense."""


class RequestError(ClientError):
    """The controller refused the request (an API error reply)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Client:
    def __init__(self, path: str | Path, timeout: float | None = 10.0) -> None:
        self.path = Path(path)
        self.timeout = timeout

    def request(self, op: str, **args: Any) -> dict:
        """Send one request; the reply's fields (``ok`` removed), or RequestError."""
        with self._connect() as sock:
            _send(sock, {"op": op, **args})
            return _reply(next(_lines(sock, self.path), None))

    def subscribe(self) -> "Subscription":
        sock = self._connect()
        try:
            _send(sock, {"op": "subscribe"})
            lines = _lines(sock, self.path)
            reply = _reply(next(lines, None))
        except BaseException:
            sock.close()
            raise
        sock.settimeout(None)  # events can be minutes apart
        return Subscription(sock, lines, reply.get("status", {}))

    def _connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(str(self.path))
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            raise ClientError(f"no controller is running at {self.path} (start one with `mjtable run`)") from None
        except PermissionError:
            sock.close()
            raise ClientError(f"no permission to use {self.path}: join the group that owns it") from None
        except OSError as exc:
            sock.close()
            raise ClientError(f"cannot connect to {self.path}: {exc.strerror or exc}") from None
        return sock


class Subscription:
    """The event stream: iterate for ``{"event": ...}`` dicts; ``status`` is the snapshot
    taken when the subscription began. Close it (or use ``with``) to stop."""

    def __init__(self, sock: socket.socket, lines: Iterator[dict], status: dict) -> None:
        self._sock = sock
        self._lines = lines
        self.status = status

    def __iter__(self) -> Iterator[dict]:
        # Replies cannot appear here: this connection sends no request after subscribe.
        yield from self._lines

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _send(sock: socket.socket, message: dict) -> None:
    try:
        sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    except OSError as exc:
        raise ClientError(f"lost the connection to the controller: {exc.strerror or exc}") from None


def _lines(sock: socket.socket, path: Path) -> Iterator[dict]:
    """The JSON messages arriving on ``sock`` until the controller closes it."""
    buffer = b""
    while True:
        while b"\n" not in buffer:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                raise ClientError(f"the controller at {path} did not answer in time") from None
            except OSError as exc:
                raise ClientError(f"lost the connection to the controller: {exc.strerror or exc}") from None
            if not chunk:
                return
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            raise ClientError(f"{path} answered something that is not JSON: {line[:80]!r}") from None


def _reply(message: Any) -> dict:
    if message is None:
        raise ClientError("the controller closed the connection without answering")
    if not isinstance(message, dict) or "ok" not in message:
        raise ClientError(f"unexpected answer from the controller: {message!r}")
    if not message["ok"]:
        error = message.get("error") or {}
        raise RequestError(error.get("code", "unknown"), error.get("message", "request refused"))
    return {k: v for k, v in message.items() if k != "ok"}
