"""The C header is generated from the message catalog; a stale one fails here."""
from firmware_protocol.c import gen_header


def test_the_committed_header_is_what_the_catalog_generates():
    assert gen_header.PATH.read_text() == gen_header.render(), "run: python -m firmware_protocol.c.gen_header"


def test_the_header_carries_every_message_code_and_limit_a_port_needs():
    text = gen_header.render()
    for line in ("#define MJT_MSG_IDENTIFY", "#define MJT_CODE_WATCHDOG", "#define MJT_SET_LOCATION_ON_TABLE",
                 "#define MJT_MAX_FRAME", "#define MJT_RTO_MIN_MS", "#define MJT_OFF_STATUS_SETS",
                 "#define MJT_LAYOUT_CONFIGURE", "#define MJT_FEATURE_MASK_STICK_READER"):
        assert line in text
