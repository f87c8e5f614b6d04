"""The one "operator presses retry" helper, for games run in process (`run_game`'s
`on_controller`, or any controller with its simulated table)."""
from __future__ import annotations

import asyncio
from collections.abc import Callable


def operator(delay: float = 30.0, on_fault: Callable[[dict], object] | None = None):
    """An `on_controller` callback: someone who clears each fault and presses retry `delay`
    seconds after it is shown; `on_fault` sees each fault event first."""
    def attach(controller, table) -> None:
        def on_event(event: dict) -> None:
            if event["event"] == "fault":
                if on_fault is not None:
                    on_fault(event)
                asyncio.get_running_loop().call_later(delay, press_retry, controller)
        controller.subscribe(on_event)
    return attach


def press_retry(controller) -> None:
    """Retry, unless a retry pressed for an earlier showing of the fault cleared it already."""
    if controller.fault is not None or controller.sm.is_motion_fault():
        controller.retry()
