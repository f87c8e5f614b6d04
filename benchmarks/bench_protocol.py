"""Protocol CPU cost (targets: the whole link stack <= 10 µs per 7-byte command and <= 4x the
same work without the links' state: the codec, the catalog and the ACK frame). The ratio
to the bare frame codec is printed beside it, named for what it leaves out.

CPU time (`time.process_time`), best of several rounds, the codec's and the stack's rounds
taken in turn so that other processes on the machine disturb both figures alike.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from firmware_protocol.catalog import Message, encode_message
from firmware_protocol.frame import MAX_PAYLOAD, FrameDecoder, encode_frame
from firmware_protocol.link import Link
from firmware_protocol.messages import MessageLink

from benchmarks.bench_system import Figures

BAUD = 1_000_000
BYTES_PER_SECOND = BAUD / 10  # 8N1: ten bit times per byte
ROUNDS = 9
STACK_TARGET_US = 10.0  # per 7-byte command
STACK_TARGET_RATIO = 4.0  # the stack against the bare codec

COMMAND = Message("roll_dice", {"count": 2})
MAX_SIZE = Message("show_text", {"seats": 0, "text": "E" * (MAX_PAYLOAD - 2)})


def cpu_us(steps: list[tuple[Callable[[], None], int]]) -> list[float]:
    """Best CPU microseconds per call of each (step, iterations) over ROUNDS rounds."""
    best = [float("inf")] * len(steps)
    for _ in range(ROUNDS):
        for i, (step, iterations) in enumerate(steps):
            start = time.process_time()
            for _ in range(iterations):
                step()
            best[i] = min(best[i], (time.process_time() - start) / iterations * 1e6)
    return best


def codec_step(msg: Message) -> Callable[[], None]:
    """Encode one frame and feed it to a decoder: one read per frame, the worst case."""
    msg_id, payload = encode_message(msg)
    decoder = FrameDecoder()
    return lambda: decoder.feed(encode_frame(7, msg_id, payload))


def like_for_like_step(msg: Message) -> Callable[[], None]:
    """What the stack does, without the links' state: the catalog encode and decode of the
    message, its data frame encoded and decoded, and an ACK frame encoded and decoded back."""
    from firmware_protocol.catalog import decode_message
    from firmware_protocol.link import ACK
    decoder, back = FrameDecoder(), FrameDecoder()

    def step() -> None:
        for frame in decoder.feed(encode_frame(7, *encode_message(msg))):
            decode_message(frame.msg_id, frame.payload)
        back.feed(encode_frame(7, ACK, b""))
    return step


def stack_step(msg: Message) -> Callable[[], None]:
    """One message through both links as an endpoint drives them: the catalog above each
    link, frames and sequence numbers, the data frame and its ack back."""
    host, table = Link("host", epoch=1), Link("table", epoch=2)
    host_messages, table_messages = MessageLink(host), MessageLink(table)
    host.poll(0.0)  # the reset handshake
    table.receive(host.take_output(), 0.0)
    host.receive(table.take_output(), 0.0)
    clock = [0.0]

    def step() -> None:
        now = clock[0] = clock[0] + 1e-4
        host_messages.send(msg)
        host.poll(now)
        table_messages.receive(host.take_output(), now)
        host_messages.receive(table.take_output(), now)
    return step


def main() -> None:
    figures = Figures("protocol: CPU per frame, and share of one core at 1 Mbaud (8N1, line saturated)")
    for label, msg in (("roll_dice", COMMAND), ("max-size show_text", MAX_SIZE)):
        size = len(encode_frame(0, *encode_message(msg)))
        rate = BYTES_PER_SECOND / size
        codec, same, stack = cpu_us([(codec_step(msg), 20_000), (like_for_like_step(msg), 8_000),
                                     (stack_step(msg), 4_000)])
        for what, us in (("bare codec: frame encode+decode", codec),
                         ("codec + catalog + ACK frame", same), ("link stack: both links, data + ack", stack)):
            figures.add(f"{what}, {label} ({size} B)", f"{us:.2f} µs, {rate * us / 1e4:.1f} % of a core")
        command = msg is COMMAND
        figures.add(f"  link stack / (codec + catalog + ACK), {label}", f"{stack / same:.1f}×",
                    f"≤ {STACK_TARGET_RATIO:.0f}×" if command else "", stack / same <= STACK_TARGET_RATIO)
        figures.add(f"  link stack / bare codec, {label}", f"{stack / codec:.1f}×")
        if command:
            figures.add("  link stack per 7-byte command", f"{stack:.2f} µs", f"≤ {STACK_TARGET_US:.0f} µs",
                        stack <= STACK_TARGET_US)
    figures.print()


if __name__ == "__main__":
    main()
