import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.table.facade import Table
from firmware_protocol.catalog import (BUTTONS, BY_ID, BY_NAME, COMPLETIONS, ENUMERATIONS, OPERATIONS, REPLY_OF,
                                       SUBSYSTEM_OF, SUBSYSTEMS, EncodeError, Message, ProtocolError, _decode_fields,
                                       _encode_fields, decode_message, encode_message, enumerated_fields, value_name)
from firmware_protocol.frame import MAX_PAYLOAD
from firmware_protocol.vectors import EXAMPLES
from firmware_protocol.virtual_time import run_virtual
from firmware_protocol.profile import DEFAULT_PROFILE
from sim.serve import connect_in_process
from sim.table import SimulatedTable

VALUES = {
    "u8": st.integers(0, 0xFF), "u16": st.integers(0, 0xFFFF), "u32": st.integers(0, 0xFFFFFFFF),
    "i32": st.integers(-2**31, 2**31 - 1), "bool": st.booleans(),
    "u8[]": st.lists(st.integers(0, 0xFF), max_size=6), "i32[]": st.lists(st.integers(-2**31, 2**31 - 1), max_size=4),
    "str": st.text(max_size=8),
}


def messages_of(spec):
    return st.fixed_dictionaries({f.name: VALUES[f.type] for f in spec.fields}).map(lambda a: Message(spec.name, a))


any_message = st.sampled_from(list(BY_ID.values())).flatmap(messages_of)


@pytest.mark.parametrize("name", list(BY_NAME))
def test_example_of_every_message_round_trips_and_fits_a_frame(name):
    msg = Message(name, EXAMPLES[name])
    msg_id, payload = encode_message(msg)
    assert msg_id == BY_NAME[name].id
    assert len(payload) <= MAX_PAYLOAD
    assert decode_message(msg_id, payload) == msg


@given(any_message)
def test_any_valid_message_round_trips(msg):
    assert decode_message(*encode_message(msg)) == msg


@given(st.integers(0, 0xFF), st.binary(max_size=MAX_PAYLOAD))
def test_decoding_arbitrary_payloads_never_raises(msg_id, payload):
    result = decode_message(msg_id, payload)
    assert isinstance(result, (Message, ProtocolError))


def _damaged(data: st.DataObject, payload: bytes) -> bytes:
    """The payload as it is, cut short, with bytes after it, or with one byte replaced."""
    how = data.draw(st.sampled_from(["as is", "cut", "longer", "replaced"]))
    if how == "cut":
        return payload[:data.draw(st.integers(0, max(len(payload) - 1, 0)))]
    if how == "longer":
        return payload + data.draw(st.binary(min_size=1, max_size=4))
    if how == "replaced" and payload:
        at = data.draw(st.integers(0, len(payload) - 1))
        return payload[:at] + bytes([data.draw(st.integers(0, 0xFF))]) + payload[at + 1:]
    return payload


@given(any_message, st.data())
def test_the_faster_decoders_say_what_the_field_by_field_path_says(msg, data):
    # The same message or error, its fields in the same order (a trace writes them in it).
    msg_id, payload = encode_message(msg)
    payload = _damaged(data, payload)
    fast, fields = decode_message(msg_id, payload), _decode_fields(msg_id, payload)
    assert fast == fields
    if isinstance(fields, Message):
        assert list(fast.args) == list(fields.args)


@given(any_message)
def test_the_faster_encoders_write_what_the_field_by_field_path_writes(msg):
    assert encode_message(msg) == _encode_fields(msg)


@pytest.mark.parametrize("msg", [
    Message("no_such_message"),
    Message("roll_dice", {}),
    Message("roll_dice", {"count": 2, "extra": 1}),
    Message("roll_dice", {"count": 256}),
    Message("show_text", {"seats": 0, "text": 5}),
    Message("show_text", {"seats": 0, "text": "x" * 256}),
    Message("show_scores", {"scores": [0, 0, 0, 2**31], "mode": 0, "dealer": 0}),
    Message("show_scores", {"scores": [0, 0, 0, 0], "mode": 0}),
])
def test_building_a_wrong_message_raises_at_once(msg):
    with pytest.raises(EncodeError):
        encode_message(msg)


# ---- the catalog's tables are complete, and the simulator and the facade follow them

LONG_OPERATIONS = OPERATIONS[1:]  # status.operation: idle, then each long operation


