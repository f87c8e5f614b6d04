"""Club sessions: consecutive games at the table (a club night) and each player's running
totals over them (docs/SESSIONS.md).

The store keeps the sessions and which games belong to one (a game started while a
session is open); this room opens and closes them for the control API, reports a
session's games and totals (controller/club/totals.py computes them), keeps the open
session for `status`, and puts the totals on the table's displays: after each game when
the session was started with ``show_totals``, and on request between games.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from controller.errors import Refusal
from controller.language import ENGLISH, Words
from controller.club.totals import PlayerTotal, counts, player_key, running_totals
from controller.store.database import Game, Session, StoreError
from controller.store.writer import kept_database
from controller.table.facade import TableError

log = logging.getLogger("mjtable.sessions")

MAX_NAME = 64  # a session's name, in characters
Display = tuple[int, str]  # (seat mask, text): 0 is the centre display
# A Store method called by name: the store thread's `call` in the controller, the Store's
# own methods in `mjtable session show` without a controller.
StoreCall = Callable[..., Awaitable]
SessionGames = Sequence[tuple[Game, Mapping[int, dict]]]


async def chosen_session(call: StoreCall, session_id: int | None) -> Session:
    """Session ``session_id``, or by default the open one, else the latest; Refusal when
    there is none such."""
    sessions = await call("sessions")
    if not sessions:
        raise Refusal("not_allowed", "no session yet: start one first")
    if session_id is None:
        return await call("open_session") or sessions[-1]
    known = {s.id: s for s in sessions}
    if session_id not in known:
        raise Refusal("bad_request", f"no session {session_id}; known: {', '.join(map(str, known))}")
    return known[session_id]


async def session_games(call: StoreCall, session_id: int) -> SessionGames:
    """The session's games, oldest first, each with its players (seat -> player)."""
    return [(g, await call("players", g.id)) for g in await call("games", session_id=session_id)]


def totals_of(games: SessionGames) -> list[PlayerTotal]:
    return running_totals((players, game.final) for game, players in games)


def session_report(session: Session, games: SessionGames) -> dict:
    """The reply of `session_show`: the session, each of its games (``counted`` or not,
    and why not by its ``status`` and ``players``), and the running totals."""
    return {
        "session": {**_session_fields(session), "ended_at": session.ended_at, "games": len(games)},
        "games": [_game_line(game, players) for game, players in games],
        "totals": [t.to_dict() for t in totals_of(games)],
    }


def _session_fields(session: Session) -> dict:
    return {"id": session.id, "name": session.name, "show_totals": session.show_totals,
            "started_at": session.started_at}


def _game_line(game: Game, players: Mapping[int, dict]) -> dict:
    line = {"id": game.id, "status": game.status, "counted": counts(players, game.final),
            "started_at": game.started_at, "players": [{"seat": s, **p} for s, p in sorted(players.items())]}
    if game.final is not None:
        line.update(final_scores=game.final["final_scores"], ranks=game.final["ranks"])
    return line


def display_texts(totals: Sequence[PlayerTotal], players: Mapping[int, Mapping], seat_displays: bool,
                  words: Words = ENGLISH) -> list[Display]:
    """Each seated player's running total: on his seat's display (``Ann total +25200``),
    or all of them on the centre's, best first (``totals Ann +25200 Bo -3000 ...``; the
    centre display cuts it at its 40 bytes)."""
    by_key = {t.key: t for t in totals}
    seated = {seat: by_key[player_key(p)] for seat, p in players.items() if player_key(p) in by_key}
    if seat_displays:
        return [(1 << seat, words.say("{name} total {points}", name=t.name, points=format(t.table_points, "+d")))
                for seat, t in sorted(seated.items())]
    if not seated:
        return []
    best_first = [t for t in totals if t in seated.values()]
    return [(0, words.say("totals {totals}", totals=" ".join(f"{t.name} {t.table_points:+d}" for t in best_first)))]


