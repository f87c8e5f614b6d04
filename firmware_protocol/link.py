"""The reliable link, sans I/O: the same object runs on the host and on the table.

Bytes go in with `receive(data, now)`, timers run with `poll(now)`, bytes to write come
out of `take_output()`; the link never reads a clock or touches a file, so it runs the
same in real and in virtual time (PROTOCOL.md "Link layer").

The link moves frames: it sends (message id, payload) pairs and delivers the data frames
it receives, in order, exactly once. What a payload means is the catalog's business,
applied above the link (firmware_protocol/messages.py), so the link never decodes one.

- Data frames (message ids 0x10 and up) carry a sequence number mod 256. The receiver
  accepts only the next one in sequence (go-back-N: a small MCU keeps no reorder buffer),
  acknowledges cumulatively with ACK(next expected seq), re-acknowledges duplicates and
  NAKs the first frame it sees out of order.
- The sender keeps up to `window` frames in flight, retransmits all of them when the
  oldest is not acknowledged within the RTO (RFC 6298: srtt/rttvar, Karn's rule, clamped,
  doubled on every timeout unless `backoff` is off) and declares the link `lost` when
  the peer acknowledges nothing for `give_up` seconds or `max_retransmits` timeouts in
  a row. A patient sender (`give_up_heard`: the host, on a noisy line) waits longer
  while bytes from the peer keep arriving: only a silent peer is lost after `give_up`.
- Sessions: the host sends RESET(its next expected seq, its epoch); the table answers
  RESET_ACK(its next expected seq, its epoch). Each side then resumes sending from the
  seq the other expects. Sequence numbers never restart, so a session with the same peer
  incarnation (same epoch) continues without loss or duplication; with a new incarnation
  (the table rebooted, or a new host process) the messages of the old session are
  dropped and handed to `on_session`, because the new peer never knew them. The host keeps
  one epoch (one Link) for the life of its process, so a table that did not reboot
  delivers after a reconnect what it queued while the line was down.
"""
from __future__ import annotations

import os
import struct
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice

from .frame import MAX_FRAME, MIN_FRAME, OVERHEAD, DecoderStats, Frame, FrameDecoder, OversizeFrame, encode_frame

# Control frames: ids below the catalog's 0x10. The seq byte carries the sender's next
# expected sequence number, except in RESET_REQUEST where it is 0.
ACK = 0x01
NAK = 0x02
RESET = 0x03
RESET_ACK = 0x04
RESET_REQUEST = 0x05
FIRST_MESSAGE_ID = 0x10
CONTROL_NAMES = {ACK: "ack", NAK: "nak", RESET: "reset", RESET_ACK: "reset_ack", RESET_REQUEST: "reset_request"}

# Control frames only the other role sends: received, they are protocol errors (ignored).
_NOT_FOR = {"host": frozenset({RESET}), "table": frozenset({RESET_ACK, RESET_REQUEST})}

SEQ_MOD = 256
MAX_WINDOW = SEQ_MOD // 2 - 1  # more in flight and an old duplicate looks like a new frame
RESET_PAYLOAD = struct.Struct("<IH")  # sender's epoch, reset number (matches a RESET_ACK to its RESET)
# Every ACK and NAK there can be, built once: one is written for nearly every frame received.
_ACKS = tuple(encode_frame(seq, ACK) for seq in range(SEQ_MOD))
_NAKS = tuple(encode_frame(seq, NAK) for seq in range(SEQ_MOD))


@dataclass
class LinkStats(DecoderStats):
    frames_sent: int = 0          # every frame written: data, retransmissions and control
    messages_sent: int = 0        # messages queued by send()
    messages_delivered: int = 0   # data frames delivered (each once, in order)
    retransmits: int = 0
    duplicates: int = 0           # data frames received again (their ack was lost); not delivered
    naks_sent: int = 0
    naks_received: int = 0
    protocol_errors: int = 0      # delivered frames the layer above could not decode (it counts them)
    sessions: int = 0             # completed reset handshakes
    dropped: int = 0              # messages of a previous session dropped at a new peer incarnation
    srtt: float | None = None
    rttvar: float | None = None
    rto: float = 0.0


@dataclass(frozen=True)
class SessionStart:
    peer_epoch: int
    resumed: bool                 # same peer incarnation: nothing lost, nothing repeated
    dropped: list[tuple[int, bytes]] = field(default_factory=list)  # (message id, payload) never delivered


