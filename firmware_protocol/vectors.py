"""Golden test vectors: `python -m firmware_protocol.vectors` rewrites vectors.json.

Each vector is a byte stream (hex) and what a decoder must make of it, fed in one piece:
the frames out, each with its meaning, the decoder counters, and the bytes still waiting
for the rest of a frame. A firmware author runs the same file against a C decoder.
"""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .catalog import (BY_ID, BY_NAME, PROTOCOL_MINOR, PROTOCOL_VERSION, Message, ProtocolError, decode_message,
                      encode_message, version_byte)
from .frame import CRC_INIT, MAX_FRAME, MAX_PAYLOAD, SYNC, FrameDecoder, crc16, encode_frame
from .link import ACK, CONTROL_NAMES, FIRST_MESSAGE_ID, NAK, RESET, RESET_ACK, RESET_PAYLOAD, RESET_REQUEST

PATH = Path(__file__).with_name("vectors.json")

# One realistic instance of every message in the catalog.
EXAMPLES: dict[str, dict[str, Any]] = {
    "identify": {"protocol_version": PROTOCOL_VERSION},
    "heartbeat": {},
    "get_status": {},
    "configure": {"players": 4, "tiles": 136, "stacks": [17, 17, 17, 17]},
    "collect_tiles": {},
    "shuffle": {},
    "raise_walls": {},
    "roll_dice": {"count": 2},
    "separate_dead_wall": {"breaker": 2, "position": 7, "length": 7},
    "flip_dora": {"seat": 2, "stack": 5},
    "show_scores": {"scores": [25000, 33000, -1200, 23200], "mode": 0, "dealer": 1},
    "show_round": {"wind": 0, "hand": 3, "honba": 1, "riichi_sticks": 2},
    "set_wind_marker": {"wind": 1, "seat": 0},
    "set_dealer_lamp": {"seat": 1},
    "show_error": {"code": 201, "seats": 0},
    "stop": {},
    "resume": {},
    "show_text": {"seats": 0, "text": "dora: 3p"},
    "ok": {},
    "rejected": {"code": 104, "detail": "no stacked set"},
    "identity": {
        "protocol_version": PROTOCOL_VERSION, "firmware": "1.2.0", "model": "MJ-4", "boot_id": 0x1A2B3C4D,
        "tiles": 136, "stacks": [17, 17, 17, 17], "tile_sets": 2, "dice": 2, "dead_wall_separator": True,
        "dora_flipper": True, "seat_displays": True, "centre_display": True, "wind_marker": 2,
        "seat_buttons": True, "heartbeat_timeout_ms": 3000, "frame_size": MAX_FRAME, "receive_window": 4,
    },
    "status": {
        "boot_id": 0x1A2B3C4D, "operation": 2, "fault": 0, "stopped": False, "centre_open": False,
        "sets": [1, 3], "walls_up": True, "dead_wall_separated": True, "dora_flipped": 1, "wind": 0,
        "wind_seat": 0, "dealer_lamp": 1, "lid_open": False,
    },
    "tiles_collected": {"count": 136},
    "shuffle_done": {"count": 136},
    "walls_raised": {},
    "dice_rolled": {"values": [3, 5]},
    "dead_wall_separated": {},
    "dora_flipped": {"seat": 2, "stack": 5},
    "wind_marker_set": {"wind": 1, "seat": 0},
    "button": {"seat": 3, "name": 2},
    "fault": {"code": 201, "subsystem": 2, "sensor": 2, "expected": 136, "counted": 135},
    "booted": {"boot_id": 0x1A2B3C4E},
    # protocol 1.1
    "get_counters": {},
    "reset_service_counter": {},
    "enter_maintenance": {},
    "leave_maintenance": {},
    "test_subsystem": {"subsystem": 6, "seat": 2},
    "read_sensors": {},
    "read_sticks": {},
    "counters": {"shuffle_cycles": 18250, "lift_cycles": 18262, "motor_seconds": 730488, "cycles_since_service": 412,
                 "faults": [1, 0, 0, 3, 0, 1, 0, 0, 0, 0, 0], "jams": [0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]},
    "sensors": {"values": [0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0]},
    "sticks": {"totals": [25000, 33000, 18800, 23200], "wrong_slot": 0b0100},
    "subsystem_tested": {"subsystem": 1, "seat": 0, "result": 203, "sensor": 5},
}
EXAMPLES["identity_1_1"] = {**EXAMPLES["identity"], "protocol_version": version_byte(PROTOCOL_VERSION, PROTOCOL_MINOR),
                            "features": 0b111}


