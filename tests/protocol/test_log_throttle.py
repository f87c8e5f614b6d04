"""The one log throttle: a repeating warning at most once per interval, the held-back ones
counted in the next."""
import logging

from firmware_protocol.log_throttle import LogThrottle


def test_a_repeating_warning_is_logged_once_per_interval_counting_the_others(caplog):
    caplog.set_level(logging.WARNING)
    log, throttle = logging.getLogger("test.throttle"), LogThrottle(10.0)
    for now in (0.0, 1.0, 2.0, 9.9, 10.0, 25.0):
        throttle.warning(log, now, "frame %d lost", int(now), held_back="more lost")
    assert [r.getMessage() for r in caplog.records] == ["frame 0 lost", "frame 10 lost (3 more lost)", "frame 25 lost"]
