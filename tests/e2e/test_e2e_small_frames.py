"""A table whose MCU takes frames of 32 bytes (`identity.frame_size`): the controller never
sends it a longer one (a long text is shortened) and plays on it, through the same CLI."""
from .e2e_harness import PROFILES, first_ron_on


def test_a_table_with_32_byte_frames_plays(procs):
    profile = (PROFILES / "four-port.yaml").read_text()
    assert "frame_size: 64" in profile
    assert first_ron_on(procs, profile.replace("frame_size: 64", "frame_size: 32"), "small-frames") == [0, 5200, -5200, 0]
