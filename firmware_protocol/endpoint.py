"""A Link on a byte transport, driven by the event loop, carrying catalog messages.

Received bytes go to the link with `loop.time()`; its output is written at once; its
timers become one `loop.call_at` handle, re-armed only when the link's deadline moves
earlier and cancelled once nothing is in flight: an idle endpoint has no timer and costs
no CPU. Messages are encoded and decoded above the link (messages.py). A payload the
catalog cannot decode is logged (one warning per PROTOCOL_ERROR_LOG_EVERY seconds,
counting the others) and handed to `on_protocol_error`.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from .catalog import Message, ProtocolError
from .link import Link, LinkStats, SessionStart
from .log_throttle import LogThrottle
from .messages import MessageLink
from .transport import ByteTransport

log = logging.getLogger("mjtable.link")

PROTOCOL_ERROR_LOG_EVERY = 30.0  # a damaged firmware may send many: one warning per this many seconds


class LinkEndpoint:
    def __init__(
        self,
        link: Link,
        transport: ByteTransport,
        on_message: Callable[[Message], None],
        on_lost: Callable[[], None] | None = None,
        on_protocol_error: Callable[[ProtocolError], None] | None = None,
        on_session: Callable[[SessionStart], None] | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        """`on_lost` runs once when the peer stops acknowledging or the transport vanishes."""
        self.link = link
        self._messages = MessageLink(link)
        self._peer = "table" if link.role == "host" else "host"
        self._error_log = LogThrottle(PROTOCOL_ERROR_LOG_EVERY)
        self._loop = loop or asyncio.get_running_loop()
        self._on_message = on_message
        self._on_lost = on_lost
        self._on_protocol_error = on_protocol_error
        if on_session is not None:
            link.on_session = on_session
        self._timer: asyncio.TimerHandle | None = None
        self._lost_reported = False
        self._detached = False  # the transport has gone: no timers until reconnect()
        self._transport = transport
        self._attach(transport)

    @property
    def stats(self) -> LinkStats:
        return self.link.stats

    def send(self, msg: Message) -> None:
        """Queue a message; raises EncodeError if it is malformed or too long for the peer."""
        self._messages.send(msg)
        self._service()

    def solicit(self) -> None:
        """Ask the peer to retransmit what has not arrived (Link.solicit)."""
        self.link.solicit()
        self._flush()

    def reconnect(self, transport: ByteTransport) -> None:
        """Continue on a new transport; the old one is closed and a new session starts.

        The same Link keeps its queue and sequence numbers, so a table that did not
        reboot gets every pending command exactly once and sends every pending event.
        """
        self._transport.close()
        self._transport = transport
        self._lost_reported = self._detached = False
        self.link.reset()
        self._attach(transport)

    def close(self) -> None:
        self._detached = True
        self._cancel_timer()
        self._transport.close()

    # ---- internals ----
    def _attach(self, transport: ByteTransport) -> None:
        transport.on_close = self._on_transport_closed
        transport.set_receiver(self._on_bytes)
        self._service()

    def _on_bytes(self, data: bytes) -> None:
        deliveries = self._messages.receive(data, self._loop.time())
        self._flush()  # acks first: the peer's timer is running
        for item in deliveries:
            if item.__class__ is Message:
                self._on_message(item)
            else:
                self._protocol_error(item)
        self._after()

    def _protocol_error(self, item: ProtocolError) -> None:
        self._log_protocol_error(item)
        if self._on_protocol_error:
            self._on_protocol_error(item)

    def _log_protocol_error(self, error: ProtocolError) -> None:
        self._error_log.warning(log, self._loop.time(), "protocol error: the %s sent a frame (id 0x%02x) that cannot "
                                "be decoded: %s", self._peer, error.msg_id, error.reason)

    def _service(self) -> None:
        self.link.poll(self._loop.time())
        self._flush()
        self._after()

    def _flush(self) -> None:
        out = self.link.take_output()
        if out:
            self._transport.write(out)

    def _after(self) -> None:
        if self._detached:
            return
        if self.link.lost:
            self._cancel_timer()
            self._report_lost()
            return
        self._lost_reported = False  # the peer came back (a new session): report the next loss too
        deadline = self.link.next_deadline()
        if deadline is None:
            # Nothing to time (all acknowledged): a timer left to fire would only cost a
            # loop turn to find that out, once per command on an idle line.
            self._cancel_timer()
            return
        # While frames are in flight keep a timer that fires no later than needed: firing
        # early only re-checks the link, while re-arming on every ack churns the timer heap.
        if self._timer is not None and self._timer.when() <= deadline:
            return
        self._cancel_timer()
        self._timer = self._loop.call_at(deadline, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._service()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_transport_closed(self) -> None:
        self._detached = True
        self._cancel_timer()
        self._report_lost()

    def _report_lost(self) -> None:
        if not self._lost_reported:
            self._lost_reported = True
            if self._on_lost:
                self._on_lost()
