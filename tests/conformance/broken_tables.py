"""Simulated tables that each break one documented rule, for the conformance kit to catch.

Each variant is the simulator's firmware with one rule undone, as a firmware author might
get it wrong; `BROKEN` maps a variant to the one check that must fail against it.
"""
from __future__ import annotations

import asyncio
import dataclasses

from firmware_protocol.catalog import SUBSYSTEM_OF, Message
from firmware_protocol.codes import Code
from firmware_protocol.endpoint import LinkEndpoint
from firmware_protocol.link import SEQ_MOD, Link
from sim import SimulatedTable
from sim.firmware import OK, Firmware, rejected
from sim.odometer import Odometer
from firmware_protocol.profile import CONFIG_DIR, load_profile

TABLES = CONFIG_DIR / "tables"


class IgnoresBusy(Firmware):
    """Restarts a moving subsystem's operation instead of refusing BUSY."""

    def _execute(self, msg: Message) -> Message:
        subsystem = SUBSYSTEM_OF.get(msg.name)
        if self.identified and not self.stopped and subsystem in self.model.motion:
            self.mechanics._timers.pop(subsystem).cancel()
            del self.model.motion[subsystem]
            self.mechanics.start(msg.name, msg.args)
            return OK
        return super()._execute(msg)


class AcceptsBeforeIdentify(Firmware):
    """Behaves as if identified from power-on."""

    def _execute(self, msg: Message) -> Message:
        self.identified = True
        return super()._execute(msg)


class RollsAnyCount(Firmware):
    """Rolls any number of dice it is asked for: no BAD_ARGUMENT for roll_dice."""

    def _execute(self, msg: Message) -> Message:
        if msg.name == "roll_dice" and self.identified and not self.stopped and "dice" not in self.model.motion \
                and not self.maintenance.active:
            self.mechanics.start(msg.name, msg.args)
            return OK
        return super()._execute(msg)


class NeverNaks(Link):
    def _answer(self) -> None:
        self._nak_at = None  # a gap is silently discarded
        super()._answer()


class ForgetsDuplicates(Link):
    def _on_data(self, frame, delivered) -> None:
        if self._open and 0 < (self._rx_next - frame.seq) % SEQ_MOD <= SEQ_MOD // 2:
            delivered.append(self._decode(frame.msg_id, frame.payload))  # executed again
        super()._on_data(frame, delivered)


def with_link(link_class: type[Link]) -> type[Firmware]:
    class BrokenLink(Firmware):
        def _start_link(self) -> None:
            link = link_class(role="table", epoch=self.boot_id)
            self._endpoint = LinkEndpoint(link, self._uart.port(), on_message=self.on_message,
                                          on_protocol_error=self._on_protocol_error, loop=self._loop)
            self._send = self._endpoint.send
    return BrokenLink


class NoWatchdog(Firmware):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.watchdog_enabled = False


class KeepsLampOnReset(Firmware):
    """Keeps the dealer lamp lit through an MCU reset (volatile state must go)."""

    def reset(self) -> None:
        lamp = self.model.dealer_lamp
        super().reset()
        self.model.dealer_lamp = lamp


class MovesInMaintenance(Firmware):
    """Runs a game's motion command in the sensor test mode instead of refusing MAINTENANCE."""

    def _execute(self, msg: Message) -> Message:
        if msg.name not in SUBSYSTEM_OF or not self.maintenance.active:
            return super()._execute(msg)
        self.maintenance.active = False
        try:
            return super()._execute(msg)
        finally:
            self.maintenance.active = True


class ServiceClearsOdometer(Firmware):
    """reset_service_counter zeroes the whole odometer, not only cycles_since_service."""

    def _execute(self, msg: Message) -> Message:
        if msg.name == "reset_service_counter" and self.identified:
            self.odometer = Odometer(self.model.profile.timings)
        return super()._execute(msg)


class WallsUpNeverReported(Firmware):
    """Powers on with a set's walls standing, but reports walls_up only after its own raise
    (a flag set by walls_raised): the power-on status contradicts itself."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.model.raise_walls()  # the stacked set stands: on_table and collected
        self.raised = False

    def _on_outcome(self, outcome) -> None:
        self.raised = self.raised or getattr(outcome, "name", None) == "walls_raised"
        super()._on_outcome(outcome)

    def _get_status(self, a: dict) -> Message:
        status = super()._get_status(a)
        return Message("status", {**status.args, "walls_up": status["walls_up"] and self.raised})


class RefusesConfigureWhileShuffling(Firmware):
    """Refuses configure BUSY while the shuffler runs (configure is accepted in any state)."""

    def _execute(self, msg: Message) -> Message:
        if msg.name == "configure" and self.identified and "shuffler" in self.model.motion:
            return rejected(Code.BUSY, "shuffling")
        return super()._execute(msg)


class CountsFlipsTwice(Firmware):
    """Counts a stack flipped twice twice in status.dora_flipped."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.model.flip_dora = self.model.dora_flipped.append


class CollectsOnStop(Firmware):
    """A stop during collect_tiles lets the set fall into the hopper anyway."""

    def _stop(self, a: dict) -> None:
        if "centre" in self.model.motion:
            self.model.collect()
        super()._stop(a)


class UndecodableFeedsWatchdog(Firmware):
    """Takes a frame it cannot decode as a sign of life from the host."""

    def _on_protocol_error(self, error) -> None:
        super()._on_protocol_error(error)
        self._heard_from_host()


# variant -> (firmware class, the check that must fail)
BROKEN: dict[str, tuple[type[Firmware], str]] = {
    "ignores-busy": (IgnoresBusy, "state.busy"),
    "accepts-before-identify": (AcceptsBeforeIdentify, "session.not_identified"),
    "rolls-any-count": (RollsAnyCount, "bad_argument.roll_dice"),
    "never-naks": (with_link(NeverNaks), "link.out_of_order"),
    "forgets-duplicates": (with_link(ForgetsDuplicates), "link.duplicate"),
    "no-watchdog": (NoWatchdog, "watchdog.fault"),
    "keeps-lamp-on-reset": (KeepsLampOnReset, "reset.state"),
    "moves-in-maintenance": (MovesInMaintenance, "v11.enter_maintenance"),
    "service-clears-odometer": (ServiceClearsOdometer, "v11.reset_service_counter"),
    "walls-up-never-reported": (WallsUpNeverReported, "status.invariants"),
    "refuses-configure-while-shuffling": (RefusesConfigureWhileShuffling, "state.configure_shuffling"),
    "counts-flips-twice": (CountsFlipsTwice, "state.flip_twice"),
    "collects-on-stop": (CollectsOnStop, "state.stop_collect"),
    "undecodable-feeds-watchdog": (UndecodableFeedsWatchdog, "watchdog.undecodable"),
}


def make_table(profile: str = "four-port", variant: str | None = None, speed: float = 1.0,
               loop: asyncio.AbstractEventLoop | None = None, protocol: str | None = None,
               **changes) -> SimulatedTable:
    """A simulated table, its firmware replaced by a broken variant if one is named;
    `protocol` "1.0" makes it a table of before protocol 1.1; `changes` replace profile fields."""
    shipped = load_profile(TABLES / f"{profile}.yaml")
    changed = dataclasses.replace(shipped, protocol=protocol or shipped.protocol, **changes)
    table = SimulatedTable(changed, speed=speed, loop=loop)
    if variant is not None:
        firmware = BROKEN[variant][0]
        table.firmware = firmware(table.model, table.faults, table.trace, table.loop, speed)
    return table
