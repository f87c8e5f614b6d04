"""The table's news, as the facade hands it over: faults it reports by itself, a lost
link or a reset, and the seats' buttons."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from firmware_protocol.codes import Code

from controller.errors import Refusal
from controller.table.facade import TableFault
from controller.table.events import ButtonPressed, LinkDropped, TableEvent, TableFaulted, TableRebooted

if TYPE_CHECKING:
    from controller.game.controller import Controller

log = logging.getLogger("mjtable.controller")


class TableNews:
    def __init__(self, controller: "Controller") -> None:
        self.c = controller

    def on_event(self, event: TableEvent) -> None:
        c = self.c
        value = event.fault if isinstance(event, TableFaulted) else None
        if value is not None and value.code == Code.WATCHDOG:
            # This host was silent, not the mechanism at fault: whatever waits on the table
            # resumes it (TableWork.resumed_after_watchdog); with nothing waiting, now.
            c.faults.tell(value)
            if c.sm.is_motion_paused():
                log.warning("the table's watchdog stopped it while paused (this host was silent too long); "
                            "`resume` restarts it")
            elif c.sm.nothing_waits_on_table():
                c.background.spawn(c.work.resumed_after_watchdog(TableFault(value)), "watchdog resume")
        elif value is not None:
            c.work.held_by(value)
        elif isinstance(event, (LinkDropped, TableRebooted)):
            c.recovery.lost("link_lost" if isinstance(event, LinkDropped) else "mcu_reset")
        elif isinstance(event, ButtonPressed):
            self._on_button(event.seat, event.button)

    def _on_button(self, seat: int, name: str) -> None:
        c = self.c
        c.publish("button", seat=seat, name=name)
        if name == "pause":
            c.background.spawn(self._button(name, c.pause), "pause button")
        elif name == "ok" and c.fault is not None:
            c.faults.operator.set()
        elif name == "riichi" and c.sm.in_play():
            c.background.spawn(self._button(name, lambda: c.declare_riichi(seat)), "riichi button")

    async def _button(self, name: str, action) -> None:
        try:
            await action()
        except Refusal as exc:
            log.warning("%s button: %s", name, exc)
