"""The one backoff: twice as long after each failure in a row, up to the ceiling; from the
first wait again after a success."""
import asyncio

from controller.backoff import Backoff
from firmware_protocol.virtual_time import run_virtual


def test_waits_double_to_the_ceiling_and_start_again_after_a_success():
    async def waits() -> list[float]:
        loop, backoff, slept = asyncio.get_running_loop(), Backoff(0.25, 1.5), []
        for succeeded in (False, False, False, False, True, False):
            if succeeded:
                backoff.succeeded()
            assert backoff.fresh == (not slept or succeeded)
            before = loop.time()
            await backoff.wait()
            slept.append(round(loop.time() - before, 3))
        return slept

    assert run_virtual(waits()) == [0.25, 0.5, 1.0, 1.5, 0.25, 0.5]
