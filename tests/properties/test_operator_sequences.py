"""Random sequences of operator verbs, table faults, line cuts, MCU resets and controller
restarts against the simulated table in virtual time (hypothesis's rule-based state
machine; the rig is harness.py). After every step:

- no motion command reaches the table between a pause's `stop` and the operator's `resume`,
  and none is refused as STOPPED there either;
- no request is answered ``internal``, none goes unanswered, and no game ends in E304;
- every acknowledged result is in the store, once, as sent;
- every stored hand's dice and dead wall are what the trace shows the table rolled and
  separated.

At the end the operator does what the status says (resume, close the lid and retry, enter
results) and the game must reach game over within a bounded virtual time: never stuck.

Reproducible by default (derandomised, no example database); MJTABLE_PROPERTY_EXAMPLES=N
runs N random examples instead (docs/TESTING.md).
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from .harness import Rig

WAITS = st.sampled_from([0.0, 0.5, 2.0, 5.0, 15.0, 40.0])  # virtual seconds after a step
VERBS = ["start", "pause", "resume", "retry", "abandon", "result", "kan"]
OTHER_VERBS = ["start", "retry", "abandon", "kan", "riichi"]  # pause, resume, result: rules of their own, drawn more often
MEMORY = Path("/dev/shm")  # the store's synchronous writes cost nothing there
LONG_RUN = int(os.environ.get("MJTABLE_PROPERTY_EXAMPLES", "0"))


class OperatorAtTheTable(RuleBasedStateMachine):
    rig: Rig | None = None

    @initialize(seed=st.integers(0, 10_000), wait=WAITS)
    def power_on(self, seed, wait):
        self.folder = Path(tempfile.mkdtemp(prefix="mjprop-", dir=MEMORY if MEMORY.is_dir() else None))
        self.rig = Rig(self.folder, seed)
        self.rig.advance(5.0)  # connected, self-tested
        self.rig.send("start")
        self.rig.advance(wait)

    # ---- the operator ----
    @rule(wait=WAITS)
    def pause(self, wait):
        self._send("pause")
        self.rig.advance(wait)

    @rule(wait=WAITS)
    def resume(self, wait):
        self._send("resume")
        self.rig.advance(wait)

    @rule(wait=WAITS)
    def result(self, wait):
        self._send("result")
        self.rig.advance(wait)

    @rule(verb=st.sampled_from(OTHER_VERBS), wait=WAITS)
    def operator(self, verb, wait):
        self._send(verb)
        self.rig.advance(wait)

    @rule(first=st.sampled_from(VERBS), second=st.sampled_from(VERBS), wait=WAITS)
    def two_in_one_write(self, first, second, wait):
        self._send(first)
        self._send(second)
        self.rig.advance(wait)

    @rule(wait=WAITS)
    def resend_last_result(self, wait):
        if self.rig.acknowledged:
            last = self.rig.acknowledged[-1]
            self.rig.send("result", hand=last.seq, result=last.result)
        self.rig.advance(wait)

    @rule()
    def start_at_game_over(self):
        self.rig.start_at_game_over()
        self.rig.advance(2.0)

    @rule(seconds=st.sampled_from([1.0, 10.0, 60.0, 200.0]))
    def time_passes(self, seconds):
        self.rig.advance(seconds)

    def _send(self, verb):
        if verb == "riichi":
            self.rig.send("riichi", seat=self.rig.players.rng.choice(self.rig.rules.seats))
        elif verb == "result":
            due = self.rig.result_for_hand_in_play()
            if due is not None:
                self.rig.send("result", hand=due[0], result=due[1])
        else:
            self.rig.send(verb)

    # ---- the table ----
    @rule(event=st.sampled_from(["jam_next_shuffle", "stick_next_lift", "open_lid", "close_lid", "reset_mcu"]),
          wait=WAITS)
    def the_table(self, event, wait):
        getattr(self.rig, event)()
        self.rig.advance(wait)

    @rule(unplugged=st.sampled_from([0.0, 2.0, 10.0]), wait=WAITS)
    def cut_line(self, unplugged, wait):
        self.rig.cut_line(unplugged)
        self.rig.advance(wait)

    @rule(down_for=st.sampled_from([0.2, 2.0, 8.0]), wait=WAITS)  # 8 s: past the table's watchdog
    def restart_controller(self, down_for, wait):
        self.rig.restart(down_for)
        self.rig.advance(wait)

    # ---- the checks ----
    @invariant()
    def invariants_hold(self):
        if self.rig is not None:
            self.rig.check()

    def teardown(self):
        if self.rig is None:
            return
        try:
            if sys.exc_info()[0] is None:  # a step failed already: that is the finding
                self.rig.play_to_game_over()
        finally:
            self.rig.close()
            shutil.rmtree(self.folder, ignore_errors=True)


# Each replay of a sequence plays games, so shrinking a failure takes minutes: the suite
# reports the sequence as found, and MJTABLE_PROPERTY_SHRINK=1 shrinks it (docs/TESTING.md).
SHRINK = bool(os.environ.get("MJTABLE_PROPERTY_SHRINK"))
OperatorAtTheTable.TestCase.settings = settings(
    max_examples=LONG_RUN or 12,
    stateful_step_count=30,
    derandomize=not LONG_RUN,
    database=None,
    print_blob=True,
    report_multiple_bugs=False,  # the first failure only
    phases=[Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if SHRINK else []),
)
test_operator_sequences = OperatorAtTheTable.TestCase
