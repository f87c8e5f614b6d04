"""The link's own small machine: ``down``, ``connecting``, ``up``.

The table facade (controller/table/facade.py) moves it: a connect dials, an identified table is
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
    """`state` is one of LINK_STATES; `dial()`, `identified()`, `drop()` move it. Until the
    table is up, `problem` says why the last connect failed and `retry_in` when the next
    one starts."""

    def __init__(self) -> None:
        Machine(model=self, states=LINK_STATES, transitions=LINK_TRANSITIONS, initial="down",
                auto_transitions=False, after_state_change="_forget_problem")
        self.problem: str | None = None
        self.retry_in: float | None = None

    def failed(self, problem: str, retry_in: float) -> None:
        self.problem, self.retry_in = problem, retry_in

    def _forget_problem(self) -> None:
        if self.state == "up":
            self.problem = self.retry_in = None

    def status(self) -> dict:
        """For `status`: the state, and while not up why the last connect failed."""
        return {"state": self.state, "problem": self.problem, "retry_in": self.retry_in}

    @property
    def up(self) -> bool:
        return self.state == "up"
