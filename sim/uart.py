"""The table MCU's serial port on a host line, where line faults are injected.

The line (a pty, a TCP connection, an in-memory pair) outlives the firmware's link:
after an MCU reset a new link starts on a fresh `port()` of the same UART, and the old
link's port goes deaf and mute, as the old firmware would. A `FaultPlan.link`
impairment (firmware_protocol.transport.Impairment) damages the bytes in both
directions, on any line.
"""
from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from firmware_protocol.transport import ByteTransport, Impairment, Impairer

Receiver = Callable[[bytes], None]


class Port:
    """One link incarnation's view of the UART: a ByteTransport that can be cut off."""

    def __init__(self, uart: "Uart") -> None:
        self._uart = uart
        self.on_close: Callable[[], None] | None = None
        self.receiver: Receiver | None = None
        self.closed = False

    def set_receiver(self, callback: Receiver) -> None:
        self.receiver = callback

    def write(self, data: bytes) -> None:
        if not self.closed:
            self._uart.send(data)

    def close(self) -> None:
        """Detach from the UART; the line stays (see Uart.close)."""
        self.closed = True


class _Noise:
    """Seeded damage on one direction of the line; a line clock keeps byte order under jitter."""

    def __init__(self, spec: Impairment, rng: random.Random, loop: asyncio.AbstractEventLoop) -> None:
        self._impairer = Impairer(spec, rng)
        self._loop = loop
        self._free_at = 0.0

    def pass_on(self, data: bytes, deliver: Receiver) -> None:
        spec, rng, now = self._impairer.spec, self._impairer.rng, self._loop.time()
        for chunk, overtaken in self._impairer.copies(data, now):
            if overtaken:
                self._loop.call_at(now + rng.uniform(0, spec.reorder_delay), deliver, chunk)
            else:
                self._free_at = max(self._free_at, now) + rng.uniform(0, spec.jitter)
                self._loop.call_at(self._free_at, deliver, chunk)


class Uart:
    def __init__(self, line: ByteTransport, loop: asyncio.AbstractEventLoop, impairment: Impairment | None = None,
                 seed: int = 0) -> None:
        self._line = line
        rng = random.Random(f"{seed}:line")
        self._noise_in, self._noise_out = (_Noise(impairment, random.Random(rng.getrandbits(64)), loop)
                                           if impairment else None for _ in range(2))
        self._port: Port | None = None
        # A clean line (the usual case) is bound straight through: every frame passes here.
        line.set_receiver(self._receive if self._noise_in is None
                          else lambda data: self._noise_in.pass_on(data, self._receive))
        line.on_close = self._line_closed

    def port(self) -> Port:
        if self._port is not None:
            self._port.close()
        self._port = Port(self)
        return self._port

    def send(self, data: bytes) -> None:
        if self._noise_out is None:
            self._line.write(data)
        else:
            self._noise_out.pass_on(data, self._line.write)

    def close(self) -> None:
        """Hang up the line itself (a new host connection replaces this one)."""
        self._line.close()

    def _receive(self, data: bytes) -> None:
        port = self._port
        if port is not None and not port.closed and port.receiver is not None:
            port.receiver(data)

    def _line_closed(self) -> None:
        port = self._port
        if port is not None and not port.closed and port.on_close:
            port.on_close()
