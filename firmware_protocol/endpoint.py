"""A Link on a byte transport, driven by the event loop.

Received bytes go to the link with `loop.time()`; its output is written at once; its
timers become one `loop.call_at` handle, re-armed only when the link's deadline moves.
An idle endpoint therefore has no timer and costs no CPU.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable

from .catalog import Message, ProtocolError
from .link import Delivery, Link, LinkStats, SessionStart
from .transport import ByteTransport


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
        """Queue a message; raises EncodeError if it is malformed."""
        self.link.send(msg)
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
        deliveries = self.link.receive(data, self._loop.time())
        self._flush()  # acks first: the peer's timer is running
        for item in deliveries:
            self._dispatch(item)
        self._after()

    def _dispatch(self, item: Delivery) -> None:
        if isinstance(item, Message):
            self._on_message(item)
        elif self._on_protocol_error:
            self._on_protocol_error(item)

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
        # Keep a timer that fires no later than needed: firing early only re-checks the
        # link, while cancelling and re-arming on every frame churns the loop's timer heap.
        if deadline is None or (self._timer is not None and self._timer.when() <= deadline):
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
