"""The clock of a time-limited game (EMA 2016 §5.9; the figures are the rule set's
`time_limit`, the counting of hands controller/club/time_limit.py).

- The start signal: before it the walls may be raised but the dice not thrown; the first
  hand waits in the machine's ``awaiting_start`` for it (the director's `signal start`).
- The warning signal: given by the table's own clock at session − warning minutes after
  the start signal, or by the director by hand (a hall signals from one clock, and the
  session's end is then counted from it). Shown on the centre and seat displays (the
  protocol has no buzzer), published as ``time_signal``, journalled.
- The time left: on the centre display (controller/game/displays.py), refreshed each minute
  while a hand is played, and in `status`.

Time is the settings' clock (wall-clock seconds; tests give it the virtual loop's time).
The signals are stored with the hand (the store's ``hand`` record, key ``time_limit``),
and the hands after the warning are counted from the stored results, so a restart goes
on with the same clock and the same count.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from typing import Any


from controller import rules as R
from controller.errors import Refusal
from controller.club.time_limit import SIGNALS, STORED_KEY, HandCount, iso
from controller.game.game import InPlay
from controller.language import ENGLISH, Words

log = logging.getLogger("mjtable.controller")


def check_time_limit(rules: R.RuleSet, name: str) -> None:
    """Refuse a game on the clock when the rule set gives no figures for one."""
    if rules.time_limit is None:
        raise Refusal("not_allowed", f"rule set {name} has no time limit: a time_limit section "
                                     "(session_minutes, warning_minutes, hands_after_signal) gives one")


def time_left_text(seconds: float) -> str:
    """``52:10``: minutes and seconds left, never below 0:00. Rounded to the millisecond
    first: an end 900 s after a signal, less the signal's time, is 900.0000000000002 for
    one moment in six, which would show 15:01 the instant the warning is given."""
    minutes, secs = divmod(max(0, math.ceil(round(seconds, 3))), 60)
    return f"{minutes}:{secs:02d}"


def hands_text(count: HandCount, words: Words = ENGLISH) -> str:
    """What the players still play after the warning."""
    more = count.hands_left - int(count.in_hand)
    if count.in_hand:
        return words.say("this hand is the last") if more == 0 else words.say("this hand and {more} more", more=more)
    return words.say("the next hand is the last") if more == 1 else words.say("{more} more hands", more=more)


class GameClock:
    """Handed what it uses: what is in play, the table facade, the machine, a publish
    function, a spawner, the settings (its clock), the work, the displays and the record."""

    def __init__(self, in_play: InPlay, table, sm, publish, spawn, settings, work, displays, record) -> None:
        self.in_play, self.table, self.sm, self.publish, self.spawn = in_play, table, sm, publish, spawn
        self.settings, self.work, self.displays, self.record = settings, work, displays, record
        self.limit: R.TimeLimit | None = None  # None: the game in play is not on the clock
        self.signals: list[dict[str, Any]] = []  # {"signal", "at", "by", "seq", "dice_thrown"}, in order
        self.ended = False                       # the limit, not the rules, ended the game
        self._started = asyncio.Event()
        self._rolling: int | None = None         # the hand whose dice are being thrown
        self._timer: asyncio.Task | None = None

    # ---- a game on the clock, or not ----
    def begin(self, limit: R.TimeLimit | None) -> None:
        """A new game: on the clock with these figures, or (None) not."""
        self.stop()
        self.limit, self.signals, self.ended, self._rolling = limit, [], False, None
        self._started.clear()

    def stored(self) -> dict[str, Any]:
        """What the store keeps with the hand: nothing for a game off the clock."""
        if self.limit is None:
            return {}
        return {STORED_KEY: {"figures": dataclasses.asdict(self.limit), "signals": list(self.signals)}}

    def restore(self, stored: dict[str, Any] | None, rules_finished: bool) -> bool:
        """The clock of a stored game; True when the limit has ended it."""
        self.begin(R.ruleset.TimeLimit(**stored["figures"]) if stored else None)
        if stored is None:
            return False
        self.signals = list(stored["signals"])
        if self._signal("start"):
            self._started.set()
        self.ended = self.count.over and not rules_finished
        if self._started.is_set() and not self.count.over:
            self._arm()
        return self.count.over

    def stop(self) -> None:
        """The game is over or given up: the clock stops."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # ---- the machine's guard and the hand cycle ----
    def awaits_start(self) -> bool:
        """The dice of the session's first hand wait for the start signal."""
        return self.limit is not None and not self._started.is_set()

    async def wait_for_start(self) -> None:
        await self._started.wait()

    def dice_thrown(self) -> None:
        """The first throw of the hand in play begins: from now on it is a hand begun."""
        self._rolling = self.in_play.hand.seq

    def over(self) -> bool:
        """Every hand after the warning is played."""
        return self.limit is not None and self.count.over

    def ends_with(self, chombo: bool) -> bool:
        """The hand in play, ended so (a chombo or not), is the session's last."""
        return self.limit is not None and self.count.hand_ended(chombo).over

    @property
    def count(self) -> HandCount:
        """The hands after the warning, from the signal and the results stored since."""
        warning = self._signal("warning")
        n = self.limit.hands_after_signal
        hand = self.in_play.hand
        in_hand = hand is not None and hand.seq > self.in_play.settled and (bool(hand.throws) or self._rolling == hand.seq)
        if warning is None:
            return HandCount(n, in_hand=in_hand)
        since = self.in_play.results_so_far[warning["seq"] - 1:]
        return HandCount.after_signal(n, warning["dice_thrown"], (r["kind"] == "chombo" for r in since), in_hand)

    # ---- the signals ----
    def give(self, signal: str, by: str = "director") -> dict[str, Any]:
        """A signal: recorded, stored, published and shown (in the background: the table may
        be faulted or out of reach); refused, changing nothing, when it does not fit the
        session as it stands. Returns the clock's status."""
        self._check(signal)
        record = {"signal": signal, "at": self.now(), "by": by, "seq": self.in_play.settled + 1,
                  "dice_thrown": self.count.in_hand}
        self.signals.append(record)
        self.record.save_clock()
        log.info("%s signal (%s) at %s", signal, by, iso(record["at"]))
        if signal == "start":
            self._started.set()
            self._arm()
        self.publish("time_signal", signal=signal, by=by, at=iso(record["at"]), seq=record["seq"],
                  dice_thrown=record["dice_thrown"], hands_left=self.count.hands_left)
        if signal == "warning":
            self.spawn(self.work.run(self._show_warning), "warning signal")
            if asyncio.current_task() is not self._timer:  # the director's: the end is counted from it
                self.stop()
                self._arm()
        return self.status()

    def _check(self, signal: str) -> None:
        if signal not in SIGNALS:
            raise Refusal("bad_request", f"signal must be one of {', '.join(SIGNALS)}")
        if self.limit is None or self.in_play.state is None:
            raise Refusal("not_allowed", "no game on the clock is in play; start a game with its time limit first")
        if self.in_play.state.finished:
            raise Refusal("not_allowed", "the game is over: the session's clock has stopped")
        given = self._signal(signal)
        if given is not None:
            raise Refusal("not_allowed", f"the {signal} signal was given already, at {iso(given['at'])}")
        if signal == "warning" and not self._started.is_set():
            raise Refusal("not_allowed", "the session has not begun: give the start signal first")

    def _signal(self, name: str) -> dict[str, Any] | None:
        return next((s for s in self.signals if s["signal"] == name), None)

    async def _show_warning(self) -> None:
        text = self.line()
        await self.table.show_text(text)
        seats = sum(1 << seat for seat in self.in_play.rules.seats)
        await self.table.show_text(text, seats=seats)

    # ---- time ----
    def now(self) -> float:
        return self.settings.clock()

    def warning_due(self) -> float:
        """When the table's own clock gives the warning."""
        limit = self.limit
        return self._signal("start")["at"] + 60 * (limit.session_minutes - limit.warning_minutes)

    def ends_at(self) -> float:
        """The session's end: from the start signal, or from the warning once given."""
        warning = self._signal("warning")
        if warning is not None:
            return warning["at"] + 60 * self.limit.warning_minutes
        return self._signal("start")["at"] + 60 * self.limit.session_minutes

    def seconds_left(self) -> float:
        return max(0.0, self.ends_at() - self.now())

    def line(self) -> str | None:
        """The centre's line of a session on the clock, when it has nothing else to show:
        the time left, and after the warning what the players still play."""
        shown = self.shown()
        if not shown:
            return None
        count, words = self.count, self.table.words
        if count.signalled:
            return words.say("TIME {left}: {hands}", left=shown[-1], hands=hands_text(count, words))
        return words.say("time left {left}", left=shown[-1])

    def shown(self) -> list[str]:
        """The time left as the centre display shows it, longest first: with the hands left
        after the warning, then alone; none off the clock or before the start signal."""
        if self.limit is None or not self._started.is_set() or self.in_play.state is None or self.in_play.state.finished:
            return []
        left, count = time_left_text(self.seconds_left()), self.count
        if not count.signalled:
            return [left]
        words = self.table.words
        return [words.say("{left} last hand", left=left) if count.last_hand
                else words.say("{left} {hands} hands", left=left, hands=count.hands_left), left]

    def _arm(self) -> None:
        if self._timer is None or self._timer.done():
            self._timer = self.spawn(self._keep_time(), "session clock")

    async def _keep_time(self) -> None:
        """The warning when it is due, and the time left shown each whole minute until the
        end; there is no signal at the end (the players finish their hands)."""
        while self._running():
            now = self.now()
            warned = self._signal("warning") is not None
            if not warned and now >= self.warning_due():
                self.give("warning", by="table")
                continue
            left = self.ends_at() - now
            if left <= 0.001:
                return
            wake = self.ends_at() - 60 * math.floor((left - 0.001) / 60)  # the next whole minute left
            if not warned:
                wake = min(wake, self.warning_due())
            await asyncio.sleep(wake - now)
            if self.sm.in_play():
                await self.work.run(self.displays.show_time)

    def _running(self) -> bool:
        return self.limit is not None and self.in_play.state is not None and not self.in_play.state.finished and not self.count.over

    # ---- status ----
    def status(self) -> dict[str, Any] | None:
        if self.limit is None:
            return None
        start, warning, count = self._signal("start"), self._signal("warning"), self.count
        started = start is not None
        return {**dataclasses.asdict(self.limit),
                "started_at": iso(start["at"]) if started else None,
                "warning_at": iso(warning["at"] if warning else self.warning_due()) if started else None,
                "ends_at": iso(self.ends_at()) if started else None,
                "seconds_left": round(self.seconds_left()) if started else None,
                "signalled": warning is not None,
                "signalled_by": warning["by"] if warning else None,
                "hands_left": count.hands_left, "last_hand": count.last_hand, "ended": self.ended}
