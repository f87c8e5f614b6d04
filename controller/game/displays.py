"""Displays: scores, the round, the dealer lamp, the wind marker, and the centre's text
for the devices a table lacks (docs/ARCHITECTURE.md "Tables without optional devices")."""
from __future__ import annotations


from firmware_protocol.catalog import DISPLAY_MODES

from controller import rules as R
from controller.club import players as P
from controller.game.centre_text import break_text, dora_text, round_text, scores_text
from controller.game.game import InPlay

CENTRE_BYTES = 40  # the centre's one line of text


class Displays:
    """Handed what it uses: the table facade, what is in play, the settings (its display
    mode), the work; and the game's clock, once it exists."""

    def __init__(self, table, in_play: InPlay, settings, work) -> None:
        self.table, self.in_play, self.settings, self.work = table, in_play, settings, work
        self.clock = None  # the game's clock (it holds this room too): set once it exists
        self.pin: str | None = None  # the web page's player PIN for this game (controller/web), if served

    async def show_pin(self) -> None:
        """The web page's player PIN on the centre display: its last line as a game opens."""
        if self.pin is not None:
            await self.table.show_text(self.table.words.say("web PIN {pin}", pin=self.pin))

    async def show_hand(self) -> None:
        await self.show_scores()
        await self.table.set_dealer_lamp(self.in_play.state.dealer)
        await self.show_round()  # last: its text is the one the centre keeps during play

    async def show_bets(self) -> None:
        """A declared bet leaves its declarer's score and lies on the table at once."""
        await self.show_scores()
        await self.show_round()

    async def show_round(self) -> None:
        s = self.in_play.state
        await self.table.show_round(s.round_wind, s.hand_in_round, s.honba, self.displayed().riichi_sticks)
        await self.show_time()

    async def show_time(self) -> None:
        """The centre's line while a hand is played; on a session on the clock, each minute."""
        text = self._centre_line()
        if text:
            await self.table.show_text(text)

    def _centre_line(self) -> str | None:
        """The play text, and the time left of a session on the clock where the line has room."""
        text, clock = self._play_text(), self.clock.shown()
        if text is None:
            return self.clock.line()
        fitting = [line for line in (f"{text}  {shown}" for shown in clock) if len(line.encode()) <= CENTRE_BYTES]
        return fitting[0] if fitting else text

    def _play_text(self) -> str | None:
        """The centre's text while a hand is played, for the devices this table lacks: the
        dora position, else the break, else the round (without a marker or seat displays)."""
        caps, hand, words = self.table.capabilities, self.in_play.hand, self.table.words
        if hand is not None and hand.seq > self.in_play.settled and hand.separated:  # the walls of this hand are set
            setup, last = self.in_play.setup(), hand.dora_shown - 1
            if hand.dora_shown and not caps.dora_flipper:
                return dora_text(last, setup.dora_indicators[last], words)
            if not self.separates(setup):
                return break_text(setup.break_after, words)
        if not (caps.has_wind_marker and caps.seat_displays):
            return round_text(self.displayed(), words, self.in_play.rules.payment.scheme != "riichi")
        return None

    async def show_opening(self) -> None:
        """As a game opens: a drawn dealer on the centre, each player's name and starting
        wind on the seat's display (all of them on the centre's, on a table without)."""
        if self.in_play.opening_text:
            await self.table.show_text(self.in_play.opening_text)
        seats, dealer = self.in_play.rules.seats, self.in_play.state.starting_dealer
        if self.in_play.players and self.table.capabilities.seat_displays:
            for seat, player in self.in_play.players.items():
                await self.table.show_text(P.seat_text(player, P.seat_wind(seats, dealer, seat), self.table.words),
                                           seats=1 << seat)
        elif self.in_play.players:
            await self.table.show_text(P.centre_text(self.in_play.players, seats, dealer, self.table.words))
        await self.show_pin()

    def separates(self, setup: R.HandSetup) -> bool:
        """Whether the table's separator sets the dead wall apart (else the players do)."""
        return self.table.capabilities.dead_wall_separator and bool(setup.dead_wall)

    async def show_scores(self, scores=None) -> None:
        scores = scores or self.displayed().scores
        if not self.table.capabilities.seat_displays:
            await self.table.show_text(scores_text(scores, self.table.words))
            return
        mode = DISPLAY_MODES.index(self.settings.display_mode)
        shown = [s or 0 for s in scores]  # an empty side (sanma) shows 0
        await self.table.show_scores(shown, mode, self.in_play.state.dealer)

    def displayed(self) -> R.GameState:
        return self.in_play.displayed()

    async def show_wind_marker(self) -> None:
        """The round's wind at the starting dealer's seat, unless the table says it is there
        already (set before a restart, a reconnect or a pause)."""
        if not self.table.capabilities.has_wind_marker:
            return  # the round's text at the next hand says the wind

        async def mark():
            if self.in_play.state is None:
                return  # given up while this waited for `resume` (set after a recovery while paused)
            wanted = (self.in_play.state.round_wind, self.in_play.state.starting_dealer)
            status = await self.table.get_status()
            if (status["wind"], status["wind_seat"]) != wanted:
                await self.table.set_wind_marker(*wanted)
        await self.work.run(mark)
