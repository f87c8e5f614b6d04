"""The table's state machine: the hand cycle, and what holds the table's motion.

Two regions, each a `transitions` machine on the same model:

- ``game``: the hand cycle. Connect, self-test, then per hand ``preparing`` and the setup
  steps in their order (`SETUP_STEPS`), ``playing``, ``settling``, and the next hand or
  ``game_over``. The controller walks it (`walk` below): it runs the hardware step of the
  state it is in (controller/game/steps.py) and fires ``done`` when the step is done, so the
  machine alone says which step follows. Steps only go forward; one already done at the
  table (after a restart: before the stored resume point) is passed without running it.
  What the table does in each state of a hand:

  ============== ==============================================================
  preparing      nothing yet (a new game: its wind marker, a drawn dealer's text)
  collecting     ``collect_tiles``: the played set into the hopper, counted
  waiting_shuffle ``shuffle`` of a set left in the hopper, unless one is stacked
  raising        ``raise_walls``; then the other set is shuffled in the background
  awaiting_start nothing: a time-limited session's first dice wait for its start signal
  rolling        ``roll_dice``, every throw the rules ask for
  separating     ``separate_dead_wall`` (or its position on the centre display)
  revealing_dora ``flip_dora`` (or its position shown); skipped without dora
  playing        scores, round and lamp shown; riichi, kan (``flip_dora``), result
  settling       the hand stored, scores shown, ``set_wind_marker`` if the wind changed
  ============== ==============================================================

- ``motion``: ``running``, ``paused`` (the operator stopped all motion) or ``fault`` (a
  table operation, during setup or play, stopped on a fault; `retry` clears it). A pause
  or a fault holds the game where it is: the game region stays in its state and carries
  on from it.

The link to the table is the table facade's own machine (controller/table/link.py);
while it is being restored the game waits, and `state` says ``reconnecting``.

`auto_transitions=False` keeps every legal move explicit; `queued=True` makes triggers
fired from callbacks run in order.
"""
from __future__ import annotations

import logging
from collections.abc import Callable

from transitions import Machine

from controller.table.link import LINK_STATES, LINK_TRANSITIONS

# transitions logs every state entry at INFO, too loud for a table that runs all day, and
# warns that the second region's generic `trigger` method is not bound: both regions share
# the model, whose triggers are called by name.
logging.getLogger("transitions").setLevel(logging.ERROR)

START_UP = ["boot", "connecting", "self_test"]
SETUP_STEPS = ["collecting", "waiting_shuffle", "raising", "rolling", "separating", "revealing_dora"]
# Before a time-limited session's start signal the walls may be raised but the dice not
# thrown (EMA 2016 §5.9): its first hand waits here, between raising and rolling. Not a
# resume point: a restart there carries on from `raising` (the walls are up) and comes back.
AWAITING_START = "awaiting_start"
_CHAIN = ["preparing", *SETUP_STEPS[:3], AWAITING_START, *SETUP_STEPS[3:], "playing"]
# The states of a hand, from its preparation until it is stored.
HAND = [*_CHAIN, "settling"]
GAME_STATES = [*START_UP, "idle", *HAND, "game_over"]
# Where a restart carries on from (the store's `step`): each state before play.
RESUME_POINTS = ["preparing", *SETUP_STEPS, "playing"]
MOTION_STATES = ["running", "paused", "fault"]


GAME_TRANSITIONS: list[dict] = [
    {"trigger": "power_on", "source": "boot", "dest": "connecting"},
    {"trigger": "identified", "source": "connecting", "dest": "self_test"},
    {"trigger": "ready", "source": "self_test", "dest": "idle"},
    {"trigger": "start_game", "source": ["idle", "game_over"], "dest": "preparing",
     "conditions": ["reachable", "unheld"]},
    # Each setup step to the next; the dice wait for a session's start signal; without dora
    # indicators there is nothing to reveal.
    *[{"trigger": "done", "source": source, "dest": dest}
      for source, dest in zip(_CHAIN, _CHAIN[1:]) if source not in ("raising", AWAITING_START, "separating")],
    {"trigger": "done", "source": "raising", "dest": AWAITING_START, "conditions": "awaits_start"},
    {"trigger": "done", "source": "raising", "dest": "rolling", "unless": "awaits_start"},
    {"trigger": "done", "source": AWAITING_START, "dest": "rolling", "unless": "awaits_start"},
    {"trigger": "done", "source": "separating", "dest": "revealing_dora", "conditions": "has_dora"},
    {"trigger": "done", "source": "separating", "dest": "playing", "unless": "has_dora"},
    {"trigger": "settle", "source": "playing", "dest": "settling"},
    {"trigger": "next_hand", "source": "settling", "dest": "preparing"},
    {"trigger": "end_game", "source": "settling", "dest": "game_over"},
    # Reconnecting too: the store records it; the table, once back, is told what any idle
    # table is (configured; the next game's opening resumes a stopped one).
    {"trigger": "abandon", "source": [*HAND, "game_over"], "dest": "idle"},
]

MOTION_TRANSITIONS: list[dict] = [
    # Wherever anything may move (a step, the background shuffle, the wind marker); not
    # where the table cannot be reached (its watchdog stops it then).
    {"trigger": "pause", "source": "running", "dest": "paused", "conditions": ["configured", "reachable"]},
    {"trigger": "resume", "source": "paused", "dest": "running"},
    {"trigger": "fault", "source": "running", "dest": "fault", "conditions": "configured"},
    {"trigger": "retry", "source": "fault", "dest": "running"},
    # The game task failed on a bug, wherever it was: a fault until `abandon` or a restart.
    {"trigger": "game_stopped", "source": ["running", "paused"], "dest": "fault", "conditions": "in_hand"},
    # Abandoning a game held by a pause or a fault: the next game's opening resumes the table.
    {"trigger": "release", "source": ["paused", "fault"], "dest": "running"},
]


