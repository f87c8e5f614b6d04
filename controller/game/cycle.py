"""The hand cycle, in one place: a game's hands, each walked through the machine's setup
steps, played, settled; then the game's end.

The machine says which state follows (controller/game/machine.py); this module runs each
state's step (controller/game/steps.py) and fires ``done`` when it is done. A state
before the hand's resume point (the store's, after a restart) was done at the table
already: passed, not run. A settled hand is stored first (controller/game/record.py),
then shown; the wind marker and the next hand move tiles, so they wait for `resume`.
"""
from __future__ import annotations

from controller import rules as R
from controller.game.game import InPlay


class HandCycle:
    """Handed what it uses: what is in play, the machine, a publish function, the work,
    the steps, the displays, the results, the record, the game's clock and the stick check."""

    def __init__(self, in_play: InPlay, sm, publish, work, steps, displays, results, record, clock, sticks) -> None:
        self.in_play, self.sm, self.publish, self.work = in_play, sm, publish, work
        self.steps, self.displays, self.results, self.record = steps, displays, results, record
        self.clock, self.sticks = clock, sticks

    async def play(self) -> R.Standings:
        """Run hands until the game is over; return the final standings."""
        play = self.in_play
        if play.hand is None and play.settled == 0:
            await self.steps.open_game()
        while not play.state.finished:
            await self.play_hand()
        self.clock.stop()
        return await self.record.finish()

    async def play_hand(self) -> None:
        hand = self.in_play.game.hand_to_play()
        resume_at = self.in_play.resume_at
        await self.walk(resume_at)
        await self.work.run(self.displays.show_hand)
        await self._advance("done", already_done=resume_at == "playing")  # playing
        self.record.save_step()
        self.publish("hand_started", hand=hand.label, seq=hand.seq)
        await self.settle(await self.results.wait())

    async def walk(self, resume_at: str) -> None:
        """From ``preparing`` through the setup steps, up to the last before ``playing``."""
        sm = self.sm
        shuffling = False
        while True:
            passed = sm.passed(resume_at)
            if not passed:
                self.record.save_step()
                if sm.walls_up() and not shuffling:
                    self.steps.start_background_shuffle()  # the other tile set, while this hand is played
                    shuffling = True
                if sm.game in self.steps.steps:
                    await self.steps.steps[sm.game]()
            if sm.next_in_cycle() == "playing":
                return
            await self._advance("done", already_done=passed)

    async def _advance(self, trigger: str, already_done: bool) -> None:
        """The machine's next state. A state done at the table before a restart moves
        nothing: passed while paused too, so a hand that was in play takes its result as
        it did before the restart; the rest waits for `resume`."""
        if already_done:
            self.sm.fire(trigger)
        else:
            await self.work.advance(trigger)

    async def settle(self, result: dict) -> None:
        """Store the hand and show the scores (both move nothing, so a pause holds neither);
        then the wind marker and the next hand, which move tiles and wait for `resume`."""
        self.sm.fire("settle")
        settled = await self.record.store_hand(result)
        self.publish("hand_ended", record=settled.record)
        await self.work.run(self.displays.show_scores)
        then = "end_game" if settled.game_over else "next_hand"
        if settled.adopted:  # the store's hand: shown, and the game goes on from it
            self.sm.fire(then)
            return
        play = self.in_play
        await self.sticks.after_hand(play.hand.seq, play.state.scores, play.rules.seats)  # reads, moves nothing
        await self.work.hold_while_paused()
        if settled.wind_changed and not settled.game_over:
            await self.displays.show_wind_marker()
        await self.work.advance(then)