def message_frame(seq: int, name: str, args: dict[str, Any] | None = None) -> bytes:
    return encode_frame(seq, *encode_message(Message(name, EXAMPLES[name] if args is None else args)))


def meaning(msg_id: int, payload: bytes) -> dict[str, Any]:
    """What a frame says, as the link and the catalog read it."""
    if msg_id < FIRST_MESSAGE_ID:
        if msg_id not in CONTROL_NAMES:
            return {"error": f"reserved control id 0x{msg_id:02x}"}
        out: dict[str, Any] = {"control": CONTROL_NAMES[msg_id]}
        if msg_id in (RESET, RESET_ACK):
            out["epoch"], out["reset_number"] = RESET_PAYLOAD.unpack(payload)
        return out
    decoded = decode_message(msg_id, payload)
    if isinstance(decoded, ProtocolError):
        return {"error": decoded.reason}
    return {"message": decoded.name, "kind": BY_NAME[decoded.name].kind, "args": decoded.args}


def outcome(stream: bytes) -> dict[str, Any]:
    decoder = FrameDecoder()
    frames = decoder.feed(stream)
    return {
        "frames": [{"seq": f.seq, "msg_id": f.msg_id, "payload": f.payload.hex(), **meaning(f.msg_id, f.payload)}
                   for f in frames],
        "counters": asdict(decoder.stats),
        "pending_bytes": decoder.waiting,
    }


def _flip(frame: bytes, index: int, mask: int = 0xFF) -> bytes:
    damaged = bytearray(frame)
    damaged[index] ^= mask
    return bytes(damaged)


