import json

from firmware_protocol import vectors
from firmware_protocol.catalog import BY_ID
from firmware_protocol.frame import MAX_FRAME, FrameDecoder
from firmware_protocol.link import CONTROL_NAMES

VECTORS = json.loads(vectors.PATH.read_text())


def test_file_is_what_the_codec_produces():
    assert vectors.PATH.read_text() == vectors.render(), "run: python -m firmware_protocol.vectors"


def test_every_message_and_control_frame_has_a_vector():
    decoded = {f.get("message") or f.get("control") for v in VECTORS["vectors"] for f in v["frames"]}
    assert {spec.name for spec in BY_ID.values()} <= decoded
    assert set(CONTROL_NAMES.values()) <= decoded
    assert len(VECTORS["vectors"]) >= 40


def test_decoder_reproduces_each_vector_fed_byte_by_byte():
    for v in VECTORS["vectors"]:
        decoder = FrameDecoder()
        frames = [f for byte in bytes.fromhex(v["hex"]) for f in decoder.feed(bytes([byte]))]
        assert [(f.seq, f.msg_id, f.payload.hex()) for f in frames] == \
               [(f["seq"], f["msg_id"], f["payload"]) for f in v["frames"]], v["name"]
        assert decoder.waiting == v["pending_bytes"], v["name"]


def test_landmarks_a_firmware_author_relies_on():
    by_name = {v["name"]: v for v in VECTORS["vectors"]}
    assert VECTORS["crc"]["check_123456789"] == 0x29B1
    assert (VECTORS["protocol_version"], VECTORS["version_byte"]) == ("1.1", 0x11)  # the version these vectors are of
    assert len(bytes.fromhex(by_name["maximum size frame"]["hex"])) == MAX_FRAME
    assert [f["seq"] for f in by_name["seq wrap, two frames"]["frames"]] == [255, 0]
    assert by_name["invalid: bad crc"]["frames"] == []
    assert by_name["invalid: truncated, then a good frame"]["frames"][0]["message"] == "shuffle"
    for name in ("invalid: unknown message id", "invalid: unknown control id", "invalid: bool out of range"):
        assert "error" in by_name[name]["frames"][0], name
