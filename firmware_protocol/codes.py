"""Numbered error and fault codes, shared by host and table (PROTOCOL.md "Codes").

Codes are stable numbers: a table's display shows "E<code>", the host logs the name.
1xx: a command was refused (the `rejected` reply); nothing moved.
2xx: a mechanical fault (the `fault` event); all motion has stopped.
3xx: link and session faults.
"""
from __future__ import annotations

from enum import IntEnum

# The fault's subsystem and sensor are enumerations, kept with the others in the catalog;
# named here too for the docs generator, which still reads them from this module.


class Code(IntEnum):
    # 1xx: rejected commands
    BAD_STATE = 100           # command not allowed in the table's current state
    BUSY = 101                # another operation of the same subsystem is running
    CENTRE_OPEN = 102         # interlock: walls cannot rise while the centre is open
    WALLS_RISING = 103        # interlock: cannot collect while walls are rising
    NO_STACKED_SET = 104      # raise_walls needs a shuffled and stacked set
    NOTHING_TO_SHUFFLE = 105  # shuffle needs a collected set
    BAD_ARGUMENT = 106        # a field out of range for this table
    UNSUPPORTED = 107         # the table lacks the device (no dora flipper, ...)
    STOPPED = 108             # motion is stopped after `stop` or a fault: `resume` first
    LID_OPEN = 109            # the lid is open
    VERSION_MISMATCH = 110    # identify with a protocol version the table does not speak
    NOT_IDENTIFIED = 111      # a command before identify
    MAINTENANCE = 112         # protocol 1.1: a game's motion command in maintenance mode: leave_maintenance first
    NOT_IN_MAINTENANCE = 113  # protocol 1.1: a sensor test command outside maintenance mode
    # 2xx: faults, motion stopped
    JAM = 200                 # a tile jammed at the named sensor
    TILE_COUNT = 201          # counted tiles differ from the expected count
    OPERATION_TIMEOUT = 202   # an operation took longer than its limit
    LIFT_STUCK = 203          # a wall lift did not reach its end position
    LID_OPENED = 204          # the lid was opened during motion
    WATCHDOG = 205            # the host was silent longer than the heartbeat timeout
    BUILD_TIMEOUT = 206       # shuffle and stack took longer than the build limit
    # 3xx: link / session
    LINK_LOST = 300           # host: the table stopped acknowledging; reconnecting
    MCU_RESET = 301           # host: the table rebooted (new boot id); state reconciled
    PROTOCOL = 302            # a frame's payload could not be decoded (the table's `rejected` for it)
    BAD_REPORT = 303          # host: the table reported a value the command or its identity rules out
    GAME_STOPPED = 304        # host: the game stopped on an internal error; abandon it or restart the host
    STORE_FAILED = 305        # host: the state database refused a write (disk full); never on the line
    STICK_MISMATCH = 306      # host: the stick reader's totals differ from the ledger (the ledger counts); never on the line




def describe(code: int) -> str:
    try:
        return Code(code).name.lower()
    except ValueError:
        return f"code_{code}"
