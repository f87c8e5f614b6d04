"""A table whose MCU takes frames of 32 bytes (`identity.frame_size`): the controller never
sends it a longer one (a long text is shortened) and plays on it, through the same CLI."""
from .e2e_harness import PROFILES, pty_table, ron


def test_a_table_with_32_byte_frames_plays(procs):
    profile = (PROFILES / "four-port.yaml").read_text()
    assert "frame_size: 64" in profile
    path = procs.folder / "small-frames.yaml"
    path.write_text(profile.replace("frame_size: 64", "frame_size: 32"))
    table = pty_table(procs, path, "ema-2016")
    table.ok("start", where="--config")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    table.ok("result", *ron(2, (1, 3, 40)))
    table.wait_hand_after(seq)
    assert table.journal()[0]["payments"] == [0, 5200, -5200, 0]
