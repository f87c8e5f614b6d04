import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_protocol.catalog import BY_ID, BY_NAME, EncodeError, Message, ProtocolError, decode_message, \
    encode_message
from firmware_protocol.frame import MAX_PAYLOAD
from firmware_protocol.vectors import EXAMPLES

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


@pytest.mark.parametrize("msg", [
    Message("no_such_message"),
    Message("roll_dice", {}),
    Message("roll_dice", {"count": 2, "extra": 1}),
    Message("roll_dice", {"count": 256}),
    Message("show_text", {"seats": 0, "text": 5}),
])
def test_building_a_wrong_message_raises_at_once(msg):
    with pytest.raises(EncodeError):
        encode_message(msg)
