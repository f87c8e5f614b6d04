"""A table without the optional devices (no wind marker, no seat displays, no centre
display): the controller must still play on it, through the same CLI."""
import pytest

from .e2e_harness import PROFILES, pty_table, ron

BARE = {"wind_marker: motorised": "wind_marker: none", "seat_displays: true": "seat_displays: false",
        "centre_display: true": "centre_display: false"}


def test_a_table_without_marker_and_displays_plays(procs):
    profile = (PROFILES / "four-port.yaml").read_text()
    for line, bare in BARE.items():
        assert line in profile
        profile = profile.replace(line, bare)
    path = procs.folder / "bare.yaml"
    path.write_text(profile)
    table = pty_table(procs, path, "ema-2016")
    table.ok("start", where="--config")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    table.ok("result", *ron(2, (1, 3, 40)))
    table.wait_hand_after(seq)
    assert table.journal()[0]["payments"] == [0, 5200, -5200, 0]
