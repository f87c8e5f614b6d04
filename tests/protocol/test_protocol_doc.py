"""PROTOCOL.md is the firmware author's contract: it must describe exactly what the code does."""
import re

from firmware_protocol import docgen
from firmware_protocol.catalog import BY_ID
from firmware_protocol.codes import Code
from firmware_protocol.frame import FrameDecoder

TEXT = docgen.PATH.read_text()


def test_generated_parts_are_up_to_date():
    assert docgen.render(TEXT) == TEXT, "run: python -m firmware_protocol.docgen"


def test_every_message_is_documented_with_its_id():
    for spec in BY_ID.values():
        assert f"#### `0x{spec.id:02X}` {spec.name}\n" in TEXT, spec.name


def test_every_code_is_documented_with_a_meaning():
    for code in Code:
        assert re.search(rf"^\| {code.value} \| `{code.name}` \| \S", TEXT, re.M), code.name


def test_every_hex_example_is_a_good_frame():
    examples = re.findall(r"`((?:[0-9a-f]{2} )+[0-9a-f]{2})`", TEXT)
    examples += re.findall(r"(?:→ table|→ host)  ((?:[0-9a-f]{2} )+[0-9a-f]{2})", TEXT)
    assert len(examples) > 60
    for hex_ in examples:
        decoder = FrameDecoder()
        frames = decoder.feed(bytes.fromhex(hex_))
        damaged = decoder.stats.crc_errors == 1 and "damaged" in TEXT.split(hex_, 1)[1].split("\n", 1)[0]
        assert len(frames) == 1 or damaged, hex_
