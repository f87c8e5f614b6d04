"""Byte transports: where a link's bytes go. One small interface, several lines.

    transport.set_receiver(callback)   # callback(bytes) for every chunk read
    transport.write(data)              # never blocks; buffered if the line is busy
    transport.close()
    transport.on_close                 # called once if the other end vanishes (not on our close())

- `memory_pair(loop, ...)`: two connected ends inside one event loop, with seeded line
  impairments; runs in virtual time.
- `SerialTransport.open(url, baudrate)`: a device path (UART, USB-CDC, pty) through
  pyserial, or `socket://host:port`; both read with `loop.add_reader`, no threads.
- `FdTransport(fd)`: any non-blocking file descriptor, e.g. a pty master the simulator serves.
- `StreamTransport(reader, writer)`: asyncio streams, e.g. a TCP connection the simulator accepted.
"""
from __future__ import annotations

import asyncio
import math
import os
import random
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

import serial

Receiver = Callable[[bytes], None]


class ByteTransport(Protocol):
    on_close: Callable[[], None] | None

    def set_receiver(self, callback: Receiver) -> None: ...
    def write(self, data: bytes) -> None: ...
    def close(self) -> None: ...


class BaseTransport:
    """Receiver and close bookkeeping shared by the transports."""

    def __init__(self) -> None:
        self.on_close: Callable[[], None] | None = None
        self.closed = False
        self._receiver: Receiver | None = None

    def set_receiver(self, callback: Receiver) -> None:
        self._receiver = callback

    def _deliver(self, data: bytes) -> None:
        # Like a serial line: bytes arriving before anyone listens are gone.
        if self._receiver is not None and not self.closed:
            self._receiver(data)

    def _vanished(self) -> None:
        """The other end went away: release resources and tell the owner once."""
        if not self.closed:
            self.close()
            if self.on_close:
                self.on_close()


# ---------------------------------------------------------------- in memory

@dataclass(frozen=True)
class Impairment:
    """Seeded faults on one direction of a line. Rates are probabilities in [0, 1]."""

    corrupt: float = 0.0      # per byte: replaced by a different random byte
    drop: float = 0.0         # per write (a frame or a batch of frames): lost entirely
    duplicate: float = 0.0    # per write: delivered twice
    jitter: float = 0.0       # seconds: extra delay, uniform in [0, jitter], order kept
    reorder: float = 0.0      # per write: delivered up to `reorder_delay` late, overtaken by later writes
    reorder_delay: float = 0.01
    burst: float = 0.0        # per write: a run of `burst_length` bytes replaced by noise
    burst_length: int = 8
    noise_every: float = 0.0  # seconds: a noise burst starts every so often (0: never)...
    noise_for: float = 0.0    # ...and lasts this long...
    noise_corrupt: float = 1.0  # ...corrupting bytes at this rate instead of `corrupt` (1: a cut line)
    noise_from: float = 0.0   # loop time of the first burst


class Impairer:
    def __init__(self, spec: Impairment, rng: random.Random) -> None:
        self.spec, self.rng = spec, rng

    def copies(self, data: bytes, now: float) -> list[tuple[bytes, bool]]:
        """The chunks the far end will see for one write at `now`, each with "may overtake"."""
        s, rng = self.spec, self.rng
        if rng.random() < s.drop:
            return []
        noisy = s.noise_every > 0 and now >= s.noise_from and (now - s.noise_from) % s.noise_every < s.noise_for
        corrupt = s.noise_corrupt if noisy else s.corrupt
        count = 2 if rng.random() < s.duplicate else 1
        return [(self._damage(data, corrupt), rng.random() < s.reorder) for _ in range(count)]

    def _damage(self, data: bytes, corrupt: float) -> bytes:
        s, rng = self.spec, self.rng
        out = bytearray(data)
        if corrupt > 0:
            # Jump from one corrupted byte to the next with a geometric gap: no per-byte loop.
            pos = self._gap(corrupt)
            while pos < len(out):
                out[pos] ^= rng.randrange(1, 256)
                pos += 1 + self._gap(corrupt)
        if out and rng.random() < s.burst:
            start = rng.randrange(len(out))
            run = min(s.burst_length, len(out) - start)
            out[start:start + run] = rng.randbytes(run)
        return bytes(out)

    def _gap(self, rate: float) -> int:
        if rate >= 1:
            return 0
        return int(math.log(1.0 - self.rng.random()) / math.log(1.0 - rate))


