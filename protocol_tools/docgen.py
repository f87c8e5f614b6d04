"""Generated parts of PROTOCOL.md: `python -m protocol_tools.docgen` rewrites them.

The message tables and the code table come from catalog.py and codes.py, and the worked
examples are recorded from the real host facade and simulated table (recorder.py), so the
document cannot drift from the code.
Each part sits between `<!-- generated: NAME -->` and `<!-- end: NAME -->`.
"""
from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import firmware_protocol
from firmware_protocol import catalog, codes
from firmware_protocol.catalog import BY_ID, Message, encode_message
from firmware_protocol.frame import encode_frame
from firmware_protocol.profile import load_profile
from firmware_protocol.vectors import EXAMPLES
from firmware_protocol.virtual_time import VirtualTimeLoop
from mjtable_config import CONFIG_DIR
from sim.table import SimulatedTable
from sim.walls import Position, Walls  # the table's own geometry, so the figures are its

from controller.table import facade  # the host's figures, so the document cannot drift
from controller.game.settings import NOMINAL_DURATIONS, Settings

from .recorder import record

PATH = Path(firmware_protocol.__file__).with_name("PROTOCOL.md")

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


# Where each enumeration of the catalog (and codes.py) is used on the wire. The test suite
# checks that every enumeration the two modules define is here.
_NOT_ENUMERATIONS = {"TYPES", "COMMANDS", "COMMANDS_1_1", "REPLIES", "EVENTS"}


def defined_enumerations() -> dict[str, tuple[str, ...]]:
    """Every enumeration catalog.py and codes.py define: upper-case tuples of names."""
    found = {}
    for module in (catalog, codes):
        for name, value in vars(module).items():
            if (name.isupper() and name not in _NOT_ENUMERATIONS and isinstance(value, tuple) and value
                    and all(isinstance(v, str) for v in value)):
                found[name] = value
    return found


def enumerations() -> str:
    """The catalog's enumerations, each with the fields that carry it."""
    rows = ["| field | values (index: name) |", "|---|---|"]
    for what, names in catalog.ENUMERATIONS.items():
        fields = ", ".join(f"`{s.name}.{f.name}{'[i]' if f.type.endswith('[]') else ''}`"
                           for s, f in catalog.enumerated_fields() if f.values is names)
        rows.append(f"| {what} ({fields}) | {', '.join(f'{i}: {n}' for i, n in enumerate(names))} |")
    return "\n".join(rows) + "\n"


# What each seat button means (catalog.BUTTONS), and what the reference host does with it.
BUTTON_MEANINGS = {
    "start": ("start: the players are seated and want the game to begin", "passed to API clients only"),
    "dice": ("roll the dice", "passed to API clients only"),
    "hand_end": ("the hand is over", "passed to API clients only"),
    "riichi": ("the player at this seat declares riichi", "declares riichi for the seat while a hand is "
               "played"),
    "ok": ("acknowledge: the operator has seen to what the displays show", "retries the step that faulted, "
           "when a fault waits for the operator"),
    "pause": ("stop the table now", "pauses the game: `stop`, until `mjtable resume`"),
}


def buttons() -> str:
    rows = ["| button | means | the reference host |", "|---|---|---|"]
    rows += [f"| {i}: `{name}` | {BUTTON_MEANINGS[name][0]} | {BUTTON_MEANINGS[name][1]} |"
             for i, name in enumerate(catalog.BUTTONS)]
    return "\n".join(rows) + "\n"


def subsystems() -> str:
    """Each long operation's subsystem and completion event, from the catalog."""
    fields = {spec.name: spec.fields for spec in BY_ID.values()}
    rows = ["| command | subsystem | completion event |", "|---|---|---|"]
    for command, done in catalog.COMPLETIONS.items():
        args = ", ".join(f.name for f in fields[done])
        rows.append(f"| {command} | {catalog.SUBSYSTEM_OF.get(command, 'the one named')} | `{done}{f'({args})' if args else ''}` |")
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------- argument ranges

@dataclass(frozen=True)
class Range:
    """The values of one command field the table accepts; anything else is BAD_ARGUMENT.

    `high` is a number or the name of what bounds it (`dice`: identity.dice; `wall`: the
    stacks of the named seat's wall; `longest`: the longest wall); `also`: further values.
    """

    command: str
    field: str
    low: int
    high: int | str
    also: tuple[int, ...] = ()
    seat_field: str = ""  # for high == "wall": the field naming the wall's seat


_BOUNDS = {"dice": "`identity.dice`", "wall": "the stacks in the wall of seat `{seat}`",
           "longest": "the stacks in the longest wall"}

ARGUMENT_RANGES = (
    Range("roll_dice", "count", 1, "dice"),
    Range("separate_dead_wall", "breaker", 0, 3),
    Range("separate_dead_wall", "position", 1, "wall", seat_field="breaker"),
    Range("separate_dead_wall", "length", 1, "longest"),
    Range("flip_dora", "seat", 0, 3),
    Range("flip_dora", "stack", 1, "wall", seat_field="seat"),
    Range("set_wind_marker", "wind", 0, 3),
    Range("set_wind_marker", "seat", 0, 3),
    Range("show_scores", "mode", 0, len(catalog.DISPLAY_MODES) - 1),
    Range("show_scores", "dealer", 0, 3),
    Range("show_round", "wind", 0, 3),
    Range("show_round", "hand", 1, 4),
    Range("set_dealer_lamp", "seat", 0, 3, also=(0xFF,)),
    Range("show_error", "seats", 0, 15),
    Range("show_text", "seats", 0, 15),
)


