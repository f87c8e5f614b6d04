import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_protocol.frame import (
    MAX_FRAME, MAX_PAYLOAD, SYNC, Frame, FrameDecoder, crc16, encode_frame,
)

# A random corruption fools CRC-16 once in 65536 tries: derandomised runs keep CI stable.
stable = settings(derandomize=True, max_examples=300, deadline=None)

frames_st = st.builds(
    Frame,
    st.integers(0, 255),
    st.integers(0, 255),
    st.binary(max_size=MAX_PAYLOAD),
)


def decode_all(data: bytes, chunk: int | None = None) -> tuple[list[Frame], FrameDecoder]:
    dec = FrameDecoder()
    step = chunk or max(len(data), 1)
    out = [f for i in range(0, len(data), step) for f in dec.feed(data[i:i + step])]
    return out, dec


def test_crc_is_ccitt_false_with_documented_check_value():
    assert crc16(b"123456789") == 0x29B1


def test_layout_of_a_command_frame():
    crc = crc16(b"\x01\x07\x17\x02").to_bytes(2, "big")  # length, seq, id, payload: sync excluded
    assert encode_frame(7, 0x17, b"\x02") == bytes.fromhex("a5 01 07 17 02") + crc


def test_maximum_frame_is_64_bytes_and_larger_payloads_are_refused():
    assert len(encode_frame(0, 0x10, bytes(MAX_PAYLOAD))) == MAX_FRAME
    with pytest.raises(ValueError):
        encode_frame(0, 0x10, bytes(MAX_PAYLOAD + 1))
    with pytest.raises(ValueError):
        encode_frame(256, 0x10)


@given(st.lists(frames_st, max_size=8), st.integers(1, 70))
def test_round_trip_in_any_chunking(frames, chunk):
    stream = b"".join(encode_frame(*f) for f in frames)
    out, dec = decode_all(stream, chunk)
    assert out == frames
    assert dec.stats.bytes_skipped == dec.stats.resyncs == 0


def test_payload_made_of_sync_bytes_decodes_without_stuffing():
    frame = Frame(SYNC, SYNC, bytes([SYNC]) * 10)
    assert decode_all(encode_frame(*frame))[0] == [frame]


@given(st.binary(max_size=400), st.integers(1, 50))
def test_arbitrary_bytes_never_raise_and_counters_do_not_depend_on_chunking(data, chunk):
    whole, dec_whole = decode_all(data)
    split, dec_split = decode_all(data, chunk)
    assert whole == split
    assert dec_whole.stats == dec_split.stats


def test_garbage_before_sync_is_skipped_and_counted_once():
    out, dec = decode_all(b"\x00\x01\x02" + encode_frame(1, 0x11))
    assert out == [Frame(1, 0x11, b"")]
    assert (dec.stats.bytes_skipped, dec.stats.resyncs) == (3, 1)


def test_bad_crc_drops_only_the_sync_byte_so_a_following_frame_survives():
    bad = bytearray(encode_frame(1, 0x11, b"abc"))
    bad[-1] ^= 0xFF
    out, dec = decode_all(bytes(bad) + encode_frame(2, 0x12))
    assert out == [Frame(2, 0x12, b"")]
    assert dec.stats.crc_errors == 1
    assert dec.stats.bytes_skipped == len(bad)


def test_truncated_frame_does_not_hide_the_next_one():
    truncated = encode_frame(1, 0x11, bytes(20))[:8]
    good = [encode_frame(s, 0x12, b"x") for s in range(5)]
    out, _ = decode_all(truncated + b"".join(good))
    assert out == [Frame(s, 0x12, b"x") for s in range(5)]


def test_oversize_length_is_counted_and_resynced():
    out, dec = decode_all(bytes([SYNC, MAX_PAYLOAD + 1]) + encode_frame(3, 0x40))
    assert out == [Frame(3, 0x40, b"")]
    assert dec.stats.oversize == 1 and dec.stats.crc_errors == 0


@stable
@given(
    st.lists(st.tuples(frames_st, st.binary(max_size=12), st.none() | st.integers(0, MAX_FRAME - 1)), max_size=10),
)
def test_spliced_garbage_and_corruption_yield_exactly_the_intact_frames(parts):
    stream = bytearray()
    intact = []
    for frame, garbage, corrupt_at in parts:
        wire = bytearray(encode_frame(*frame))
        if corrupt_at is None:
            intact.append(frame)
        else:
            wire[corrupt_at % len(wire)] ^= 0x5A
        stream += garbage + wire
    # Trailing idle-line bytes flush a garbage length byte that still waits for its frame.
    out, _ = decode_all(bytes(stream) + bytes(MAX_FRAME))
    assert out == intact
