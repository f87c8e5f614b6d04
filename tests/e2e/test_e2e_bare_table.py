"""A table without the optional devices (no wind marker, no seat displays, no centre
display): the controller must still play on it, through the same CLI."""
import pytest

from .e2e_harness import PROFILES, first_ron_on

BARE = {"wind_marker: motorised": "wind_marker: none", "seat_displays: true": "seat_displays: false",
        "centre_display: true": "centre_display: false"}


def test_a_table_without_marker_and_displays_plays(procs):
    profile = (PROFILES / "four-port.yaml").read_text()
    for line, bare in BARE.items():
        assert line in profile
        profile = profile.replace(line, bare)
    assert first_ron_on(procs, profile, "bare") == [0, 5200, -5200, 0]