def test_every_long_operation_has_one_completion_event_and_one_subsystem_of_its_own():
    # The 1.1 sensor test is a long operation too; the subsystem it runs is its argument.
    assert set(COMPLETIONS) == {*SUBSYSTEM_OF, "test_subsystem"} and set(SUBSYSTEM_OF) == set(LONG_OPERATIONS)
    assert BY_NAME[COMPLETIONS["test_subsystem"]].kind == "event"
    for name in LONG_OPERATIONS:
        assert BY_NAME[name].kind == "command"
        assert BY_NAME[COMPLETIONS[name]].kind == "event", name
        assert SUBSYSTEM_OF[name] in SUBSYSTEMS, name
    # The facade matches a completion by its event's name, the table runs one operation per subsystem.
    assert len(set(COMPLETIONS.values())) == len(COMPLETIONS)
    assert len(set(SUBSYSTEM_OF.values())) == len(LONG_OPERATIONS)


def test_every_command_names_its_reply_and_nothing_else_claims_one():
    for spec in BY_NAME.values():
        if spec.kind == "command":
            assert BY_NAME[spec.reply].kind == "reply" and spec.reply != "rejected", spec.name
        else:
            assert (spec.reply, spec.completion, spec.subsystem) == (None, None, None), spec.name
    assert set(REPLY_OF) == {s.name for s in BY_NAME.values() if s.kind == "command"}


def test_every_enumeration_names_the_values_of_a_field_and_every_enumerated_field_has_one():
    enumerated = enumerated_fields()
    assert {f.values for _, f in enumerated} == set(ENUMERATIONS.values())
    assert {(s.name, f.name) for s, f in enumerated} == {
        ("show_scores", "mode"), ("identity", "wind_marker"), ("status", "operation"), ("status", "sets"),
        ("button", "name"), ("fault", "subsystem"), ("fault", "sensor"),
        # protocol 1.1
        ("identity_1_1", "wind_marker"), ("identity_1_1", "features"), ("test_subsystem", "subsystem"),
        ("subsystem_tested", "sensor")}
    for names in ENUMERATIONS.values():
        assert len(set(names)) == len(names) and all(names)


def test_an_enumerated_number_the_catalog_does_not_know_stays_visible():
    assert value_name(BUTTONS, BUTTONS.index("riichi")) == "riichi"
    assert value_name(BUTTONS, len(BUTTONS)) == f"#{len(BUTTONS)}"


# Each long operation in an order the table's interlocks allow, from power-on (one set
# stacked, one collected): the shuffle runs while the others follow.
HAND_CYCLE = [("raise_walls", {}), ("shuffle", {}), ("roll_dice", {"count": 2}),
              ("separate_dead_wall", {"breaker": 1, "position": 5, "length": 7}), ("flip_dora", {"seat": 1, "stack": 3}),
              ("set_wind_marker", {"wind": 1, "seat": 2}), ("collect_tiles", {})]


def test_the_hand_cycle_runs_every_long_operation():
    assert sorted(name for name, _ in HAND_CYCLE) == sorted(LONG_OPERATIONS)


def test_the_simulator_and_the_facade_run_each_long_operation_as_the_catalog_says():
    """While it runs, the simulator moves the catalog's subsystem and reports the operation
    in its status; it ends with the catalog's completion, which ends the facade's wait."""
    async def cycle():
        loop = asyncio.get_running_loop()
        sim = SimulatedTable(DEFAULT_PROFILE)

        async def connect():
            return connect_in_process(loop, sim)
        host = Table(connect)
        await host.connect()
        seen = []
        for name, args in HAND_CYCLE:
            running = asyncio.ensure_future(host.operation(name, **args))
            await asyncio.sleep(0)  # the command is sent
            status = await host.get_status()  # answered after the command's `ok`: the operation runs
            moving = dict(sim.model.motion)
            done = await running
            seen.append((name, moving.get(SUBSYSTEM_OF[name]), _reported_operation(name, status), done.name))
        host.close()
        sim.close()
        return seen

    for name, moving, reported, done in run_virtual(cycle()):
        assert (moving, reported, done) == (name, name, COMPLETIONS[name])


def _reported_operation(name: str, status: dict) -> str:
    """The shuffle runs beside the others: the status shows it as its set's location."""
    if name == "shuffle":
        return name if "shuffling" in status["sets"] else "not shuffling"
    return OPERATIONS[status["operation"]]
