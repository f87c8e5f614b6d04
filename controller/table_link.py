"""The link's own small machine: ``down``, ``connecting``, ``up``.

The table facade (controller/table.py) moves it: a connect dials, an identified table is
up, a failed attempt or a lost link is down again. The game does not hold link state: it
asks whether the link is up, and waits while it is restored.
"""
from __future__ import annotations

from transitions import Machine

LINK_STATES = ["down", "connecting", "up"]
LINK_TRANSITIONS: list[dict] = [
    {"trigger": "dial", "source": ["down", "connecting"], "dest": "connecting"},
    {"trigger": "identified", "source": "connecting", "dest": "up"},
    {"trigger": "drop", "source": ["connecting", "up"], "dest": "down"},
]


class TableLink:
    """`state` is one of LINK_STATES; `dial()`, `identified()`, `drop()` move it."""

    def __init__(self) -> None:
        Machine(model=self, states=LINK_STATES, transitions=LINK_TRANSITIONS, initial="down",
                auto_transitions=False)

    @property
    def up(self) -> bool:
        return self.state == "up"
