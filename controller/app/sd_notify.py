"""systemd's notify protocol (Type=notify) with the standard library only.

The controller tells systemd when it is ready, what it is doing, that it is still alive
(the service watchdog) and that it is stopping, by datagrams to ``$NOTIFY_SOCKET``.
Outside systemd the variable is absent and every call is a no-op, so the same code runs
on a laptop, in tests and on the table's board.
"""
from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Mapping


def _address(environ: Mapping[str, str]) -> str | None:
    """The socket address, an abstract name ('@name') mapped to Linux's leading NUL."""
    path = environ.get("NOTIFY_SOCKET", "")
    if path.startswith("@"):
        return "\0" + path[1:]
    return path if path.startswith("/") else None


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """Seconds between watchdog pings: half of ``$WATCHDOG_USEC`` as systemd recommends, or
    None when the service has no watchdog or it is meant for another process (``$WATCHDOG_PID``)."""
    env = os.environ if environ is None else environ
    pid = env.get("WATCHDOG_PID")
    if pid is not None and pid != str(os.getpid()):
        return None
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec / 2e6 if usec > 0 else None


class Notifier:
    """Notifications to the service manager; every method is a no-op outside systemd.

    The watchdog is fed by the event loop itself (``loop.call_later``, no thread), so a
    loop that hangs stops feeding it and systemd restarts the service.
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._env = dict(os.environ if environ is None else environ)
        self._address = _address(self._env)
        self._socket: socket.socket | None = None
        self._watchdog: asyncio.TimerHandle | None = None

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def send(self, *assignments: str) -> bool:
        """Send ``KEY=value`` lines in one datagram; False if not under systemd or it failed.
        A failure is not fatal: the table keeps running without its service manager."""
        if self._address is None:
            return False
        if self._socket is None:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            self._socket.sendto("\n".join(assignments).encode(), self._address)
        except OSError:
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.send("READY=1", *_status_line(status))

    def status(self, text: str) -> bool:
        return self.send(*_status_line(text))

    def stopping(self, status: str | None = None) -> bool:
        return self.send("STOPPING=1", *_status_line(status))

    def start_watchdog(self, loop: asyncio.AbstractEventLoop) -> float | None:
        """Ping the watchdog from ``loop`` from now on; the interval, or None if not asked for."""
        interval = watchdog_interval(self._env)
        if interval is None or not self.enabled:
            return None
        self.stop_watchdog()
        self._feed(loop, interval)
        return interval

    def _feed(self, loop: asyncio.AbstractEventLoop, interval: float) -> None:
        self.send("WATCHDOG=1")
        self._watchdog = loop.call_later(interval, self._feed, loop, interval)

    def stop_watchdog(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def close(self) -> None:
        self.stop_watchdog()
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def _status_line(text: str | None) -> list[str]:
    # STATUS is one line of the datagram: a newline in it would start a bogus assignment.
    return [] if text is None else ["STATUS=" + " ".join(text.splitlines())]
