"""The table's news, as the facade hands it over: faults it reports by itself, a lost
link or a reset, and the seats' buttons."""
from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from firmware_protocol.codes import Code

from controller.errors import Refusal
from controller.table.facade import TableFault
from controller.table.events import ButtonPressed, LinkDropped, TableEvent, TableFaulted, TableRebooted

log = logging.getLogger("mjtable.controller")


class TableNews:
    """Handed what it uses: the machine, a publish function, a spawner, the faults, the
    work and the recovery, and the operator's two verbs a seat's buttons give (pause,
    riichi)."""

    def __init__(self, sm, publish: Callable[..., None], spawn, faults, work, recovery,
                 pause: Callable[[], Awaitable[None]], riichi: Callable[[int], Awaitable[None]]) -> None:
        self.sm, self.publish, self.spawn = sm, publish, spawn
        self.faults, self.work, self.recovery = faults, work, recovery
        self.pause, self.riichi = pause, riichi

    def on_event(self, event: TableEvent) -> None:
        value = event.fault if isinstance(event, TableFaulted) else None
        if value is not None and value.code == Code.WATCHDOG:
            # This host was silent, not the mechanism at fault: whatever waits on the table
            # resumes it (TableWork.resumed_after_watchdog); with nothing waiting, now.
            self.faults.tell(value)
            if self.sm.is_motion_paused():
                log.warning("the table's watchdog stopped it while paused (this host was silent too long); "
                            "`resume` restarts it")
            elif self.sm.nothing_waits_on_table():
                self.spawn(self.work.resumed_after_watchdog(TableFault(value)), "watchdog resume")
        elif value is not None:
            self.work.held_by(value)
        elif isinstance(event, (LinkDropped, TableRebooted)):
            self.recovery.lost("link_lost" if isinstance(event, LinkDropped) else "mcu_reset")
        elif isinstance(event, ButtonPressed):
            self._on_button(event.seat, event.button)

    def _on_button(self, seat: int, name: str) -> None:
        self.publish("button", seat=seat, name=name)
        if name == "pause":
            self.spawn(self._button(name, self.pause), "pause button")
        elif name == "ok" and self.faults.current is not None:
            self.faults.operator.set()
        elif name == "riichi" and self.sm.in_play():
            self.spawn(self._button(name, lambda: self.riichi(seat)), "riichi button")

    async def _button(self, name: str, action) -> None:
        try:
            await action()
        except Refusal as exc:
            log.warning("%s button: %s", name, exc)
