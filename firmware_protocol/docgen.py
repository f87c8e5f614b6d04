"""Generated parts of PROTOCOL.md: `python -m firmware_protocol.docgen` rewrites them.

The message tables and the code table come from catalog.py and codes.py, and the worked
examples are recorded from the real host facade and simulated table (recorder.py), so the
document cannot drift from the code.
Each part sits between `<!-- generated: NAME -->` and `<!-- end: NAME -->`.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import catalog, codes
from .catalog import BY_ID, Message, encode_message
from .frame import encode_frame
from .vectors import EXAMPLES

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
    }
    rows = ["| field | values (index: name) |", "|---|---|"]
    rows += [f"| {what} | {', '.join(f'{i}: {n}' for i, n in enumerate(names))} |" for what, names in named.items()]
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------- worked examples

def examples() -> str:
    """Recorded from the real host facade and the simulated table (recorder.py)."""
    from .recorder import record  # imports the host and the simulator: only when writing examples
    return "\n".join(f"#### {title}\n\n{block}" for title, block in record())


def _spaced(data: bytes) -> str:
    return data.hex(" ")


def _args(args: dict[str, Any]) -> str:
    return "(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"


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
