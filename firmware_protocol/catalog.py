"""The message catalog: every command, reply and event with its id, direction and fields.

A message on the wire is its one-byte id followed by its fields, in order, little-endian,
with no padding (see PROTOCOL.md). In Python a message is a :class:`Message`: a name from
the hardware vocabulary and a dict of plain values.

The catalog is also the one source of what the messages mean together: each command's
reply, each long operation's completion event and subsystem, and every enumeration with
the fields it names. The host's table facade, the simulator and PROTOCOL.md read them here.

Decoding never raises: an unknown id or a malformed payload comes back as a
:class:`ProtocolError`, which the link reports to the other side and its user.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

PROTOCOL_VERSION = 1

HOST_TO_TABLE = "command"
TABLE_TO_HOST = "table"  # replies and events

# Wire types. Lists and strings carry a one-byte count first, so every payload is
# bounded by the frame size and a small MCU can decode it with no dynamic memory.
_SCALARS = {"u8": "<B", "u16": "<H", "u32": "<I", "i32": "<i", "bool": "<?"}
_LISTS = {"u8[]": "<B", "i32[]": "<i"}
TYPES = (*_SCALARS, *_LISTS, "str")


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    doc: str = ""
    values: tuple[str, ...] = ()  # an enumerated field: the name of each wire number, from 0


@dataclass(frozen=True)
class Spec:
    id: int
    name: str
    direction: str
    kind: str  # "command", "reply" or "event"
    fields: tuple[Field, ...] = ()
    doc: str = ""
    reply: str | None = None       # a command's answer besides `rejected`
    completion: str | None = None  # a long operation's completion event
    subsystem: str | None = None   # what a long operation moves: one operation per subsystem at a time


@dataclass(frozen=True)
class Message:
    name: str
    args: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.args[key]


@dataclass(frozen=True)
class ProtocolError:
    """A payload the catalog could not decode; reported, never raised."""

    msg_id: int
    reason: str


def _f(name: str, type_: str, doc: str = "", values: tuple[str, ...] = ()) -> Field:
    return Field(name, type_, doc, values)


def _command(id_: int, name: str, fields: tuple[Field, ...] = (), doc: str = "", *, reply: str = "ok",
             completion: str | None = None, subsystem: str | None = None) -> Spec:
    return Spec(id_, name, HOST_TO_TABLE, "command", fields, doc, reply, completion, subsystem)


# The enumerations: a field's wire number is the index of its name. Append only: the
# numbers are the wire's.
SUBSYSTEMS = ("none", "centre", "shuffler", "lifts", "dice", "separator", "dora", "marker", "lid", "host_link")
SENSORS = ("none", "hopper", "shuffler_exit", "stacker", "lift_0", "lift_1", "lift_2", "lift_3", "separator",
           "dora_arm", "centre_plate")
SET_LOCATIONS = ("unknown", "on_table", "collected", "shuffling", "stacked", "raising")  # PROTOCOL.md "Tile sets"
BUTTONS = ("start", "dice", "hand_end", "riichi", "ok", "pause")
DISPLAY_MODES = ("score", "difference", "rank")
WIND_MARKER_KINDS = ("none", "lamp", "motorised")
OPERATIONS = (  # idle, then the long operations
    "idle", "collect_tiles", "shuffle", "raise_walls", "roll_dice",
    "separate_dead_wall", "flip_dora", "set_wind_marker",
)
NO_SEAT = 0xFF  # a seat field's "no seat": set_dealer_lamp(NO_SEAT) switches the lamp off
ENUMERATIONS: dict[str, tuple[str, ...]] = {
    "subsystem": SUBSYSTEMS, "sensor": SENSORS, "set location": SET_LOCATIONS, "operation": OPERATIONS,
    "button": BUTTONS, "display mode": DISPLAY_MODES, "wind marker": WIND_MARKER_KINDS,
}

_SPECS: tuple[Spec, ...] = (
    # --- commands, host -> table (0x10-0x3f) ---
    _command(0x10, "identify",
             (_f("protocol_version", "u8", "the host's PROTOCOL_VERSION; this payload never changes"),),
             "Start a session. Reply: identity, or rejected VERSION_MISMATCH.", reply="identity"),
    _command(0x11, "heartbeat", (), "Keep the watchdog fed. Reply: ok."),
    _command(0x12, "get_status", (), "Reply: status.", reply="status"),
    _command(0x13, "configure",
             (_f("players", "u8", "3 or 4"), _f("tiles", "u16", "tiles in a set; must be the table's"),
              _f("stacks", "u8[]", "stacks per side, seat 0 first")),
             "Select the tile set geometry for the next stacking. Reply: ok or rejected."),
    _command(0x14, "collect_tiles", (),
             "Open the centre, take the played tiles in, close. Ends with tiles_collected.",
             completion="tiles_collected", subsystem="centre"),
    _command(0x15, "shuffle", (),
             "Shuffle and stack the collected set inside. Ends with shuffle_done.",
             completion="shuffle_done", subsystem="shuffler"),
    _command(0x16, "raise_walls", (), "Raise the stacked set. Ends with walls_raised.",
             completion="walls_raised", subsystem="lifts"),
    _command(0x17, "roll_dice", (_f("count", "u8", "number of dice"),),
             "Ends with dice_rolled.", completion="dice_rolled", subsystem="dice"),
    _command(0x18, "separate_dead_wall",
             (_f("breaker", "u8", "seat"), _f("position", "u8", "break after this stack, counted from the right"),
              _f("length", "u8", "dead wall stacks")),
             "Ends with dead_wall_separated.", completion="dead_wall_separated", subsystem="separator"),
    _command(0x19, "flip_dora",
             (_f("seat", "u8", "wall owner"), _f("stack", "u8", "stack number, 1 = rightmost as seen by the owner")),
             "Turn the top tile of the stack face up. Ends with dora_flipped.",
             completion="dora_flipped", subsystem="dora"),
    _command(0x1A, "show_scores",
             (_f("scores", "i32[]", "per seat"), _f("mode", "u8", "0 score, 1 difference, 2 rank", DISPLAY_MODES),
              _f("dealer", "u8", "seat")),
             "Seat displays. Reply: ok."),
    _command(0x1B, "show_round",
             (_f("wind", "u8", "prevailing wind 0-3"), _f("hand", "u8", "1-4"), _f("honba", "u8", "counters"),
              _f("riichi_sticks", "u8", "sticks on the table")),
             "Centre display. Reply: ok."),
    _command(0x1C, "set_wind_marker",
             (_f("wind", "u8", "prevailing wind 0-3"), _f("seat", "u8", "the seat the marker faces")),
             "Ends with wind_marker_set.", completion="wind_marker_set", subsystem="marker"),
    _command(0x1D, "set_dealer_lamp", (_f("seat", "u8", "dealer seat; 255 = off"),), "Reply: ok."),
    _command(0x1E, "show_error",
             (_f("code", "u16", "shown as E<code>; 0 clears"), _f("seats", "u8", "bit mask, 0 = all")),
             "Reply: ok."),
    _command(0x1F, "stop", (), "Stop all motion now. Reply: ok."),
    _command(0x20, "resume", (), "Clear a stop or fault. Reply: ok or rejected."),
    _command(0x21, "show_text",
             (_f("seats", "u8", "bit mask, 0 = centre"), _f("text", "str", "UTF-8, empty clears")),
             "Free text on displays (waiting, dora position, final standings). Reply: ok."),
    # --- replies, table -> host (0x40-0x4f): exactly one per command, in command order ---
    Spec(0x40, "ok", TABLE_TO_HOST, "reply", (), "Command accepted (a long operation has started)."),
    Spec(0x41, "rejected", TABLE_TO_HOST, "reply",
         (_f("code", "u16", "1xx code (PROTOCOL 302 for an undecodable command)"),
          _f("detail", "str", "human-readable reason, for logs")),
         "Command refused; nothing was done."),
    Spec(0x42, "identity", TABLE_TO_HOST, "reply",
         (_f("protocol_version", "u8", "the table's PROTOCOL_VERSION"), _f("firmware", "str", "firmware version"),
          _f("model", "str", "table model"), _f("boot_id", "u32", "changes at every MCU reset"),
          _f("tiles", "u16", "tiles per set"), _f("stacks", "u8[]", "largest stacks per side, seat 0 first"),
          _f("tile_sets", "u8", "sets the table holds (2: one played while the other is shuffled)"),
          _f("dice", "u8", "number of dice"), _f("dead_wall_separator", "bool", "has a separator"),
          _f("dora_flipper", "bool", "has a dora flipper"), _f("seat_displays", "bool", "has seat displays"),
          _f("centre_display", "bool", "has a centre display"),
          _f("wind_marker", "u8", "0 none, 1 lamp, 2 motorised", WIND_MARKER_KINDS),
          _f("seat_buttons", "bool", "has seat buttons"),
          _f("heartbeat_timeout_ms", "u16", "watchdog timeout"), _f("frame_size", "u8", "largest frame, 64"),
          _f("receive_window", "u8", "frames the host may have unacknowledged")),
         "Capabilities."),
    Spec(0x43, "status", TABLE_TO_HOST, "reply",
         (_f("boot_id", "u32", "as in identity"), _f("operation", "u8", "index in OPERATIONS", OPERATIONS),
          _f("fault", "u16", "0 = none"), _f("stopped", "bool", "after stop or a fault, until resume"),
          _f("centre_open", "bool", "the centre plate is open"), _f("sets", "u8[]", "location per tile set", SET_LOCATIONS),
          _f("walls_up", "bool", "a set stands on the table"),
          _f("dead_wall_separated", "bool", "in the walls standing"),
          _f("dora_flipped", "u8", "indicators turned face up"), _f("wind", "u8", "wind marker's wind"),
          _f("wind_seat", "u8", "wind marker's seat"), _f("dealer_lamp", "u8", "seat, 255 = off"),
          _f("lid_open", "bool", "the lid is open")),
         "State for reconciliation after a reconnect."),
    # --- events, table -> host (0x50-0x7f) ---
    Spec(0x50, "tiles_collected", TABLE_TO_HOST, "event", (_f("count", "u16", "tiles counted into the hopper"),)),
    Spec(0x51, "shuffle_done", TABLE_TO_HOST, "event", (_f("count", "u16", "tiles stacked"),)),
    Spec(0x52, "walls_raised", TABLE_TO_HOST, "event", ()),
    Spec(0x53, "dice_rolled", TABLE_TO_HOST, "event", (_f("values", "u8[]", "1-6 per die"),)),
    Spec(0x54, "dead_wall_separated", TABLE_TO_HOST, "event", ()),
    Spec(0x55, "dora_flipped", TABLE_TO_HOST, "event",
         (_f("seat", "u8", "as commanded"), _f("stack", "u8", "as commanded"))),
    Spec(0x56, "wind_marker_set", TABLE_TO_HOST, "event",
         (_f("wind", "u8", "as commanded"), _f("seat", "u8", "as commanded"))),
    Spec(0x57, "button", TABLE_TO_HOST, "event",
         (_f("seat", "u8", "where it was pressed"), _f("name", "u8", "index in BUTTONS", BUTTONS))),
    Spec(0x58, "fault", TABLE_TO_HOST, "event",
         (_f("code", "u16", "2xx code"), _f("subsystem", "u8", "index in SUBSYSTEMS", SUBSYSTEMS),
          _f("sensor", "u8", "index in SENSORS", SENSORS), _f("expected", "u16", "TILE_COUNT: tiles expected"),
          _f("counted", "u16", "TILE_COUNT: tiles counted")),
         "Motion has stopped. Fields beyond code are 0 where they do not apply."),
    Spec(0x59, "booted", TABLE_TO_HOST, "event", (_f("boot_id", "u32", "the new boot id"),),
         "The MCU has (re)started; its volatile state is gone."),
)

# --- protocol 1.1 (PROTOCOL.md "Protocol 1.1"): maintenance and point sticks ----------
# A minor version adds messages and capability bits, never changes a 1.0 message: a 1.1
# host offers 1.1 in `identify` and falls back to 1 when a 1.0 table refuses the offer.
PROTOCOL_MINOR = 1
FEATURES = ("counters", "sensor_test", "stick_reader")  # bit i of identity_1_1.features
TEST_SUBSYSTEMS = ("centre", "lifts", "dice", "separator", "dora", "marker", "display", "buttons")
SEAT_TESTS = frozenset({"display", "buttons"})  # the subsystems tested seat by seat


def version_byte(major: int, minor: int) -> int:
    """`identify.protocol_version` and `identity_1_1.protocol_version`: the major version in
    the low nibble, the minor in the high one, so that protocol 1.0 is the byte 1."""
    return major | minor << 4


def split_version(byte: int) -> tuple[int, int]:
    return byte & 0x0F, byte >> 4


_SPECS_1_1: tuple[Spec, ...] = (
    _command(0x22, "get_counters", (), "The odometer. Reply: counters.", reply="counters"),
    _command(0x23, "reset_service_counter", (),
             "The table has been serviced: cycles_since_service starts again from 0. Reply: ok."),
    _command(0x24, "enter_maintenance", (), "Enter the sensor test mode; refused while an operation runs. Reply: ok."),
    _command(0x25, "leave_maintenance", (), "Back to game mode; refused while a test runs. Reply: ok."),
    _command(0x26, "test_subsystem",
             (_f("subsystem", "u8", "index in TEST_SUBSYSTEMS", TEST_SUBSYSTEMS),
              _f("seat", "u8", "display and buttons: the seat; else 0")),
             "Maintenance mode only: run one subsystem through its cycle. Ends with subsystem_tested.",
             completion="subsystem_tested"),
    _command(0x27, "read_sensors", (), "Maintenance mode only. Reply: sensors.", reply="sensors"),
    _command(0x28, "read_sticks", (), "The stick reader's trays. Reply: sticks.", reply="sticks"),
    Spec(0x44, "identity_1_1", TABLE_TO_HOST, "reply",
         (*next(s for s in _SPECS if s.name == "identity").fields,
          _f("features", "u8", "bit i: FEATURES[i] present", FEATURES)),
         "identify offering 1.1 or later, to a 1.1 table: identity with protocol_version the agreed "
         "version byte, and the 1.1 capability bits."),
    Spec(0x45, "counters", TABLE_TO_HOST, "reply",
         (_f("shuffle_cycles", "u32", "shuffles completed"), _f("lift_cycles", "u32", "wall raises completed"),
          _f("motor_seconds", "u32", "seconds the motors have run"),
          _f("cycles_since_service", "u32", "shuffles since reset_service_counter"),
          _f("faults", "u8[]", "faults per sensor (index in SENSORS), 255 = 255 or more"),
          _f("jams", "u8[]", "jams per sensor, likewise")),
         "Kept across resets and power cycles."),
    Spec(0x46, "sensors", TABLE_TO_HOST, "reply",
         (_f("values", "u8[]", "per sensor (index in SENSORS): 0 clear, 1 active"),),
         "What each sensor reads now."),
    Spec(0x47, "sticks", TABLE_TO_HOST, "reply",
         (_f("totals", "i32[]", "points in each seat's tray, seat 0 first"),
          _f("wrong_slot", "u8", "bit mask of the seats with a stick in a wrong slot")),
         "The stick reader's reading."),
    Spec(0x5A, "subsystem_tested", TABLE_TO_HOST, "event",
         (_f("subsystem", "u8", "as commanded"), _f("seat", "u8", "as commanded"),
          _f("result", "u16", "0 passed, else the 2xx code of what failed"),
          _f("sensor", "u8", "the sensor that failed (index in SENSORS), else 0", SENSORS))),
)
COMMANDS_1_1 = tuple(s.name for s in _SPECS_1_1 if s.kind == "command")
ENUMERATIONS.update({"feature bit (1.1)": FEATURES, "test subsystem (1.1)": TEST_SUBSYSTEMS})
CATALOG = (*_SPECS, *_SPECS_1_1)

BY_NAME: dict[str, Spec] = {s.name: s for s in CATALOG}
BY_ID: dict[int, Spec] = {s.id: s for s in CATALOG}
COMMANDS = tuple(s.name for s in CATALOG if s.kind == "command")
REPLIES = tuple(s.name for s in CATALOG if s.kind == "reply")
EVENTS = tuple(s.name for s in CATALOG if s.kind == "event")

# Each command's answer, and each long operation's completion event and subsystem, by command.
# A 1.1 table answers an identify that offers 1.1 with identity_1_1 (identity plus its feature bits).
REPLY_OF: dict[str, tuple[str, ...]] = {s.name: (s.reply, "identity_1_1") if s.name == "identify" else (s.reply,)
                                        for s in CATALOG if s.kind == "command"}
COMPLETIONS: dict[str, str] = {s.name: s.completion for s in CATALOG if s.completion}
SUBSYSTEM_OF: dict[str, str] = {s.name: s.subsystem for s in CATALOG if s.subsystem}


def enumerated_fields() -> list[tuple[Spec, Field]]:
    """Every field whose wire number names a value, in catalog order (for the docs)."""
    return [(s, f) for s in CATALOG for f in s.fields if f.values]


def value_name(values: tuple[str, ...], number: int) -> str:
    """The name of an enumerated wire number; one the catalog does not know stays visible."""
    return values[number] if 0 <= number < len(values) else f"#{number}"


class EncodeError(ValueError):
    """A message the sender built wrongly: a programming error, raised at once."""


def _scalars(fields: tuple[Field, ...]) -> tuple[struct.Struct, tuple[int, ...]]:
    """One struct for a run of scalar fields, and the offsets of its bools (a byte above 1 is malformed)."""
    offsets = [struct.calcsize("<" + "".join(_SCALARS[f.type][1:] for f in fields[:i])) for i in range(len(fields))]
    return (struct.Struct("<" + "".join(_SCALARS[f.type][1:] for f in fields)),
            tuple(at for at, f in zip(offsets, fields) if f.type == "bool"))


class _Fixed:
    """A message made only of scalars: one struct packs or unpacks it whole."""

    def __init__(self, spec: Spec) -> None:
        self.id, self.name = spec.id, spec.name
        self.names = tuple(f.name for f in spec.fields)
        self.count = len(self.names)
        # The field values in order: one value for one field, a tuple for several.
        self.values = itemgetter(*self.names) if self.names else (lambda args: ())
        layout, self.bools = _scalars(spec.fields)
        self.pack, self.unpack, self.size = layout.pack, layout.unpack, layout.size


_RUN, _LIST, _TEXT = range(3)


class _Layout:
    """A message with lists or text (a status, an identity, a text to show): its runs of
    scalars packed or unpacked by one struct each, each list in one call. Returns None
    where the field-by-field path must explain what is wrong."""

    def __init__(self, spec: Spec) -> None:
        self.id, self.name, self.count = spec.id, spec.name, len(spec.fields)
        # (_RUN, names, struct, bool offsets), (_LIST, name, item format, item size), (_TEXT, name, None, None)
        self.parts: list[tuple] = []
        run: list[Field] = []
        for f in (*spec.fields, None):
            if f is not None and f.type in _SCALARS:
                run.append(f)
                continue
            if run:
                self.parts.append((_RUN, tuple(r.name for r in run), *_scalars(tuple(run))))
                run = []
            if f is not None and f.type in _LISTS:
                item = _LISTS[f.type][1:]
                self.parts.append((_LIST, f.name, item, struct.calcsize(item)))
            elif f is not None:
                self.parts.append((_TEXT, f.name, None, None))

    def encode(self, args: dict[str, Any]) -> bytes | None:
        if len(args) != self.count:
            return None
        out = []
        try:
            for kind, name, layout, _ in self.parts:
                if kind == _RUN:
                    out.append(layout.pack(*[args[n] for n in name]))
                elif kind == _LIST:
                    items = args[name]
                    out.append(bytes((len(items),)) + struct.pack(f"<{len(items)}{layout}", *items))
                else:
                    data = args[name].encode("utf-8")
                    out.append(bytes((len(data),)) + data)
        except (KeyError, struct.error, TypeError, ValueError, UnicodeEncodeError, AttributeError):
            return None
        return b"".join(out)

    def decode(self, payload: bytes) -> dict[str, Any] | None:
        args: dict[str, Any] = {}
        pos, end = 0, len(payload)
        try:
            for kind, name, layout, extra in self.parts:
                if kind == _RUN:
                    if pos + layout.size > end:
                        return None
                    for at in extra:  # the bools
                        if payload[pos + at] > 1:
                            return None
                    args.update(zip(name, layout.unpack_from(payload, pos)))
                    pos += layout.size
                    continue
                count = payload[pos]
                pos += 1
                if kind == _LIST:
                    stop = pos + count * extra
                    if stop > end:
                        return None
                    args[name] = list(payload[pos:stop]) if extra == 1 else list(
                        struct.unpack_from(f"<{count}{layout}", payload, pos))
                    pos = stop
                else:
                    if pos + count > end:
                        return None
                    args[name] = payload[pos:pos + count].decode("utf-8")
                    pos += count
        except (IndexError, UnicodeDecodeError):
            return None
        return args if pos == end else None


# The common case, unpacked in one C call; the field-by-field path below explains any failure.
_FIXED = [_Fixed(s) for s in _SPECS if all(f.type in _SCALARS for f in s.fields)]
_FIXED_BY_NAME = {f.name: f for f in _FIXED}
_FIXED_BY_ID = {f.id: f for f in _FIXED}
_LAYOUTS = [_Layout(s) for s in CATALOG if not all(f.type in _SCALARS for f in s.fields)]
_LAYOUT_BY_NAME = {layout.name: layout for layout in _LAYOUTS}
_LAYOUT_BY_ID = {layout.id: layout for layout in _LAYOUTS}


def encode_message(msg: Message) -> tuple[int, bytes]:
    """Return (message id, payload bytes)."""
    fixed = _FIXED_BY_NAME.get(msg.name)
    if fixed is not None and len(msg.args) == fixed.count:
        try:
            values = fixed.values(msg.args)
            return fixed.id, fixed.pack(*values) if fixed.count != 1 else fixed.pack(values)
        except (KeyError, struct.error, TypeError):
            pass
    layout = _LAYOUT_BY_NAME.get(msg.name)
    if layout is not None and (payload := layout.encode(msg.args)) is not None:
        return layout.id, payload
    return _encode_fields(msg)


def _encode_fields(msg: Message) -> tuple[int, bytes]:
    """Field by field: what says exactly what is wrong with a message the faster paths refused."""
    spec = BY_NAME.get(msg.name)
    if spec is None:
        raise EncodeError(f"unknown message {msg.name!r}")
    extra = set(msg.args) - {f.name for f in spec.fields}
    if extra:
        raise EncodeError(f"{msg.name}: unknown fields {sorted(extra)}")
    out = bytearray()
    for f in spec.fields:
        if f.name not in msg.args:
            raise EncodeError(f"{msg.name}: missing field {f.name!r}")
        try:
            _encode_field(out, f.type, msg.args[f.name])
        except (struct.error, TypeError, ValueError, UnicodeEncodeError, AttributeError) as exc:
            raise EncodeError(f"{msg.name}.{f.name}={msg.args[f.name]!r}: {exc}") from None
    return spec.id, bytes(out)


def _encode_field(out: bytearray, type_: str, value: Any) -> None:
    if type_ in _SCALARS:
        out += struct.pack(_SCALARS[type_], value)
    elif type_ in _LISTS:
        out += struct.pack("<B", len(value))
        for item in value:
            out += struct.pack(_LISTS[type_], item)
    else:
        data = value.encode("utf-8")
        out += struct.pack("<B", len(data)) + data


def decode_message(msg_id: int, payload: bytes) -> Message | ProtocolError:
    fixed = _FIXED_BY_ID.get(msg_id)
    if fixed is not None and len(payload) == fixed.size and not (
            fixed.bools and any(payload[at] > 1 for at in fixed.bools)):
        values = fixed.unpack(payload)
        # One field (most commands and events) makes a literal: half the cost of dict(zip()).
        return Message(fixed.name, {fixed.names[0]: values[0]} if fixed.count == 1 else dict(zip(fixed.names, values)))
    layout = _LAYOUT_BY_ID.get(msg_id)
    if layout is not None and (args := layout.decode(payload)) is not None:
        return Message(layout.name, args)
    return _decode_fields(msg_id, payload)


def _decode_fields(msg_id: int, payload: bytes) -> Message | ProtocolError:
    """Field by field: what says exactly what is wrong with a payload the faster paths refused."""
    spec = BY_ID.get(msg_id)
    if spec is None:
        return ProtocolError(msg_id, f"unknown message id 0x{msg_id:02x}")
    args: dict[str, Any] = {}
    pos = 0
    try:
        for f in spec.fields:
            args[f.name], pos = _decode_field(payload, pos, f.type)
    except (struct.error, UnicodeDecodeError, IndexError):
        return ProtocolError(msg_id, f"{spec.name}: payload too short or malformed at field {f.name!r}")
    if pos != len(payload):
        return ProtocolError(msg_id, f"{spec.name}: {len(payload) - pos} unexpected trailing bytes")
    return Message(spec.name, args)


def _decode_field(data: bytes, pos: int, type_: str) -> tuple[Any, int]:
    if type_ in _SCALARS:
        fmt = _SCALARS[type_]
        if type_ == "bool" and data[pos] > 1:
            raise struct.error("bool out of range")
        return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)
    count = data[pos]
    pos += 1
    if type_ in _LISTS:
        fmt = _LISTS[type_]
        size = struct.calcsize(fmt)
        if pos + count * size > len(data):
            raise struct.error("list past end")
        items = [struct.unpack_from(fmt, data, pos + i * size)[0] for i in range(count)]
        return items, pos + count * size
    if pos + count > len(data):
        raise struct.error("string past end")
    return data[pos:pos + count].decode("utf-8"), pos + count
