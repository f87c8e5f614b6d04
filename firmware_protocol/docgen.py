"""Generated parts of PROTOCOL.md: `python -m firmware_protocol.docgen` rewrites them.

The message tables and the code table come from catalog.py and codes.py, and the worked
examples are recorded from two real `Link`s, so the document cannot drift from the code.
Each part sits between `<!-- generated: NAME -->` and `<!-- end: NAME -->`.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import catalog, codes
from .catalog import BY_ID, PROTOCOL_VERSION, Message, encode_message
from .frame import FrameDecoder, encode_frame
from .link import Link
from .vectors import EXAMPLES, meaning

PATH = Path(__file__).with_name("PROTOCOL.md")

_SIZES = {"u8": "1", "u16": "2", "u32": "4", "i32": "4", "bool": "1",
          "u8[]": "1 + n", "i32[]": "1 + 4n", "str": "1 + n"}
_KIND_TITLES = {"command": "Commands, host → table", "reply": "Replies, table → host",
                "event": "Events, table → host"}


# ---------------------------------------------------------------- messages and codes

def messages() -> str:
    out = []
    for kind, title in _KIND_TITLES.items():
        out.append(f"### {title}\n")
        for spec in (s for s in BY_ID.values() if s.kind == kind):
            out.append(_message(spec))
    return "\n".join(out)


def _message(spec: catalog.Spec) -> str:
    example = encode_frame(0, *encode_message(Message(spec.name, EXAMPLES[spec.name])))
    lines = [f"#### `0x{spec.id:02X}` {spec.name}\n"]
    if spec.doc:
        lines.append(spec.doc + "\n")
    if spec.fields:
        lines += ["| field | type | bytes | meaning |", "|---|---|---|---|"]
        lines += [f"| `{f.name}` | {f.type} | {_SIZES[f.type]} | {f.doc} |" for f in spec.fields]
        lines.append("")
    else:
        lines.append("No fields: the payload is empty.\n")
    lines.append(f"Example (seq 0): `{_spaced(example)}` = {_args(EXAMPLES[spec.name])}\n")
    return "\n".join(lines)


def code_table() -> str:
    """From codes.py, comments included: they are the codes' documentation."""
    source = Path(codes.__file__).read_text()
    notes = dict(re.findall(r"^\s+([A-Z_]+) = \d+\s+#\s*(.*)$", source, re.M))
    rows = ["| code | name | meaning |", "|---|---|---|"]
    rows += [f"| {c.value} | `{c.name}` | {notes.get(c.name, '')} |" for c in codes.Code]
    return "\n".join(rows) + "\n"


def enumerations() -> str:
    named = {
        "subsystem (`fault.subsystem`)": codes.SUBSYSTEMS,
        "sensor (`fault.sensor`)": codes.SENSORS,
        "set location (`status.sets[i]`)": catalog.SET_LOCATIONS,
        "operation (`status.operation`)": catalog.OPERATIONS,
        "button (`button.name`)": catalog.BUTTONS,
        "display mode (`show_scores.mode`)": catalog.DISPLAY_MODES,
        "wind marker (`identity.wind_marker`)": catalog.WIND_MARKER_KINDS,
        "feature bit (`identity_1_1.features`, 1.1)": catalog.FEATURES,
        "test subsystem (`test_subsystem.subsystem`, 1.1)": catalog.TEST_SUBSYSTEMS,
    }
    rows = ["| field | values (index: name) |", "|---|---|"]
    rows += [f"| {what} | {', '.join(f'{i}: {n}' for i, n in enumerate(names))} |" for what, names in named.items()]
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------- worked examples

class _Recorder:
    """Host and table links on a hand-carried line; every frame written is logged."""

    def __init__(self) -> None:
        self.host = Link("host", epoch=0x00C0FFEE)
        self.table = Link("table", epoch=0x1A2B3C4D)
        self.now = 0.0
        self.lines: list[str] = []

    def carry(self, from_host: bool, damage: Callable[[int, bytes], bytes | None] = lambda i, f: f) -> list:
        """Move what one side has written to the other. `damage(i, frame)` may alter or lose (None) frame i."""
        sender, receiver = (self.host, self.table) if from_host else (self.table, self.host)
        sender.poll(self.now)
        line = bytearray()
        for i, frame in enumerate(_frames(sender.take_output())):
            arrived = damage(i, frame)
            if arrived is None:
                self.log(from_host, frame, _describe(frame) + "  ← lost on the line")
            else:
                self.log(from_host, arrived, _describe(arrived) if arrived == frame else "damaged: the CRC fails")
                line += arrived
        self.now += 0.002
        return receiver.receive(bytes(line), self.now)  # one read: its frames share one ACK

    def log(self, from_host: bool, frame: bytes, meaning: str) -> None:
        arrow = "host → table" if from_host else "table → host"
        head = f"{self.now * 1000:6.0f} ms  {arrow}  "
        hex_ = _spaced(frame)
        if len(hex_) > 40:  # long frames: the meaning goes under the bytes
            self.lines += [head + hex_, " " * len(head) + "  = " + meaning]
        else:
            self.lines.append(f"{head}{hex_:<40}  {meaning}")

    def wait_for_timer(self, link: Link) -> None:
        self.now = link.next_deadline()
        self.note("the retransmission timer expires")

    def note(self, text: str) -> None:
        self.lines.append(f"{self.now * 1000:6.0f} ms  ({text})")

    def block(self) -> str:
        text = "```\n" + "\n".join(self.lines) + "\n```\n"
        self.lines = []
        return text


