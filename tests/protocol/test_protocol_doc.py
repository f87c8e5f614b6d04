"""PROTOCOL.md is the firmware author's contract: it must describe exactly what the code does."""
import json
import re

import pytest

from protocol_tools import docgen
from firmware_protocol.catalog import BUTTONS, BY_ID, ENUMERATIONS
from firmware_protocol.codes import Code
from firmware_protocol.frame import FrameDecoder, encode_frame

TEXT = docgen.PATH.read_text()


def test_generated_parts_are_up_to_date():
    assert docgen.render(TEXT) == TEXT, "run: python -m protocol_tools.docgen"


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


def test_every_enumeration_of_the_catalog_is_documented():
    documented = [id(names) for names in ENUMERATIONS.values()]
    assert sorted(id(names) for names in docgen.defined_enumerations().values()) == sorted(documented)


def test_every_button_has_a_meaning():
    assert set(docgen.BUTTON_MEANINGS) == set(BUTTONS)


def test_every_generated_part_has_its_place_in_the_document():
    for name in docgen.SECTIONS:
        assert f"<!-- generated: {name} -->" in TEXT, name


@pytest.mark.parametrize("ruleset", ["ema-2016", "sanma", "mcr"])
def test_the_documented_geometry_is_the_hosts(ruleset):
    """The figures come from the simulator's walls; the host computes the same walks."""
    from sim.walls import Position, Walls

    from controller.rules import geometry, load_ruleset
    rules = load_ruleset(ruleset)
    stacks = tuple(rules.stacks_per_side)
    walls = Walls(["x"] * (2 * sum(stacks)), stacks)
    for seat, n in enumerate(stacks):
        for stack in range(1, n + 1):
            at = Position(seat, stack)
            for table_walk, host_walk in ((walls.clockwise, geometry.clockwise),
                                          (walls.counter_clockwise, geometry.counter_clockwise)):
                moved = table_walk(at)
                assert (moved.seat, moved.stack) == host_walk(rules, (seat, stack))


def test_the_trace_format_is_the_simulators():
    from sim.trace import Record
    documented = re.search(r"<!-- generated: trace -->\n```\n(.*?)```", TEXT, re.S).group(1).splitlines()
    records = [json.loads(line) for line in documented]
    assert records and all(list(r) == list(Record(0, "", "", {}).as_dict()) for r in records)
    assert {r["dir"] for r in records} == {"cmd", "reply", "event"}


def test_the_reboot_example_shows_the_host_reconnecting_and_reconciling():
    reboot = TEXT.split("#### The table rebooted", 1)[1].split("<!-- end: examples -->", 1)[0]
    steps = re.findall(r"(RESET_REQUEST|RESET_ACK|RESET next|booted|identify\(|configure\(|get_status\(\))", reboot)
    assert steps == ["RESET_REQUEST", "RESET next", "RESET_ACK", "booted", "RESET next", "RESET_ACK", "identify(",
                     "configure(", "get_status()"]


def test_no_stale_claims():
    assert "drops whatever is sent before" not in TEXT  # Linux keeps what is written into a pty
    assert "every frame from the host" not in TEXT


def test_the_decoder_counter_examples_hold():
    assert "00 01 A5 A5 followed by a good frame count 4 bytes skipped, 2 oversize" in " ".join(TEXT.split())
    decoder = FrameDecoder()
    assert len(decoder.feed(bytes.fromhex("0001a5a5") + encode_frame(0, 0x11))) == 1
    s = decoder.stats
    assert (s.bytes_skipped, s.oversize, s.resyncs, s.frames_received) == (4, 2, 1, 1)
    lone = FrameDecoder()
    assert lone.feed(b"\xa5") == [] and lone.waiting == 1
    lone.abandon_partial()
    assert (lone.stats.bytes_skipped, lone.stats.truncated, lone.stats.resyncs) == (1, 1, 1)