def argument_ranges() -> str:
    rows = ["| command | field | accepted |", "|---|---|---|"]
    for r in ARGUMENT_RANGES:
        high = r.high if isinstance(r.high, int) else _BOUNDS[r.high].format(seat=r.seat_field)
        also = "".join(f" or {v}" for v in r.also)
        rows.append(f"| `{r.command}` | `{r.field}` | {r.low} to {high}{also} |")
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------- geometry and deadlines

GEOMETRY_EXAMPLE = {"stacks": (17, 17, 17, 17), "breaker": 2, "position": 3, "length": 7}


def geometry() -> str:
    """Walks and a dead wall, computed by the simulator's walls (sim/walls.py)."""
    g = GEOMETRY_EXAMPLE
    walls = Walls(["x"] * (2 * sum(g["stacks"])), g["stacks"])
    last = g["stacks"][0]
    dead = walls.dead_wall(g["breaker"], g["position"], g["length"])
    rows = ["| from | clockwise (drawing) | counter-clockwise (toward the dead wall) |", "|---|---|---|"]
    for at in (Position(0, 1), Position(0, last), Position(1, 1), Position(3, last)):
        rows.append(f"| {_pos(at)} | {_pos(walls.clockwise(at))} | {_pos(walls.counter_clockwise(at))} |")
    return ("\n".join(rows) + "\n\n"
            f"With walls of {list(g['stacks'])} stacks, `separate_dead_wall(breaker={g['breaker']}, "
            f"position={g['position']}, length={g['length']})` sets apart the stacks "
            f"{', '.join(_pos(p) for p in dead)} (nearest the break first); the live wall starts at "
            f"{_pos(walls.clockwise(Position(g['breaker'], g['position'])))}.\n")


def _pos(p) -> str:
    return f"[{p.seat}, {p.stack}]"


def deadlines() -> str:
    """The host's limits (controller/) and the simulated tables' own (config/tables/)."""
    margin = Settings().operation_margin
    ops = ", ".join(f"{name} {_s(seconds * margin)}" for name, seconds in NOMINAL_DURATIONS.items()
                    if name != "shuffle")
    limits = sorted({load_profile(p).timings.build_limit for p in (CONFIG_DIR / "tables").glob("*.yaml")})
    rows = [
        "| limit | enforced by | duration | then |", "|---|---|---|---|",
        f"| a command's reply | host | overdue after {_s(facade.REPLY_FLOOR)} + {facade.REPLY_RTOS} × RTO, "
        f"then a NAK every {_s(facade.SOLICIT_EVERY)}; given up after {_s(facade.CLEAN_LINE_PATIENCE)} on a clean "
        f"line, {_s(facade.REPLY_PATIENCE)} on a line damaging frames, {_s(facade.POOR_LINE_PATIENCE)} on a poor "
        "one | OPERATION_TIMEOUT (host-side), or the "
        "link is lost if nothing at all came |",
        f"| a long operation's completion | host | its nominal duration × {margin:g} (`operation_margin`): "
        f"by default {ops} | `get_status`; still running: `stop`; OPERATION_TIMEOUT (host-side) |",
        f"| a shuffle's `shuffle_done` | host | the profile's build limit × {margin:g}: by default "
        f"{_s(NOMINAL_DURATIONS['shuffle'])} × {margin:g} = {_s(NOMINAL_DURATIONS['shuffle'] * margin)} "
        "| as above, BUILD_TIMEOUT (host-side) |",
        f"| shuffle and stack | table | its build limit ({' / '.join(_s(v) for v in limits)} in the shipped "
        "profiles) | `fault` BUILD_TIMEOUT |",
        "| any other mechanism | table | the maker's own limit for it | `fault` OPERATION_TIMEOUT |",
        "| the host's silence | table | `identity.heartbeat_timeout_ms` after the last command | `fault` WATCHDOG |",
    ]
    return "\n".join(rows) + "\n"


def trace() -> str:
    """A few records of a real trace: the simulated table, fed commands directly."""
    loop = VirtualTimeLoop()
    try:
        table = SimulatedTable(seed=7, loop=loop)
        table.firmware.bind(lambda msg: None)
        for name, args in (("identify", {"protocol_version": catalog.PROTOCOL_VERSION}),
                           ("flip_dora", {"seat": 2, "stack": 5}), ("roll_dice", {"count": 2})):
            table.firmware.on_message(Message(name, args))
            loop.run_until_complete(asyncio.sleep(0.5))
        loop.run_until_complete(asyncio.sleep(2))
        records = [r.as_dict() for r in table.trace.records if r.name not in ("identify", "identity")]
    finally:
        loop.close()
    return "```\n" + "\n".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in records) + "\n```\n"


def _s(seconds: float) -> str:
    return f"{seconds:g} s" if seconds >= 1 else f"{seconds * 1000:g} ms"


# ---------------------------------------------------------------- worked examples

def examples() -> str:
    """Recorded from the real host facade and the simulated table (recorder.py)."""
    return "\n".join(f"#### {title}\n\n{block}" for title, block in record())


def _spaced(data: bytes) -> str:
    return data.hex(" ")


def _args(args: dict[str, Any]) -> str:
    return "(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"


# ---------------------------------------------------------------- the file

SECTIONS: dict[str, Callable[[], str]] = {
    "messages": messages, "codes": code_table, "enumerations": enumerations, "buttons": buttons,
    "subsystems": subsystems, "ranges": argument_ranges, "geometry": geometry, "deadlines": deadlines, "trace": trace, "examples": examples,
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