def _frames(data: bytes) -> Iterable[bytes]:
    return [encode_frame(*f) for f in FrameDecoder().feed(data)]


def _spaced(data: bytes) -> str:
    return data.hex(" ")


def _args(args: dict[str, Any]) -> str:
    return "(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"


def _describe(frame: bytes) -> str:
    seq, msg_id, payload = frame[2], frame[3], frame[4:-2]
    m = meaning(msg_id, payload)
    if "control" in m:
        extra = f" epoch=0x{m['epoch']:08x} reset#{m['reset_number']}" if "epoch" in m else ""
        return f"{m['control'].upper()} next={seq}{extra}" if m["control"] != "reset_request" else "RESET_REQUEST"
    return f"seq {seq}: {m['message']}{_args(m['args'])}"


def examples() -> str:
    r = _Recorder()
    parts = ["#### Session start and identify\n"]
    r.carry(from_host=True)                  # RESET
    r.carry(from_host=False)                 # RESET_ACK
    r.host.send(Message("identify", {"protocol_version": PROTOCOL_VERSION}))
    r.carry(from_host=True)
    r.table.send(Message("identity", EXAMPLES["identity"]))
    r.carry(from_host=False)
    r.carry(from_host=True)                  # the host's ACK
    parts.append(r.block())

    parts.append("#### A command, its reply, its completion event\n")
    r.host.send(Message("roll_dice", {"count": 2}))
    r.carry(from_host=True)
    r.table.send(Message("ok"))
    r.carry(from_host=False)
    r.carry(from_host=True)
    r.now += 1.5                             # the dice tumble
    r.table.send(Message("dice_rolled", {"values": [3, 5]}))
    r.carry(from_host=False)
    r.carry(from_host=True)
    parts.append(r.block())

    parts.append("#### A lost acknowledgement: the command still runs once\n")
    r.host.send(Message("shuffle"))
    r.carry(from_host=True)
    r.table.send(Message("ok"))
    r.carry(from_host=False, damage=lambda i, f: None if i == 0 else f)
    r.carry(from_host=True)
    r.wait_for_timer(r.host)
    r.carry(from_host=True)
    r.note("a duplicate: the table acknowledges it again and does not shuffle again")
    r.carry(from_host=False)
    parts.append(r.block())

    parts.append("#### A corrupted frame: NAK and go-back-N\n")
    r.host.send(Message("show_round", EXAMPLES["show_round"]))
    r.host.send(Message("set_dealer_lamp", {"seat": 1}))
    r.carry(from_host=True, damage=lambda i, f: f[:5] + bytes([f[5] ^ 0x10]) + f[6:] if i == 0 else f)
    r.carry(from_host=False)                 # NAK: resend from the missing frame
    r.carry(from_host=True)
    r.table.send(Message("ok"))
    r.table.send(Message("ok"))
    r.carry(from_host=False)
    r.carry(from_host=True)
    parts.append(r.block())

    parts.append("#### The table rebooted: it asks for a reset, the host starts a new session\n")
    r.table = Link("table", epoch=0x1A2B3C4E)
    r.table.send(Message("booted", {"boot_id": 0x1A2B3C4E}))
    r.host.send(Message("heartbeat"))
    r.carry(from_host=True)
    r.carry(from_host=False)                 # RESET_REQUEST
    r.carry(from_host=True)                  # RESET
    r.carry(from_host=False)
    r.note("a new table epoch: the host drops heartbeat seq 5 of the old session and tells its application")
    r.host.send(Message("identify", {"protocol_version": PROTOCOL_VERSION}))
    r.carry(from_host=True)
    parts.append(r.block())
    return "\n".join(parts)


# ---------------------------------------------------------------- the file

SECTIONS: dict[str, Callable[[], str]] = {
    "messages": messages, "codes": code_table, "enumerations": enumerations, "examples": examples,
}


def render(text: str) -> str:
    for name, make in SECTIONS.items():
        pattern = re.compile(rf"(<!-- generated: {name} -->\n).*?(<!-- end: {name} -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"PROTOCOL.md has no generated section {name!r}")
        text = pattern.sub(lambda m: m.group(1) + make() + m.group(2), text)
    return text


def main() -> None:
    PATH.write_text(render(PATH.read_text()))
    print(f"updated {PATH}")


if __name__ == "__main__":
    main()