class ClubSessions:
    """Handed what it uses: the store's writer (None without a store), the table facade, the
    machine (between games?), and the controller's publish and subscribe."""

    def __init__(self, db, table, sm, publish: Callable[..., None], subscribe) -> None:
        self.db, self.table, self.sm, self.publish = db, table, sm, publish
        self.open: Session | None = None
        self.games = 0  # the games started in the open session
        self._changing = asyncio.Lock()  # one start or end at a time: the check, then the write
        subscribe(self._on_event)

    def _on_event(self, event: dict) -> None:
        if event["event"] == "game_started" and self.open is not None:
            self.games += 1  # the store put it in the open session

    async def load(self) -> None:
        """The open session, as the store has it (at start-up)."""
        if self.db is not None:
            self.open = await self.db.call("open_session")
            self.games = len(await self.db.call("games", session_id=self.open.id)) if self.open else 0

    def status(self) -> dict | None:
        """`status`'s ``session``: the open session, or None."""
        return None if self.open is None else {**_session_fields(self.open), "games": self.games}

    # ---- the control API ----
    async def start(self, name: str = "", show_totals: bool = False) -> dict:
        self._db()
        name = " ".join(name.split())
        if len(name) > MAX_NAME or not name.isprintable():
            raise Refusal("bad_request", f"a session's name is at most {MAX_NAME} printable characters")
        async with self._changing:
            if self.open is not None:
                raise Refusal("not_allowed", f"session {self.open.id}{_called(self.open)} is open (since "
                                             f"{self.open.started_at}); end it first")
            session = await self._write("start_session", name, show_totals=show_totals)
            self.open, self.games = session, 0
        log.info("session %d%s started%s", session.id, _called(session),
                 "; the totals show on the table after each game" if show_totals else "")
        self.publish("session_started", session=self.status())
        return {"session": self.status()}

    async def end(self) -> dict:
        db = self._db()
        async with self._changing:
            if self.open is None:
                raise Refusal("not_allowed", "no session is open; nothing to end")
            session = await self._write("end_session")
            self.open, self.games = None, 0
        log.info("session %d%s ended", session.id, _called(session))
        self.publish("session_ended", session={**_session_fields(session), "ended_at": session.ended_at})
        return session_report(session, await session_games(db.call, session.id))

    async def show(self, session: int | None = None, on_table: bool = False) -> dict:
        """The report of session ``session`` (default: the open one, else the latest);
        with ``on_table`` its totals go on the displays too."""
        db = self._db()
        chosen = await chosen_session(db.call, session)
        if on_table:
            self._check_displays()
        games = await session_games(db.call, chosen.id)
        if on_table:
            await self._show_now(chosen, games)
        return session_report(chosen, games)

    # ---- the displays ----
    async def after_game(self, game_id: int) -> list[Display]:
        """What to show after game ``game_id``'s final standings: each seated player's
        running total, when its session shows totals; [] otherwise. A store that cannot
        be read costs the courtesy, not the game's end."""
        db = self.db
        if db is None:
            return []
        try:
            game = await db.call("game", game_id)
            if game.session_id is None or not (await db.call("session", game.session_id)).show_totals:
                return []
            games = await session_games(db.call, game.session_id)
        except StoreError as exc:
            log.warning("the session's totals are not shown: %s", exc)
            return []
        return self._texts(games, next(players for g, players in games if g.id == game_id))

    def _texts(self, games: SessionGames, players: Mapping[int, dict]) -> list[Display]:
        return display_texts(totals_of(games), players, self.table.capabilities.seat_displays, self.table.words)

    def _check_displays(self) -> None:
        if not self.sm.between_games():
            raise Refusal("not_allowed", f"the displays show the game in play (state {self.sm.state}); "
                                         f"show the totals between games")
        if not self.table.connected or self.table.capabilities is None:
            raise Refusal("not_allowed", "the table is not connected")

    async def _show_now(self, session: Session, games: SessionGames) -> None:
        """On the seats of the session's latest game with named players."""
        seated = [players for _, players in reversed(games) if players]
        if not seated:
            raise Refusal("not_allowed", f"session {session.id} has no game with named players: "
                                         f"no totals to show")
        try:
            for seats, text in self._texts(games, seated[0]):
                await self.table.show_text(text, seats=seats)
        except TableError as exc:
            raise Refusal("not_allowed", f"the table: {exc}") from None

    # ---- the store ----
    def _db(self):
        return kept_database(self.db, "no sessions")

    async def _write(self, method: str, *args, **kwargs):
        try:
            return await self._db().call(method, *args, **kwargs)
        except StoreError as exc:
            raise Refusal("store_failed", f"{exc}; nothing changed") from None


def _called(session: Session) -> str:
    return f" ({session.name})" if session.name else ""