class _Outgoing:
    """A queued message. No __init__: the send path, run for every message, sets the rest."""

    frame = b""
    sent_at = 0.0
    retransmitted = False
    msg_id: int
    payload: bytes
    bound: bool  # belongs to the current peer's session (dropped if the peer turns out new)


class Link:
    def __init__(
        self,
        role: str,
        window: int = 4,
        *,
        rto_initial: float = 0.2,
        rto_min: float = 0.05,
        rto_max: float = 1.0,
        give_up: float = 3.0,
        give_up_heard: float | None = None,
        max_retransmits: int | None = 10,
        backoff: bool = True,
        frame_gap: float = 0.05,
        epoch: int | None = None,
        frame_size: int = MAX_FRAME,
        on_session: Callable[[SessionStart], None] | None = None,
    ) -> None:
        """`frame_size`: the largest frame this side receives (a table announces it);
        longer ones are skipped as `oversize`."""
        if role not in ("host", "table"):
            raise ValueError(f"role must be 'host' or 'table', not {role!r}")
        if not 0 < rto_min <= rto_initial <= rto_max:
            raise ValueError("need 0 < rto_min <= rto_initial <= rto_max")
        self.role = role
        self.window = window
        self.rto_min, self.rto_max = rto_min, rto_max
        self.give_up, self.max_retransmits, self.backoff = give_up, max_retransmits, backoff
        # Lost after this long without an acknowledgement even while the peer is heard.
        self.give_up_heard = give_up if give_up_heard is None else max(give_up, give_up_heard)
        self.frame_gap = frame_gap  # silence that ends an incomplete frame
        self.epoch = int.from_bytes(os.urandom(4), "little") if epoch is None else epoch
        self.on_session = on_session
        self.stats = LinkStats(rto=rto_initial)
        self._rto = rto_initial  # the RTO before backoff
        self.lost = False
        self._decoder = FrameDecoder(self.stats, min(frame_size, MAX_FRAME) - OVERHEAD)
        self.peer_frame_size = MAX_FRAME
        self._out = b""  # a few frames at most between two take_output() calls
        self._queue: deque[_Outgoing] = deque()  # the first _in_flight entries are in flight
        self._in_flight = 0
        self._base = 0          # seq of the oldest frame in flight (= _next_seq when none)
        self._next_seq = 0
        self._rx_next = 0
        self._nak_sent = False  # a NAK for _rx_next is out; one per gap
        self._nak_round: tuple[int, float] | None = None  # the NAK's n that started the last round, and when
        # What the frames of one receive() call ask for; answered once at its end.
        self._ack_due = self._request_due = self._heard = False
        self._nak_at: int | None = None
        self._open = False
        self._peer_epoch: int | None = None
        self._reset_number = 0
        self._awaiting: int | None = None  # the reset number of our unanswered RESET
        self._reset_due = role == "host"  # the host starts every session (PROTOCOL.md "Sessions")
        self._last_reset: tuple[int, int] | None = None
        self._abandoned = 0  # queued messages (the oldest) given up by reset(abandon=True)
        self._rtx_at: float | None = None
        self._armed_at: float | None = None  # since then nothing has been acknowledged
        self._timeouts = 0
        self._now = 0.0
        self._last_rx = 0.0
        self._heard_at = 0.0  # the last bytes from the peer, damaged or not

    # ---- public API ----
    @property
    def window(self) -> int:
        return self._window

    @window.setter
    def window(self, value: int) -> None:
        """The host narrows it to the table's announced receive window after identify."""
        if not 1 <= value <= MAX_WINDOW:
            raise ValueError(f"window must be 1-{MAX_WINDOW}")
        self._window = value

    @property
    def peer_frame_size(self) -> int:
        return self.max_payload + OVERHEAD

    @peer_frame_size.setter
    def peer_frame_size(self, value: int) -> None:
        """The largest frame the peer receives (the table's announced frame size): no
        longer frame is sent to it."""
        if value < MIN_FRAME:
            raise ValueError(f"a frame size below {MIN_FRAME} cannot carry every command")
        self.max_payload = min(value, MAX_FRAME) - OVERHEAD  # the longest payload the peer takes

    @property
    def is_open(self) -> bool:
        return self._open

    def send(self, msg_id: int, payload: bytes = b"") -> None:
        """Queue a message; raises OversizeFrame at once if the peer could not receive it."""
        if len(payload) > self.max_payload:
            raise OversizeFrame(f"a payload of {len(payload)} bytes does not fit the peer's frame size of "
                                f"{self.peer_frame_size} bytes")
        item = _Outgoing()
        item.msg_id, item.payload, item.bound = msg_id, payload, self._open
        self._queue.append(item)
        self.stats.messages_sent += 1

    def receive(self, data: bytes, now: float) -> list[Frame]:
        """Feed received bytes; return the data frames they deliver, in order, each once.

        A malformed control frame is returned too (its id is below FIRST_MESSAGE_ID), for
        the layer above to report: the link cannot act on it.
        """
        self._now = now
        decoder = self._decoder
        if now - self._last_rx >= self.frame_gap and decoder.waiting:
            frames = decoder.abandon_partial() + decoder.feed(data)
        else:
            frames = decoder.feed(data)
        self._last_rx = now
        if data:
            self._heard_at = now
        delivered: list[Frame] = []
        # The usual frames (the next data frame in order, a plain ACK) are handled inline:
        # this loop runs for every frame on the line.
        for frame in frames:
            seq, kind = frame[0], frame[1]
            if kind >= FIRST_MESSAGE_ID:
                if seq == self._rx_next and self._open:
                    self._rx_next = (seq + 1) % SEQ_MOD
                    self._nak_sent = False
                    self._ack_due = self._heard = True
                    delivered.append(frame)
                else:
                    self._on_data(frame, delivered)
            elif kind == ACK and self._open and not frame[2]:
                self._heard = True
                self._on_ack(seq, now)
            else:
                self._on_control(frame, now, delivered)
        if self._request_due or self._nak_at is not None:
            self._answer()
        elif self._ack_due:
            self._ack_due = False
            self._out += _ACKS[self._rx_next]
            self.stats.frames_sent += 1
        if self._heard:
            self._heard = False
            if self.lost:
                self._revive(now)
        if delivered:
            self.stats.messages_delivered += len(delivered)
        if self._armed_at is not None or self._reset_due or len(self._queue) > self._in_flight:
            self.poll(now)  # otherwise no timer runs and nothing waits to be sent
        return delivered

    def poll(self, now: float) -> None:
        """Run the timers due at `now` and send what the window allows."""
        self._now = now
        if self.lost:
            return
        if self._armed_at is not None and now >= self._give_up_at():
            self.lost = True
            return
        if self._reset_due:
            self._reset_due = False
            self._send_reset(now)
        elif self._rtx_at is not None and now >= self._rtx_at:
            self._on_timeout(now)
        # Send what the window allows.
        if self._open and self._in_flight < (queued := len(self._queue)):
            limit = self._window if self._window < queued else queued
            while self._in_flight < limit:
                item = self._queue[self._in_flight]
                item.frame = frame = encode_frame(self._next_seq, item.msg_id, item.payload)
                item.sent_at, item.retransmitted = now, False
                self._next_seq = (self._next_seq + 1) % SEQ_MOD
                if self._in_flight == 0:
                    self._rtx_at, self._armed_at = now + self.stats.rto, now  # _arm, inline
                self._in_flight += 1
                self._out += frame
                self.stats.frames_sent += 1

    def solicit(self) -> None:
        """Ask the peer to send again what has not arrived: NAK(the next expected seq).

        For a receiver that knows a frame is missing although none arrived out of order
        (the host waiting for a reply on a noisy line). The peer retransmits at once, or
        wakes if it had given up; one that has nothing in flight ignores it.
        """
        if self._open:
            self.stats.naks_sent += 1
            self._write(_NAKS[self._rx_next])

    def take_output(self) -> bytes:
        out, self._out = self._out, b""
        return out

    def next_deadline(self) -> float | None:
        """When poll() must run next; a time not after the last `now` seen means at once."""
        if self.lost:
            return None
        if self._reset_due or self._open and self._in_flight < min(self._window, len(self._queue)):
            return self._now
        if self._armed_at is None:  # then no retransmission is due either: both are set and cleared together
            return None
        give_up_at = self._give_up_at()
        return self._rtx_at if self._rtx_at < give_up_at else give_up_at

    def _give_up_at(self) -> float | None:
        """When the link is lost if nothing is acknowledged: `give_up` after the later of
        the oldest unacknowledged transmission and the last bytes heard, never later than
        `give_up_heard` after that transmission."""
        if self._armed_at is None:
            return None
        return min(max(self._armed_at, self._heard_at) + self.give_up, self._armed_at + self.give_up_heard)

    def reset(self, *, abandon: bool = False) -> None:
        """A new byte stream (a reconnect): the host starts a new session, the table awaits one.

        Partial input from the old stream is forgotten; queued messages stay and are
        sent, or dropped, as the handshake decides. With `abandon` (their senders were
        told they failed) what the peer has not received is dropped instead: nothing
        queued before the reconnect reaches the peer after it.
        """
        self._decoder.clear()
        if abandon:
            self._abandoned = len(self._queue)
        if self.role == "host":
            self._begin_reset()

    # ---- sending ----
    def _retransmit(self) -> None:
        """Go-back-N: the receiver dropped everything after the missing frame."""
        for item in islice(self._queue, self._in_flight):
            item.retransmitted = True
            self._write(item.frame)
        self.stats.retransmits += self._in_flight

    def _on_timeout(self, now: float) -> None:
        self._timeouts += 1
        if self.max_retransmits is not None and self._timeouts > self.max_retransmits:
            self.lost = True
            return
        if self.backoff:
            self.stats.rto = min(self.stats.rto * 2, self.rto_max)
        if self._open:
            self._nak_round = None
            self._retransmit()
        else:
            self._send_reset(now)
        self._rtx_at = now + self.stats.rto

    def _arm(self, now: float) -> None:
        self._rtx_at = now + self.stats.rto
        self._armed_at = now

    def _disarm(self) -> None:
        self._rtx_at = self._armed_at = None
        self._timeouts = 0

    def _write(self, frame: bytes) -> None:
        self._out += frame
        self.stats.frames_sent += 1

    def _control(self, kind: int, seq: int, payload: bytes = b"") -> None:
        self._write(encode_frame(seq, kind, payload))

    # ---- acknowledgements ----
    def _on_ack(self, ack: int, now: float) -> bool:
        """Release the frames before `ack`; False if it acknowledges nothing we sent."""
        count = (ack - self._base) % SEQ_MOD
        if count > self._in_flight:
            return False
        if count == 0:
            return True
        queue = self._queue
        newest = queue[count - 1]
        if not newest.retransmitted:  # Karn: a retransmitted frame's ack is ambiguous
            # RFC 6298: smoothed RTT and its variation give the RTO, clamped.
            s, rtt = self.stats, now - newest.sent_at
            if s.srtt is None:
                s.srtt, s.rttvar = rtt, rtt / 2
            else:
                s.rttvar = 0.75 * s.rttvar + 0.25 * abs(s.srtt - rtt)
                s.srtt = 0.875 * s.srtt + 0.125 * rtt
            rto = s.srtt + 4 * s.rttvar
            s.rto = self._rto = self.rto_min if rto < self.rto_min else self.rto_max if rto > self.rto_max else rto
        for _ in range(count):
            queue.popleft()
        self._in_flight -= count
        self._base = ack
        self._nak_round = None
        self._timeouts = 0
        if self._in_flight:
            self._arm(now)
        else:
            self._rtx_at = self._armed_at = None
        return True

    def _on_nak(self, ack: int, now: float) -> None:
        self.stats.naks_received += 1
        if self._on_ack(ack, now) and self._in_flight and not self._same_round(ack, now):
            self._nak_round = (ack, now)
            self._retransmit()
            self._rtx_at = now + self.stats.rto

    def _same_round(self, ack: int, now: float) -> bool:
        """A NAK(n) within `rto_min` of the round a NAK(n) started (the line duplicated it,
        or the receiver NAKed a gap twice) starts no second one; a later one (a host
        soliciting the frame a noisy line keeps damaging) starts the next try at once."""
        return self._nak_round is not None and self._nak_round[0] == ack and now - self._nak_round[1] < self.rto_min

    # ---- receiving ----
    def _on_data(self, frame: Frame, delivered: list[Frame]) -> None:
        if not self._open:
            self._request_due = self.role == "table"  # the host may not know we lost the session
            return
        self._heard = True
        ahead = (frame[0] - self._rx_next) % SEQ_MOD
        if ahead == 0:
            self._rx_next = (self._rx_next + 1) % SEQ_MOD
            self._nak_sent = False
            self._ack_due = True
            delivered.append(frame)
        elif ahead > MAX_WINDOW:
            self.stats.duplicates += 1
            self._ack_due = True  # our ack was lost: the sender is still waiting for it
        elif not self._nak_sent and self._nak_at is None:
            self._nak_at = self._rx_next

    def _answer(self) -> None:
        """One acknowledgement per received chunk, however many frames it held."""
        if self._nak_at == self._rx_next:
            self._nak_sent = True
            self.stats.naks_sent += 1
            self._write(_NAKS[self._rx_next])
        elif self._ack_due:
            self._write(_ACKS[self._rx_next])
        if self._request_due:
            self._control(RESET_REQUEST, 0)
        self._ack_due = self._request_due = False
        self._nak_at = None

    def _revive(self, now: float) -> None:
        """The peer talks again after we gave up on it: resend what it has not acknowledged."""
        self.lost = False
        self._disarm()
        if self._in_flight:
            self._retransmit()
            self._arm(now)

    def _on_control(self, frame: Frame, now: float, delivered: list[Frame]) -> None:
        seq, kind, payload = frame
        expected_size = RESET_PAYLOAD.size if kind in (RESET, RESET_ACK) else 0
        if kind not in CONTROL_NAMES or len(payload) != expected_size or kind in _NOT_FOR[self.role]:
            delivered.append(frame)  # the layer above reports it
        elif kind == ACK:
            if self._open:
                self._heard = True
                self._on_ack(seq, now)
        elif kind == NAK:
            if self._open:
                self._heard = True
                self._on_nak(seq, now)
        elif kind == RESET:
            self._on_reset(seq, *RESET_PAYLOAD.unpack(payload), now)
        elif kind == RESET_ACK:
            peer_epoch, number = RESET_PAYLOAD.unpack(payload)
            if number == self._awaiting:
                self._start_session(peer_epoch, seq, now)
        elif self._open:  # RESET_REQUEST (to the host): the table has no session
            self._begin_reset()

    # ---- sessions ----
    def _begin_reset(self) -> None:
        self._open = False
        self.lost = False
        self._reset_number = (self._reset_number + 1) % 0x10000
        self._reset_due = True
        self._disarm()
        self.stats.rto = self._rto  # a new connection starts without the old backoff

    def _send_reset(self, now: float) -> None:
        self._awaiting = self._reset_number
        self._control(RESET, self._rx_next, RESET_PAYLOAD.pack(self.epoch, self._reset_number))
        if self._rtx_at is None:
            self._arm(now)

    def _on_reset(self, peer_rx_next: int, peer_epoch: int, number: int, now: float) -> None:
        # Answer first, so that the peer is open when our retransmissions reach it.
        self._control(RESET_ACK, self._rx_next, RESET_PAYLOAD.pack(self.epoch, number))
        if (peer_epoch, number) != self._last_reset:  # a repeated RESET only gets its answer again
            self._last_reset = (peer_epoch, number)
            self._start_session(peer_epoch, peer_rx_next, now)

    def _start_session(self, peer_epoch: int, peer_rx_next: int, now: float) -> None:
        resumed = peer_epoch == self._peer_epoch and (peer_rx_next - self._base) % SEQ_MOD <= self._in_flight
        dropped: list[tuple[int, bytes]] = []
        self._disarm()
        if resumed:
            for item in islice(self._queue, self._in_flight):
                item.retransmitted = True  # their acks may come from either session: no RTT sample
            queued = len(self._queue)
            self._on_ack(peer_rx_next, now)
            self._abandon(queued - len(self._queue))
            self._retransmit()
        else:
            self._abandon(0)  # the new peer has none of them
            dropped = [(item.msg_id, item.payload) for item in self._queue if item.bound]
            self._queue = deque(item for item in self._queue if not item.bound)
            self._in_flight = 0
            self._base = self._next_seq = peer_rx_next
            self.stats.dropped += len(dropped)
        for item in self._queue:
            item.bound = True
        if self._in_flight:
            self._arm(now)
        self._peer_epoch = peer_epoch
        self._open, self.lost, self._reset_due, self._awaiting = True, False, False, None
        self._nak_sent, self._nak_round = False, None
        self.stats.sessions += 1
        if self.on_session:
            self.on_session(SessionStart(peer_epoch, resumed, dropped))

    def _abandon(self, received: int) -> None:
        """Drop the abandoned messages the peer has not received (`received` of them it had)."""
        unsent = max(self._abandoned - received, 0)
        self._abandoned = 0
        for _ in range(unsent):
            self._queue.popleft()
        if unsent:
            self._in_flight = max(self._in_flight - unsent, 0)
            self._next_seq = (self._base + self._in_flight) % SEQ_MOD