def streams() -> list[tuple[str, str, bytes]]:
    """(name, note, bytes) for every vector."""
    out = [(f"message {spec.name}", f"0x{spec.id:02x}, {spec.kind}", message_frame(seq, spec.name))
           for seq, spec in enumerate(BY_ID.values())]
    reset = RESET_PAYLOAD.pack(0x12345678, 1)
    out += [
        ("control ack", "ack: seq = next expected seq (all before it received)", encode_frame(5, ACK)),
        ("control nak", "nak: frame 7 missing, resend from it", encode_frame(7, NAK)),
        ("control reset", "host: my next expected seq 0x2a, epoch 0x12345678, reset 1",
         encode_frame(0x2A, RESET, reset)),
        ("control reset_ack", "table: my next expected seq 0x10, epoch 0x0badcafe, answering reset 1",
         encode_frame(0x10, RESET_ACK, RESET_PAYLOAD.pack(0x0BADCAFE, 1))),
        ("control reset_request", "table without a session asks the host to reset", encode_frame(0, RESET_REQUEST)),
        ("seq 255", "last sequence number before the wrap", message_frame(255, "heartbeat")),
        ("seq wrap to 0", "the frame after seq 255", message_frame(0, "heartbeat")),
        ("seq wrap, two frames", "255 then 0 in one stream",
         message_frame(255, "roll_dice") + message_frame(0, "shuffle")),
        ("payload of sync bytes", "0xa5 inside a frame needs no escaping",
         message_frame(SYNC, "show_scores", {"scores": [-0x5A5A5A5B] * 4, "mode": 0, "dealer": 0})),
        ("seq and payload equal to the sync byte", "seq 0xa5, count 0xa5",
         message_frame(SYNC, "roll_dice", {"count": SYNC})),
        ("maximum size frame", f"{MAX_PAYLOAD}-byte payload, {MAX_FRAME} bytes in all",
         message_frame(9, "show_text", {"seats": 0, "text": "E" * (MAX_PAYLOAD - 2)})),
        ("two frames back to back", "one read may hold several frames",
         message_frame(1, "ok") + message_frame(2, "walls_raised")),
    ]
    good = message_frame(3, "roll_dice")
    out += [
        ("invalid: bad crc", "last CRC byte damaged: dropped, counted", _flip(good, -1)),
        ("invalid: bad crc, then a good frame", "resync at the next sync byte",
         _flip(good, -2) + message_frame(4, "shuffle")),
        ("invalid: payload damaged", "a flipped payload bit fails the CRC", _flip(good, 4, 0x01)),
        ("invalid: bad length, shorter", "length 0 instead of 1: CRC fails, the rest is hunted through",
         _flip(good, 1, 0x01) + message_frame(4, "shuffle")),
        ("invalid: oversize length", f"length {MAX_PAYLOAD + 1} cannot be a frame",
         bytes([SYNC, MAX_PAYLOAD + 1, 0, 0x10]) + message_frame(4, "shuffle")),
        ("invalid: truncated, then a good frame",
         "the cut frame swallows bytes, fails its CRC, the good frame survives",
         good[:4] + message_frame(4, "shuffle")),
        ("invalid: truncated at the end",
         "the decoder waits for the rest (the link abandons it after a silent gap)",
         good[:5]),
        ("invalid: garbage before sync", "line noise before a frame", bytes.fromhex("00ff13377e") + good),
        ("invalid: sync bytes in garbage", "each false start costs one byte, the real frame is found",
         bytes([SYNC, SYNC, 0x30, SYNC]) + good + bytes(64)),
        ("invalid: garbage only", "no sync byte at all", bytes(range(16))),
        ("invalid: unknown message id", "a good frame the catalog cannot read: protocol error",
         encode_frame(3, 0x7E, b"\x01")),
        ("invalid: unknown control id", "ids 0x06-0x0f are reserved: protocol error", encode_frame(0, 0x0F)),
        ("invalid: payload too short", "roll_dice without its count", encode_frame(3, BY_NAME["roll_dice"].id)),
        ("invalid: trailing payload bytes", "roll_dice with two bytes",
         encode_frame(3, BY_NAME["roll_dice"].id, b"\x02\x00")),
        ("invalid: bool out of range", "status.stopped (payload byte 7) is 2; bools are 0 or 1",
         encode_frame(3, BY_NAME["status"].id, _flip(encode_message(Message("status", EXAMPLES["status"]))[1], 7, 2))),
        ("invalid: string past the end", "text count 9 with 2 bytes",
         encode_frame(3, BY_NAME["show_text"].id, b"\x00\x09hi")),
    ]
    return out


def build() -> dict[str, Any]:
    return {
        "about": "mjtable serial protocol golden vectors; see PROTOCOL.md. Feed each stream to a fresh "
                 "decoder in one piece and compare frames, counters and pending bytes.",
        "protocol_version": f"{PROTOCOL_VERSION}.{PROTOCOL_MINOR}",
        "version_byte": version_byte(PROTOCOL_VERSION, PROTOCOL_MINOR),  # identify's offer, 0x11
        "sync": SYNC,
        "max_frame": MAX_FRAME,
        "crc": {"name": "CRC-16/CCITT-FALSE", "poly": 0x1021, "init": CRC_INIT, "refin": False, "refout": False,
                "xorout": 0, "check_123456789": crc16(b"123456789"),
                "covers": "length, seq, msg id, payload; sent high byte first"},
        "vectors": [{"name": name, "note": note, "hex": data.hex(), **outcome(data)}
                    for name, note, data in streams()],
    }


def render() -> str:
    return json.dumps(build(), indent=1) + "\n"


def main() -> None:
    PATH.write_text(render())
    print(f"wrote {PATH} ({len(build()['vectors'])} vectors)")


if __name__ == "__main__":
    main()
