"""Running totals per player over a set of games (a club session, and any other set).

Pure: no store, no table. A game is given as ``(players, final)``: seat -> player
(``{"name", "ema_id", "club_id"}``, the store's form) and the store's final standings
(``{"scores", "final_scores", "ranks"}``), or None for a game that did not finish. Only
finished games with named players count: an abandoned game (or one in play) has no
standings, and an anonymous game has nobody to credit (its seats are not people).

Totals follow people, not seats: a player is the same person in every game where he has
the same EMA ID; without one, the same club ID; without either, the same name (case
aside). So a player given with his EMA ID in one game and without it in another has two
lines: give players the same way all evening.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Key = tuple[str, str]
SeatPlayers = Mapping[int, Mapping]


def player_key(player: Mapping) -> Key:
    """Who a player is across games: ("ema", ID), else ("club", ID), else ("name", name)."""
    if player.get("ema_id"):
        return ("ema", player["ema_id"])
    if player.get("club_id"):
        return ("club", player["club_id"])
    return ("name", player["name"].casefold())


def counts(players: SeatPlayers, final: Mapping | None) -> bool:
    """Whether a game counts in the totals: it finished, and its players are named."""
    return bool(players) and final is not None


@dataclass(frozen=True)
class PlayerTotal:
    """One person's line: ``score`` sums the scores at each game's end, ``table_points``
    the final scores after uma and oka (the store's ``final_scores``)."""
    name: str               # as given in his latest game
    ema_id: str | None
    club_id: str | None
    games: int
    score: int
    table_points: int
    ranks: tuple[int, ...]  # his place in each game, in game order

    @property
    def key(self) -> Key:
        return player_key({"name": self.name, "ema_id": self.ema_id, "club_id": self.club_id})

    @property
    def average_rank(self) -> float:
        return round(sum(self.ranks) / len(self.ranks), 2)

    def to_dict(self) -> dict:
        ids = {k: v for k, v in (("ema_id", self.ema_id), ("club_id", self.club_id)) if v is not None}
        return {"name": self.name, **ids, "games": self.games, "score": self.score,
                "table_points": self.table_points, "average_rank": self.average_rank, "ranks": list(self.ranks)}


def running_totals(games: Iterable[tuple[SeatPlayers, Mapping | None]]) -> list[PlayerTotal]:
    """Each person's totals over the games that count, best first: by table points, then
    score, then average rank, then name."""
    lines: dict[Key, PlayerTotal] = {}
    for players, final in games:
        if not counts(players, final):
            continue
        for seat, player in players.items():
            key = player_key(player)
            lines[key] = _added(lines.get(key), player, final, seat)
    return sorted(lines.values(), key=lambda t: (-t.table_points, -t.score, t.average_rank, t.name.casefold()))


def _added(line: PlayerTotal | None, player: Mapping, final: Mapping, seat: int) -> PlayerTotal:
    """``line`` with one more game: the player at ``seat`` of a game ending with ``final``."""
    line = line or PlayerTotal(player["name"], None, None, games=0, score=0, table_points=0, ranks=())
    return PlayerTotal(
        name=player["name"],
        ema_id=player.get("ema_id") or line.ema_id,
        club_id=player.get("club_id") or line.club_id,
        games=line.games + 1,
        score=line.score + final["scores"][seat],
        table_points=line.table_points + final["final_scores"][seat],
        ranks=line.ranks + (final["ranks"][seat],),
    )
