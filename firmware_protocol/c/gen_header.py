"""Write mjt_protocol.h, the C view of the message catalog: `python -m firmware_protocol.c.gen_header`.

The catalog (firmware_protocol/catalog.py) is the one source of ids, codes, enumerations
and field layouts; PROTOCOL.md and the simulator read it too, and the C core reads this
header. tests/firmware checks that the committed header is what this writes.
"""
from __future__ import annotations

import re
from pathlib import Path

from firmware_protocol.catalog import (CATALOG, ENUMERATIONS, FEATURES, NO_SEAT, PROTOCOL_MINOR, PROTOCOL_VERSION,
                                       SEAT_TESTS, TEST_SUBSYSTEMS, version_byte)
from firmware_protocol.codes import Code
from firmware_protocol.frame import CRC_INIT, HEADER_SIZE, MAX_FRAME, MAX_PAYLOAD, MIN_FRAME, OVERHEAD, SYNC
from firmware_protocol.link import ACK, FIRST_MESSAGE_ID, MAX_WINDOW, NAK, RESET, RESET_ACK, RESET_REQUEST, Link

PATH = Path(__file__).with_name("mjt_protocol.h")
_SIZES = {"u8": 1, "u16": 2, "u32": 4, "i32": 4, "bool": 1}
# One letter per field type, for the core's table-driven payload check (mjt_msg.c).
_LETTERS = {"u8": "B", "u16": "H", "u32": "I", "i32": "i", "bool": "?", "u8[]": "b", "i32[]": "l", "str": "s"}
_LINK = Link("table")  # the link's figures: RTO clamp, give-up time, frame gap


def _ident(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()


def _define(name: str, value: object, comment: str = "") -> str:
    line = f"#define {name:<44} {value}"
    return f"{line}  /* {comment} */" if comment else line


def _limits() -> list[str]:
    return [
        "/* ---- frames and link (PROTOCOL.md \"Frames\", \"Link layer\") ---- */",
        _define("MJT_PROTOCOL_MAJOR", PROTOCOL_VERSION),
        _define("MJT_PROTOCOL_MINOR", PROTOCOL_MINOR),
        _define("MJT_VERSION_1_0", f"0x{version_byte(PROTOCOL_VERSION, 0):02X}u", "identify byte of protocol 1.0"),
        _define("MJT_VERSION_1_1", f"0x{version_byte(PROTOCOL_VERSION, PROTOCOL_MINOR):02X}u",
                "major in the low nibble, minor in the high one"),
        _define("MJT_SYNC", f"0x{SYNC:02X}u"),
        _define("MJT_HEADER_SIZE", HEADER_SIZE, "sync, length, seq, msg id"),
        _define("MJT_OVERHEAD", OVERHEAD, "header and CRC"),
        _define("MJT_MAX_FRAME", MAX_FRAME),
        _define("MJT_MAX_PAYLOAD", MAX_PAYLOAD),
        _define("MJT_MIN_FRAME", MIN_FRAME, "smallest identity.frame_size"),
        _define("MJT_CRC_INIT", f"0x{CRC_INIT:04X}u", "CRC-16/CCITT-FALSE, poly 0x1021"),
        _define("MJT_FIRST_MESSAGE_ID", f"0x{FIRST_MESSAGE_ID:02X}u", "ids below are control frames"),
        _define("MJT_CTL_ACK", f"0x{ACK:02X}u"),
        _define("MJT_CTL_NAK", f"0x{NAK:02X}u"),
        _define("MJT_CTL_RESET", f"0x{RESET:02X}u"),
        _define("MJT_CTL_RESET_ACK", f"0x{RESET_ACK:02X}u"),
        _define("MJT_CTL_RESET_REQUEST", f"0x{RESET_REQUEST:02X}u"),
        _define("MJT_RESET_PAYLOAD", 6, "epoch u32, reset number u16"),
        _define("MJT_MAX_WINDOW", MAX_WINDOW),
        _define("MJT_RTO_INITIAL_MS", round(_LINK.stats.rto * 1000), "before any RTT sample"),
        _define("MJT_RTO_MIN_MS", round(_LINK.rto_min * 1000)),
        _define("MJT_RTO_MAX_MS", round(_LINK.rto_max * 1000)),
        _define("MJT_GIVE_UP_MS", round(_LINK.give_up * 1000), "nothing acknowledged this long: lost"),
        _define("MJT_MAX_RETRANSMITS", _LINK.max_retransmits, "unanswered rounds: lost"),
        _define("MJT_FRAME_GAP_MS", round(_LINK.frame_gap * 1000), "silence that abandons a partial frame"),
        _define("MJT_ACK_DEADLINE_MS", 10, "acknowledge a data frame within this"),
        _define("MJT_NO_SEAT", f"0x{NO_SEAT:02X}u", "set_dealer_lamp(255): off"),
        _define("MJT_SEATS", 4),
    ]


def _messages() -> list[str]:
    out = ["/* ---- message ids ---- */"]
    out += [_define(f"MJT_MSG_{s.name.upper()}", f"0x{s.id:02X}u", f"{s.kind}") for s in CATALOG]
    out += ["", "/* ---- field layouts: byte offsets up to the first variable-length field, and the",
            "   payload size of every message made of fixed-size fields only ---- */"]
    for s in CATALOG:
        offset: int | None = 0
        for f in s.fields:
            if offset is None:
                break
            out.append(_define(f"MJT_OFF_{s.name.upper()}_{f.name.upper()}", offset, f.type))
            offset = offset + _SIZES[f.type] if f.type in _SIZES else None
        if offset is not None:
            out.append(_define(f"MJT_SIZE_{s.name.upper()}", offset, "fixed payload size"))
        layout = "".join(_LETTERS[f.type] for f in s.fields)
        out.append(_define(f"MJT_LAYOUT_{s.name.upper()}", f'"{layout}"', "field types, B H I i ? b l s"))
    return out


def _codes() -> list[str]:
    out = ["/* ---- codes (PROTOCOL.md \"Codes\") ---- */"]
    return out + [_define(f"MJT_CODE_{c.name}", f"{int(c)}u") for c in Code]


def _enumerations() -> list[str]:
    out = ["/* ---- enumerations: a field's wire number is the index of its name ---- */"]
    for title, values in ENUMERATIONS.items():
        prefix = "MJT_" + _ident(title.replace("(1.1)", ""))
        out += [_define(f"{prefix}_{_ident(v)}", f"{i}u") for i, v in enumerate(values)]
        out.append(_define(f"{prefix}_COUNT", len(values)))
    out += [_define(f"MJT_FEATURE_MASK_{_ident(f)}", f"(1u << {i})") for i, f in enumerate(FEATURES)]
    mask = sum(1 << TEST_SUBSYSTEMS.index(t) for t in SEAT_TESTS)
    out.append(_define("MJT_SEAT_TESTS_MASK", f"0x{mask:02X}u", "bit i: test subsystem i is tested seat by seat"))
    return out


def render() -> str:
    body = [*_limits(), "", *_messages(), "", *_codes(), "", *_enumerations()]
    return "\n".join([
        "/* mjt_protocol.h: GENERATED from firmware_protocol/catalog.py by",
        " * `python -m firmware_protocol.c.gen_header`; do not edit (a test fails when it is stale). */",
        "#ifndef MJT_PROTOCOL_H", "#define MJT_PROTOCOL_H", "", *body, "", "#endif", ""])


def main() -> None:
    PATH.write_text(render())
    print(f"wrote {PATH}")


if __name__ == "__main__":
    main()
