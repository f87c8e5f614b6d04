"""The kit's host end of the line: a host that lets every frame be seen and sent wrong.

The reference `Link` hides what a conformance check must see (a duplicate it absorbed,
a NAK it answered), so the probe numbers, acknowledges and retransmits its own frames,
with the codec, catalog and control frames of this package. A check can send any frame
with any sequence number, go deaf (record frames without acknowledging them), or write
raw bytes.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..catalog import REPLIES, Message, ProtocolError, decode_message, encode_message
from ..frame import Frame, FrameDecoder, encode_frame
from ..link import ACK, FIRST_MESSAGE_ID, NAK, RESET, RESET_ACK, RESET_PAYLOAD, SEQ_MOD
from ..transport import ByteTransport

FRAME_GAP = 0.05     # PROTOCOL.md "Receiving frames": silence that ends an incomplete frame
RESEND_EVERY = 0.25  # the probe's own retransmission interval, like the host's patient RTO
RESENDS = 12         # then the table is declared unresponsive (3 s, the host's "lost")


class CheckFailed(Exception):
    """The table broke the rule a check tests; the message says how."""


@dataclass(frozen=True)
class Control:
    kind: int
    seq: int
    payload: bytes


def behind(a: int, b: int) -> int:
    """How far seq `a` is behind seq `b`, mod 256."""
    return (b - a) % SEQ_MOD


class Probe:
    def __init__(self, line: ByteTransport, epoch: int, loop: asyncio.AbstractEventLoop) -> None:
        self.line = line
        self.epoch = epoch
        self.loop = loop
        self.decoder = FrameDecoder()
        self.tx_next = 0           # seq of our next data frame
        self.rx_next = 0           # seq we expect from the table
        self.reset_number = 0
        self.peer_epoch: int | None = None
        self.deaf = False          # record the table's data frames, acknowledge and deliver none (until a session)
        self.controls: list[Control] = []
        self.arrivals: list[Frame] = []  # the table's data frames as they came, every copy
        self.delivered: list[Message | ProtocolError] = []  # in order, once each
        self._last_rx = 0.0
        self._wake = loop.create_future()
        self.closed = False
        line.on_close = self._on_close
        line.set_receiver(self._on_bytes)

    # ---- sending ----
    def write(self, data: bytes) -> None:
        self.line.write(data)

    def control(self, kind: int, seq: int, payload: bytes = b"") -> None:
        self.write(encode_frame(seq, kind, payload))

    def data_frame(self, msg: Message) -> bytes:
        """The frame for `msg` with the next sequence number, which is then used up."""
        return self.raw_data_frame(*encode_message(msg))

    def raw_data_frame(self, msg_id: int, payload: bytes) -> bytes:
        """A frame with any id and payload (an unknown id, a malformed payload), next seq."""
        seq, self.tx_next = self.tx_next, (self.tx_next + 1) % SEQ_MOD
        return encode_frame(seq, msg_id, payload)

    async def exchange(self, frame: bytes, what: str, resend: bool = True,
                       prefix: bytes = b"") -> Message | ProtocolError:
        """Send a data frame (after `prefix`, the first time) and return the table's next
        reply to it, resending as a host does until the table acknowledges it."""
        seq = frame[2]
        mark, acks = len(self.delivered), len(self.controls)
        self.write(prefix + frame)
        for _ in range(RESENDS if resend else 1):
            try:
                return await self.until(lambda: self._reply_after(mark, acks, seq), RESEND_EVERY, what)
            except CheckFailed:
                if not self.acked(seq, acks):
                    self.write(frame)
        return await self.until(lambda: self._reply_after(mark, acks, seq), RESEND_EVERY, f"reply to {what}")

    async def command(self, name: str, /, **args: Any) -> Message:
        reply = await self.exchange(self.data_frame(Message(name, args)), name)
        if isinstance(reply, ProtocolError):
            raise CheckFailed(f"the reply to {name} could not be decoded: {reply.reason}")
        return reply

    def _reply_after(self, mark: int, acks: int, seq: int) -> Message | ProtocolError | None:
        if not self.acked(seq, acks):
            return None
        return next((m for m in self.delivered[mark:] if _is_reply(m)), None)

    def acked(self, seq: int, since: int = 0) -> bool:
        """Has the table acknowledged our frame `seq` (an ACK or NAK past it) since control `since`?"""
        return any(c.kind in (ACK, NAK) and 0 < behind(seq, c.seq) <= SEQ_MOD // 2 for c in self.controls[since:])

    async def unheard_reply(self) -> Frame:
        """Send heartbeat and see its reply arrive without acknowledging it; the probe
        stays deaf (ignoring the table's retransmissions) until the next session starts."""
        mark = len(self.arrivals)
        self.deaf = True
        try:
            self.write(self.data_frame(Message("heartbeat")))
            return (await self.until(lambda: self.arrivals[mark:], 1.0, "reply to heartbeat"))[0]
        except CheckFailed:
            self.deaf = False
            raise

    # ---- sessions ----
    async def session(self, epoch: int | None = None, number: int | None = None) -> Control:
        """Run RESET / RESET_ACK; return the RESET_ACK. Our next seq becomes the table's expected."""
        epoch = self.epoch if epoch is None else epoch
        if number is None:
            number, self.reset_number = self.reset_number, (self.reset_number + 1) % 0x10000
        frame = encode_frame(self.rx_next, RESET, RESET_PAYLOAD.pack(epoch, number))
        mark = len(self.controls)

        def answered() -> Control | None:
            return next((c for c in self.controls[mark:] if c.kind == RESET_ACK and len(c.payload) == RESET_PAYLOAD.size
                         and RESET_PAYLOAD.unpack(c.payload)[1] == number), None)
        for _ in range(RESENDS):
            self.write(frame)
            try:
                ack = await self.until(answered, RESEND_EVERY, "RESET_ACK")
                break
            except CheckFailed:
                continue
        else:
            raise CheckFailed(f"no RESET_ACK to RESET #{number} within {RESENDS * RESEND_EVERY:.0f} s")
        self.tx_next = ack.seq
        self.peer_epoch = RESET_PAYLOAD.unpack(ack.payload)[0]
        return ack

    # ---- waiting ----
    async def until(self, condition: Callable[[], Any], timeout: float, what: str) -> Any:
        """Wait until `condition()` is truthy and return it; CheckFailed after `timeout`."""
        deadline = self.loop.time() + timeout
        while not (value := condition()):
            left = deadline - self.loop.time()
            if left <= 0 or self.closed:
                raise CheckFailed(f"no {what} within {timeout:g} s" if not self.closed else "the line closed")
            try:
                await asyncio.wait_for(asyncio.shield(self._wake), left)
            except asyncio.TimeoutError:
                pass
        return value

    async def quiet(self, seconds: float) -> None:
        """Let `seconds` pass, handling what arrives meanwhile."""
        await asyncio.sleep(seconds)

    def events_after(self, mark: int, name: str | None = None) -> list[Message]:
        return [m for m in self.delivered[mark:]
                if isinstance(m, Message) and not _is_reply(m) and name in (None, m.name)]

    # ---- receiving ----
    def _on_bytes(self, data: bytes) -> None:
        now = self.loop.time()
        frames = self.decoder.abandon_partial() if now - self._last_rx >= FRAME_GAP else []
        frames += self.decoder.feed(data)
        self._last_rx = now
        for frame in frames:
            if frame.msg_id < FIRST_MESSAGE_ID:
                self.controls.append(Control(frame.msg_id, frame.seq, frame.payload))
                self.deaf = self.deaf and frame.msg_id != RESET_ACK  # a session ends deafness
            else:
                self._on_data(frame)
        self._notify()

    def _on_data(self, frame: Frame) -> None:
        self.arrivals.append(frame)
        if self.deaf:
            return
        if frame.seq == self.rx_next:
            self.rx_next = (self.rx_next + 1) % SEQ_MOD
            self.delivered.append(decode_message(frame.msg_id, frame.payload))
            self.control(ACK, self.rx_next)
        elif 0 < behind(frame.seq, self.rx_next) <= SEQ_MOD // 2:
            self.control(ACK, self.rx_next)  # the table missed our ack: acknowledge again
        else:
            self.control(NAK, self.rx_next)

    def _notify(self) -> None:
        if not self._wake.done():
            self._wake.set_result(None)
        self._wake = self.loop.create_future()

    def _on_close(self) -> None:
        self.closed = True
        self._notify()

    def close(self) -> None:
        self.line.close()


def _is_reply(item: Message | ProtocolError) -> bool:
    return isinstance(item, ProtocolError) or item.name in REPLIES
