"""The virtual-time loop: its clock jumps, yet what the real world sends it is not missed.
It looks at its own wake-up pipe only every so many turns (a poll per turn was a tenth of a
simulated game's CPU), so a signal must still get through, and a real descriptor, while one
is watched, is still looked at on every turn."""
import asyncio
import os
import signal
import socket

from firmware_protocol.virtual_time import POLL_EVERY, VirtualTimeLoop, run_virtual


def test_the_clock_jumps_to_each_timer_in_order():
    async def sleeps():
        loop, woke = asyncio.get_running_loop(), []
        for delay in (30.0, 0.5, 2.0):
            await asyncio.sleep(delay)
            woke.append(loop.time())
        return woke
    assert run_virtual(sleeps(), start=10.0) == [40.0, 40.5, 42.5]


def test_a_watched_descriptor_is_read_before_the_clock_jumps():
    loop = VirtualTimeLoop()
    ours, theirs = socket.socketpair()
    read_at = []

    def readable() -> None:
        ours.recv(16)
        read_at.append(loop.time())

    async def busy():
        loop.add_reader(ours.fileno(), readable)
        theirs.send(b"x")
        for _ in range(5):
            await asyncio.sleep(1.0)  # each a jump of the clock
        loop.remove_reader(ours.fileno())
    try:
        loop.run_until_complete(busy())
    finally:
        loop.close()
        ours.close()
        theirs.close()
    assert read_at == [0.0]


def test_a_signal_gets_through_while_timers_keep_the_loop_busy():
    loop = VirtualTimeLoop()
    caught = []

    async def busy():
        loop.add_signal_handler(signal.SIGUSR1, lambda: caught.append(loop.time()))
        os.kill(os.getpid(), signal.SIGUSR1)
        for _ in range(2 * POLL_EVERY):
            await asyncio.sleep(0.01)
        loop.remove_signal_handler(signal.SIGUSR1)
    try:
        loop.run_until_complete(busy())
    finally:
        loop.close()
    assert len(caught) == 1 and caught[0] <= POLL_EVERY * 0.01
