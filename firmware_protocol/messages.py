"""The catalog over the link: a side's messages in, the peer's messages out.

The link (link.py) moves frames and sequence numbers and never reads a payload; this
layer encodes what a side sends with the catalog and decodes what it receives, as a
framer sits under a transaction layer. It also keeps each message to its direction: a
host never sends a reply, and a reply arriving at the table is a protocol error; and it
keeps each frame to the peer's frame size: a message too long for it is shortened where
it is text (`show_text`, the end of its text cut at a character boundary) and refused
otherwise (PROTOCOL.md "Frames").
"""
from __future__ import annotations

from typing import Any

from .catalog import BY_ID, BY_NAME, HOST_TO_TABLE, TABLE_TO_HOST, EncodeError, Message, ProtocolError, \
    decode_message, encode_message
from .frame import OversizeFrame
from .link import FIRST_MESSAGE_ID, Link

Delivery = Message | ProtocolError


class MessageLink:
    """A Link carrying catalog messages; everything else (timers, output, stats) is the link's."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self._sends = HOST_TO_TABLE if link.role == "host" else TABLE_TO_HOST
        self._receives = frozenset(s.id for s in BY_ID.values() if s.direction != self._sends)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.link, name)

    def send(self, msg: Message) -> None:
        """Queue a message; raises EncodeError at once if it is malformed, goes the wrong
        way or does not fit the peer's frame size."""
        msg_id, payload = encode_message(msg)
        if msg_id in self._receives:
            raise EncodeError(f"the {self.link.role} cannot send {msg.name}")
        try:
            self.link.send(msg_id, payload)
        except OversizeFrame as exc:
            shortened = _shortened(msg, len(payload) - self.link.max_payload)
            if shortened is None:
                raise EncodeError(f"{msg.name}: {exc}") from None
            self.link.send(*encode_message(shortened))

    def receive(self, data: bytes, now: float) -> list[Delivery]:
        """Feed received bytes; return the messages they deliver, in order.

        A ProtocolError in the list stands for a frame whose payload could not be decoded:
        at a data frame's place it still consumed its sequence number (the table answers
        it with `rejected` PROTOCOL so the reply order holds).
        """
        deliveries: list[Delivery] = []
        for _, msg_id, payload in self.link.receive(data, now):
            delivery = decode_message(msg_id, payload) if msg_id in self._receives else _refused(msg_id, payload)
            if delivery.__class__ is ProtocolError:
                self.link.stats.protocol_errors += 1
            deliveries.append(delivery)
        return deliveries


def _refused(msg_id: int, payload: bytes) -> ProtocolError:
    """Why a frame the link delivered is no message for this side."""
    if msg_id < FIRST_MESSAGE_ID:
        return ProtocolError(msg_id, f"bad control frame 0x{msg_id:02x} with {len(payload)} bytes")
    if msg_id in BY_ID:
        return ProtocolError(msg_id, f"{BY_ID[msg_id].name} goes the other way")
    return ProtocolError(msg_id, f"unknown message id 0x{msg_id:02x}")


def _shortened(msg: Message, excess: int) -> Message | None:
    """`msg` with its text `excess` bytes shorter, or None if it has no text that long."""
    text = next((f.name for f in reversed(BY_NAME[msg.name].fields) if f.type == "str"), None)
    if text is None or len(msg[text].encode()) < excess:
        return None
    data = msg[text].encode()
    return Message(msg.name, {**msg.args, text: data[:len(data) - excess].decode(errors="ignore")})