class MemoryTransport(BaseTransport):
    """One end of an in-process line: bytes arrive after their line time (+ impairments)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, byte_time: float, impairer: Impairer | None) -> None:
        super().__init__()
        self.peer: MemoryTransport | None = None
        self._loop, self._byte_time, self._impairer = loop, byte_time, impairer
        self._line_free_at = 0.0  # bytes are serialised: a write waits for the previous one

    def write(self, data: bytes) -> None:
        if self.closed or not data:
            return
        now = self._loop.time()
        free_at = self._line_free_at
        self._line_free_at = (free_at if free_at > now else now) + len(data) * self._byte_time
        if self._impairer is None:  # a clean line: one copy, when its last byte is through
            self._loop.call_at(self._line_free_at, self.peer._deliver, bytes(data))
            return
        for chunk, overtaken in self._impairer.copies(data, now):
            self._loop.call_at(self._arrival(overtaken), self.peer._deliver, chunk)

    def _arrival(self, overtaken: bool) -> float:
        spec, rng = self._impairer.spec, self._impairer.rng
        if overtaken:
            return self._line_free_at + rng.uniform(0, spec.reorder_delay)
        self._line_free_at += rng.uniform(0, spec.jitter)  # later chunks queue behind: order kept
        return self._line_free_at

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._loop.call_soon(self.peer._vanished)


def memory_pair(
    loop: asyncio.AbstractEventLoop,
    byte_time: float = 1e-5,
    impairment: Impairment | tuple[Impairment | None, Impairment | None] | None = None,
    seed: int = 0,
) -> tuple[MemoryTransport, MemoryTransport]:
    """Two connected ends. `impairment` applies to both directions, or (a->b, b->a)."""
    a_to_b, b_to_a = impairment if isinstance(impairment, tuple) else (impairment, impairment)
    rng = random.Random(seed)
    impairers = [Impairer(spec, random.Random(rng.getrandbits(64))) if spec else None for spec in (a_to_b, b_to_a)]
    a = MemoryTransport(loop, byte_time, impairers[0])
    b = MemoryTransport(loop, byte_time, impairers[1])
    a.peer, b.peer = b, a
    return a, b


# ---------------------------------------------------------------- file descriptors

class FdTransport(BaseTransport):
    """A non-blocking file descriptor on the event loop: pty master, tty, socket."""

    READ_SIZE = 4096

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop | None = None,
                 dispose: Callable[[], Any] | None = None) -> None:
        super().__init__()
        self._fd = fd
        self._loop = loop or asyncio.get_running_loop()
        self._dispose = dispose if dispose is not None else (lambda: os.close(fd))
        self._pending = bytearray()
        os.set_blocking(fd, False)

    def set_receiver(self, callback: Receiver) -> None:
        super().set_receiver(callback)
        if not self.closed:
            self._loop.add_reader(self._fd, self._on_readable)

    def _on_readable(self) -> None:
        try:
            data = os.read(self._fd, self.READ_SIZE)
        except BlockingIOError:
            return
        except OSError:  # EIO: the pty's other side closed; ENXIO/ENODEV: the USB port was pulled
            data = b""
        if data:
            self._deliver(data)
        else:
            self._vanished()

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        if self._pending:  # keep byte order behind what is already waiting
            self._pending += data
            return
        sent = self._try_write(data)
        if sent is not None and sent < len(data):
            self._pending += data[sent:]
            self._loop.add_writer(self._fd, self._on_writable)

    def _on_writable(self) -> None:
        sent = self._try_write(self._pending)
        if sent is not None:
            del self._pending[:sent]
            if not self._pending:
                self._loop.remove_writer(self._fd)

    def _try_write(self, data: bytes) -> int | None:
        """Bytes written (0 if the line is full), None if the port vanished."""
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return 0
        except OSError:
            self._vanished()
            return None

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._loop.remove_reader(self._fd)
        self._loop.remove_writer(self._fd)
        self._pending.clear()
        self._dispose()


class SerialTransport(FdTransport):
    """A serial device through pyserial, or a TCP line given as `socket://host:port`."""

    @classmethod
    def open(cls, url: str, baudrate: int = 115200, loop: asyncio.AbstractEventLoop | None = None,
             connect_timeout: float = 5.0) -> SerialTransport:
        """Open the port; raises OSError (serial.SerialException is one) if it cannot."""
        if url.startswith("socket://"):
            # pyserial's socket handler sleeps 0.3 s in close(), which would stall the loop.
            parts = urlsplit(url)
            sock = socket.create_connection((parts.hostname, parts.port), timeout=connect_timeout)
            sock.setblocking(False)
            return cls(sock.fileno(), loop, dispose=sock.close)
        port = serial.serial_for_url(url, baudrate=baudrate, timeout=0, exclusive=True)
        try:
            return cls(port.fileno(), loop, dispose=port.close)
        except (AttributeError, NotImplementedError, OSError):
            port.close()
            raise OSError(f"{url}: has no file descriptor to watch") from None


class StreamTransport(BaseTransport):
    """asyncio streams, e.g. from `asyncio.start_server`; reads in one task, no polling."""

    READ_SIZE = 4096

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__()
        self._reader, self._writer = reader, writer
        self._task: asyncio.Task | None = None

    def set_receiver(self, callback: Receiver) -> None:
        super().set_receiver(callback)
        if self._task is None and not self.closed:
            self._task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while data := await self._reader.read(self.READ_SIZE):
                self._deliver(data)
        except OSError:
            pass
        self._task = None  # finished by itself: close() must not cancel it
        self._vanished()

    def write(self, data: bytes) -> None:
        if not self.closed:
            self._writer.write(data)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._task is not None:
            self._task.cancel()
        self._writer.close()
