"""Frame codec: the bytes on the wire around one message (PROTOCOL.md "Frames").

    sync 0xA5 | length | seq | msg id | payload (length bytes) | CRC-16 high byte | low byte

The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no final xor;
check value 0x29B1 for b"123456789") over length, seq, msg id and payload. It is sent
high byte first, so the CRC of everything after the sync byte, CRC included, is 0 —
which is how the decoder checks it, in one C call.

There is no byte stuffing: the length prefix says where a frame ends and the CRC says
whether it is real. After any bad frame the decoder drops only that frame's sync byte and
hunts for the next one, so a real frame that starts inside the rubble is never skipped.
"""
from __future__ import annotations

from binascii import crc_hqx
from dataclasses import dataclass
from typing import NamedTuple

SYNC = 0xA5
CRC_INIT = 0xFFFF
HEADER_SIZE = 4   # sync, length, seq, msg id
CRC_SIZE = 2
OVERHEAD = HEADER_SIZE + CRC_SIZE
MAX_FRAME = 64
MAX_PAYLOAD = MAX_FRAME - OVERHEAD
MIN_FRAME = 32  # the smallest frame size a table may announce: every command but show_text fits


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of `data`."""
    return crc_hqx(data, CRC_INIT)


class Frame(NamedTuple):
    seq: int
    msg_id: int
    payload: bytes


class OversizeFrame(ValueError):
    """A payload too long for the receiver's frame size."""


_new_frame = tuple.__new__  # a Frame without the Python-level constructor call, for the decoder's loop


def encode_frame(seq: int, msg_id: int, payload: bytes = b"") -> bytes:
    if len(payload) > MAX_PAYLOAD:
        raise OversizeFrame(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((len(payload), seq, msg_id)) + payload  # bytes() range-checks seq and id
    return b"\xa5" + body + crc_hqx(body, CRC_INIT).to_bytes(2, "big")


@dataclass
class DecoderStats:
    frames_received: int = 0  # good frames decoded
    bytes_skipped: int = 0  # bytes discarded while hunting for a sync byte (bad frames' sync bytes included)
    crc_errors: int = 0
    oversize: int = 0       # length byte above MAX_PAYLOAD
    resyncs: int = 0        # times the decoder lost step and had to hunt for a frame start
    truncated: int = 0      # incomplete frames abandoned by abandon_partial()


class FrameDecoder:
    """Incremental, pure frame decoder: bytes in, complete good frames out; never raises.

    Counters go to `stats` (pass a subclass instance, e.g. the link's statistics, to
    count there directly). Results do not depend on how the input is split into chunks.
    `max_payload` is the receiver's buffer: a longer frame is counted `oversize` and
    skipped, as an MCU with a smaller frame size would.
    """

    def __init__(self, stats: DecoderStats | None = None, max_payload: int = MAX_PAYLOAD) -> None:
        self.stats = stats if stats is not None else DecoderStats()
        self.max_payload = max_payload
        self._buf = bytearray()  # an incomplete frame, kept until the rest arrives
        self._hunting = False

    def clear(self) -> None:
        """Forget a partial frame (the byte stream it belonged to has gone)."""
        self._buf.clear()

    @property
    def waiting(self) -> int:
        """Bytes of an incomplete frame held until the rest arrives."""
        return len(self._buf)

    def abandon_partial(self) -> list[Frame]:
        """Give up the incomplete frame (its sender went quiet) and decode what follows it.

        A corrupted length byte makes the decoder wait for bytes that never come while
        real frames sit behind it; the caller, which knows the time, ends the wait.
        """
        if not self._buf:
            return []
        self.stats.truncated += 1
        self._skip(1)
        del self._buf[0]
        return self.feed(b"")

    def feed(self, data: bytes) -> list[Frame]:
        # The usual read: exactly one good frame, nothing held before it.
        if (not self._buf and type(data) is bytes and (size := len(data)) >= OVERHEAD and data[0] == SYNC
                and data[1] <= self.max_payload and size == data[1] + OVERHEAD and not crc_hqx(data[1:], CRC_INIT)):
            self._hunting = False
            self.stats.frames_received += 1
            return [_new_frame(Frame, (data[2], data[3], data[HEADER_SIZE:-CRC_SIZE]))]
        # Otherwise decode straight from the chunk: usually it holds whole frames, nothing is kept.
        if self._buf:
            self._buf += data
            data = bytes(self._buf)
            self._buf.clear()
        elif type(data) is not bytes:
            data = bytes(data)
        end = len(data)
        frames: list[Frame] = []
        pos = 0
        max_payload = self.max_payload
        while pos < end:
            if data[pos] != SYNC:
                start = data.find(SYNC, pos)
                if start < 0:
                    self._skip(end - pos)
                    pos = end
                    break
                self._skip(start - pos)
                pos = start
            if end - pos < 2:
                break  # the length byte has not arrived
            length = data[pos + 1]
            if length > max_payload:
                self.stats.oversize += 1
                pos = self._reject(pos)
                continue
            stop = pos + length + OVERHEAD
            if stop > end:
                break  # wait for the rest
            if crc_hqx(data[pos + 1:stop], CRC_INIT):
                self.stats.crc_errors += 1
                pos = self._reject(pos)
                continue
            frames.append(_new_frame(Frame, (data[pos + 2], data[pos + 3], data[pos + HEADER_SIZE:stop - CRC_SIZE])))
            self._hunting = False
            pos = stop
        if pos < end:
            self._buf += data[pos:]
        if frames:
            self.stats.frames_received += len(frames)
        return frames

    def _reject(self, pos: int) -> int:
        """Drop a bad frame's sync byte only: the next frame may start inside it."""
        self._skip(1)
        return pos + 1

    def _skip(self, count: int) -> None:
        self.stats.bytes_skipped += count
        if not self._hunting:
            self.stats.resyncs += 1
            self._hunting = True
