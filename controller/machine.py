"""The table's state machine: which step may follow which.

The machine holds decisions only; the controller runs the hardware operation of each
state and fires the next trigger when the operation's completion event arrives.
`auto_transitions=False` keeps every legal move explicit (and the diagram readable);
`queued=True` makes triggers fired from callbacks run in order.
"""
from __future__ import annotations

import logging

from transitions import Machine

# transitions logs every state entry at INFO: too loud for a table that runs all day.
logging.getLogger("transitions").setLevel(logging.WARNING)

SETUP_STEPS = ["collecting", "waiting_shuffle", "raising", "rolling", "separating", "revealing_dora"]
GAME_STATES = ["preparing", *SETUP_STEPS, "playing", "paused", "settling", "fault", "recovering"]
STATES = ["boot", "connecting", "self_test", "idle", *GAME_STATES, "reconnecting", "game_over"]

# Setup steps run in this order but each may be skipped when the table already is past
# it (reconciled from get_status), so any step may follow an earlier one.
_STEP_TRIGGERS = {
    "collect": "collecting",
    "wait_shuffle": "waiting_shuffle",
    "raise_walls": "raising",
    "roll": "rolling",
    "separate": "separating",
    "reveal_dora": "revealing_dora",
}

# Where anything may move (a setup step, the background shuffle during play and after the
# last hand, the wind marker): `pause` stops the table there. Not in `fault` (a fault has
# stopped it already) nor where the table cannot be reached.
PAUSABLE = ["preparing", *SETUP_STEPS, "playing", "settling", "recovering", "idle", "game_over"]

# `resume` goes through recovering back to the state the pause held, by these triggers
# (a setup step re-enters its own step, as after a fault).
BACK_FROM_PAUSE = {**{dest: trigger for trigger, dest in _STEP_TRIGGERS.items()}, "preparing": "next_hand",
                   "playing": "play", "settling": "settle", "idle": "back_to_idle", "game_over": "end_game"}

TRANSITIONS: list[dict] = [
    {"trigger": "power_on", "source": "boot", "dest": "connecting"},
    {"trigger": "identified", "source": "connecting", "dest": "self_test"},
    {"trigger": "ready", "source": "self_test", "dest": "idle"},
    {"trigger": "start_game", "source": ["idle", "game_over"], "dest": "preparing"},
    *[{"trigger": trigger, "source": ["preparing", "recovering", *SETUP_STEPS], "dest": dest}
      for trigger, dest in _STEP_TRIGGERS.items()],
    {"trigger": "play", "source": ["preparing", "recovering", *SETUP_STEPS], "dest": "playing"},
    {"trigger": "pause", "source": PAUSABLE, "dest": "paused"},
    {"trigger": "resume", "source": "paused", "dest": "recovering"},
    {"trigger": "settle", "source": ["playing", "recovering"], "dest": "settling"},
    {"trigger": "next_hand", "source": ["settling", "recovering"], "dest": "preparing"},
    {"trigger": "end_game", "source": ["settling", "recovering"], "dest": "game_over"},
    {"trigger": "fault", "source": ["preparing", "settling", "recovering", *SETUP_STEPS], "dest": "fault"},
    {"trigger": "retry", "source": "fault", "dest": "recovering"},
    # The game task failed on a bug, wherever it was: a fault until `abandon` or a restart.
    {"trigger": "game_stopped", "source": GAME_STATES + ["reconnecting"], "dest": "fault"},
    {"trigger": "link_lost", "source": [s for s in STATES if s not in ("boot", "connecting", "reconnecting")],
     "dest": "reconnecting"},
    {"trigger": "reconnected", "source": "reconnecting", "dest": "recovering"},
    {"trigger": "back_to_idle", "source": "recovering", "dest": "idle"},
    {"trigger": "abandon", "source": GAME_STATES + ["game_over"], "dest": "idle"},
]


class TableMachine:
    """The model object `transitions` decorates with `state` and the trigger methods."""

    def __init__(self) -> None:
        self.machine = Machine(model=self, states=STATES, transitions=TRANSITIONS, initial="boot",
                               auto_transitions=False, queued=True)


def mermaid() -> str:
    """The machine as a mermaid state diagram, drawn by transitions (no graphviz needed)."""
    from transitions.extensions import GraphMachine

    model = type("Diagram", (), {})()
    GraphMachine(model=model, states=STATES, transitions=TRANSITIONS, initial="boot",
                 auto_transitions=False, graph_engine="mermaid", title="mjtable controller")
    return model.get_graph().draw(None)