class TableMachine:
    """The model both machines decorate: ``game`` and ``motion`` hold their states, and
    each trigger, ``may_<trigger>()`` and ``is_game_<state>()`` is a method."""

    def __init__(self, *, has_dora: Callable[[], bool] = lambda: True,
                 restoring: Callable[[], bool] = lambda: False,
                 awaits_start: Callable[[], bool] = lambda: False,
                 moved: Callable[[], None] = lambda: None) -> None:
        self.has_dora = has_dora    # the rule set in play has dora indicators
        self.restoring = restoring  # the link to the table is being restored
        self.awaits_start = awaits_start  # a time-limited session's start signal is not given yet
        self.moved = moved  # told after each `fire` (the controller publishes the new state)
        Machine(model=self, states=GAME_STATES, transitions=GAME_TRANSITIONS, initial="boot",
                model_attribute="game", auto_transitions=False, queued=True)
        Machine(model=self, states=MOTION_STATES, transitions=MOTION_TRANSITIONS, initial="running",
                model_attribute="motion", auto_transitions=False, queued=True)

    def fire(self, trigger: str) -> None:
        """Fire ``trigger`` (a `MachineError` if the machine may not), then say so."""
        getattr(self, trigger)()
        self.moved()

    # ---- the one state the API, the views and the log show ----
    @property
    def state(self) -> str:
        if self.restoring():
            return "reconnecting"
        return self.game if self.motion == "running" else self.motion

    # ---- conditions (transitions calls them by name) ----
    def reachable(self) -> bool:
        return not self.restoring()

    def unheld(self) -> bool:
        return self.motion == "running"

    def configured(self) -> bool:
        """Past the start-up: the table is connected and configured."""
        return self.game not in START_UP

    def in_hand(self) -> bool:
        return self.game in HAND

    # ---- questions the controller asks ----
    def in_play(self) -> bool:
        """A hand is being played, not paused: riichi and kan are declared (a fault of the
        background work, e.g. the shuffler, does not hold the players)."""
        return self.game == "playing" and self.motion != "paused" and not self.restoring()

    def takes_result(self) -> bool:
        """A hand is waiting for its result; a pause holds none (storing moves nothing)."""
        return self.game == "playing" and not self.restoring()

    def between_games(self) -> bool:
        return self.game in ("idle", "game_over")

    def nothing_waits_on_table(self) -> bool:
        """No step is waiting on the table: a lost link is restored in the background."""
        return self.game in ("playing", "idle", "game_over") or self.motion == "paused"

    def next_in_cycle(self) -> str:
        """Where `done` leads from the game's state, its conditions as they are now."""
        for t in GAME_TRANSITIONS:
            if t["trigger"] == "done" and t["source"] == self.game and self._holds(t):
                return t["dest"]
        raise ValueError(f"no step follows {self.game}")

    def _holds(self, transition: dict) -> bool:
        return (all(getattr(self, n)() for n in _names(transition, "conditions"))
                and not any(getattr(self, n)() for n in _names(transition, "unless")))

    def walls_up(self) -> bool:
        """A setup step after the walls went up: the other tile set may be shuffled."""
        return _CHAIN.index("raising") < (_CHAIN.index(self.game) if self.game in _CHAIN[1:-1] else -1)

    def resumable(self) -> bool:
        """A state a restart may carry on from."""
        return self.game in RESUME_POINTS

    def passed(self, resume_point: str) -> bool:
        """The state the game is in comes before `resume_point`: done at the table already."""
        return _CHAIN.index(self.game) < _CHAIN.index(resume_point)


def mermaid() -> str:
    """The machine as a mermaid state diagram: the hand cycle (a hand's states drawn as one
    composite, a trigger allowed from all of them as one edge), the motion and the link."""
    lines = ["stateDiagram-v2", "  direction LR", "  state table {", "    state game {", "      [*] --> boot"]
    lines += ["      state hand {", *[f"        {s}" for s in HAND], "      }"]
    lines += [f"      {edge}" for edge in _edges(GAME_TRANSITIONS)]
    lines += ["    }", "    --", "    state motion {", "      [*] --> running"]
    lines += [f"      {edge}" for edge in _edges(MOTION_TRANSITIONS)]
    # The link's states are its own (its `connecting` is not the game's): ids prefixed.
    lines += ["    }", "    --", "    state link {", *[f'      state "{s}" as link_{s}' for s in LINK_STATES]]
    lines += [f"      [*] --> link_{LINK_STATES[0]}", *[f"      {edge}" for edge in _edges(LINK_TRANSITIONS, "link_")]]
    lines += ["    }", "  }"]
    return "\n".join(lines) + "\n"


def _edges(transitions: list[dict], prefix: str = "") -> list[str]:
    out = []
    for t in transitions:
        sources = t["source"] if isinstance(t["source"], list) else [t["source"]]
        if set(HAND) <= set(sources):
            sources = ["hand", *[s for s in sources if s not in HAND]]
        out += [f"{prefix}{source} --> {prefix}{t['dest']}: {t['trigger']}{_guard(t)}" for source in sources]
    return out


def _names(transition: dict, key: str) -> list[str]:
    value = transition.get(key, [])
    return [value] if isinstance(value, str) else value


def _guard(transition: dict) -> str:
    guards = _names(transition, "conditions") + [f"not {n}" for n in _names(transition, "unless")]
    return f" [{', '.join(guards)}]" if guards else ""
