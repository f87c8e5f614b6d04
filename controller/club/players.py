"""Players and seating: who sits at which seat, checked, and the seats drawn by lots.

Pure: no table, no store. A player is a display name with optional identifiers (an EMA
ID, a club's own ID). The CLI writes one as ``NAME[:EMA=ID][,CLUB=ID]``; the control API
as ``{"name": ..., "ema_id": ..., "club_id": ...}``. Players are given in seat order (the
rule set's seats); ``draw`` shuffles them over those seats instead.
"""
from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from controller.errors import Refusal
from controller.language import ENGLISH, Words

MAX_NAME_BYTES = 16  # a name and its wind ("Ann East") must fit a seat display's line
MAX_ID = 32
EMA_ID = re.compile(r"\d{8}")  # the EMA's player numbers: 8 digits, the country's first
SEATINGS = ("as-given", "draw")
WIND_NAMES = ("East", "South", "West", "North")
_ID_KEYS = {"EMA": "ema_id", "CLUB": "club_id"}


@dataclass(frozen=True)
class Player:
    name: str
    ema_id: str | None = None
    club_id: str | None = None

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: dict) -> "Player":
        return cls(data["name"], data.get("ema_id"), data.get("club_id"))

    def cli_form(self) -> str:
        """The player as `mjtable start --players` takes it (``Ann:EMA=04010001``)."""
        ids = [f"{key}={getattr(self, field)}" for key, field in _ID_KEYS.items() if getattr(self, field)]
        return self.name + (":" + ",".join(ids) if ids else "")


def parse_player(text: str) -> dict:
    """``NAME[:EMA=ID][,CLUB=ID]`` as the API's player object (checked by :func:`check_players`)."""
    name, _, ids = text.partition(":")
    player = {"name": name}
    for part in filter(None, ids.split(",")):
        key, sep, value = part.partition("=")
        if not sep or key.strip().upper() not in _ID_KEYS:
            raise ValueError(f"{text!r}: an identifier is EMA=ID or CLUB=ID, not {part!r}")
        player[_ID_KEYS[key.strip().upper()]] = value.strip()
    return player


def check_players(given: Sequence, seats: Sequence[int]) -> list[Player]:
    """The API's player objects as Players, one per seat in play; Refusal (bad_request)
    naming the first problem."""
    if len(given) != len(seats):
        raise Refusal("bad_request", f"this rule set seats {len(seats)} players; {len(given)} given")
    players = [check_player(p) for p in given]
    seen: set[str] = set()
    for p in players:
        if p.name.casefold() in seen:  # "ann" and "Ann" are one person to a reader of the journal
            raise Refusal("bad_request", f"{p.name!r} is given twice; each player sits once")
        seen.add(p.name.casefold())
    for field, label in (("ema_id", "EMA ID"), ("club_id", "club ID")):  # an ID names one person (session totals)
        holders: dict[str, str] = {}
        for p in players:
            value = getattr(p, field)
            if value in holders:
                raise Refusal("bad_request", f"{holders[value]} and {p.name} have the same {label} {value}; "
                                             f"each player sits once")
            if value:
                holders[value] = p.name
    return players


def check_player(data) -> Player:
    """One API player object as a Player; Refusal (bad_request) naming what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise Refusal("bad_request", 'a player is an object with a "name" (a string)')
    unknown = set(data) - {"name", "ema_id", "club_id"}
    if unknown:
        raise Refusal("bad_request", f"a player has name, ema_id and club_id, not {', '.join(sorted(unknown))}")
    name = " ".join(data["name"].split())  # no stray spaces on the displays
    if not name:
        raise Refusal("bad_request", "a player's name is empty")
    if len(name.encode()) > MAX_NAME_BYTES:
        raise Refusal("bad_request", f"the name {name!r} is too long for the seat displays: at most "
                                     f"{MAX_NAME_BYTES} bytes ({MAX_NAME_BYTES} plain letters)")
    ema, club = data.get("ema_id"), data.get("club_id")
    if ema is not None and not (isinstance(ema, str) and EMA_ID.fullmatch(ema)):
        raise Refusal("bad_request", f"{name}'s EMA ID is 8 digits, not {ema!r}")
    if club is not None and not (isinstance(club, str) and 0 < len(club) <= MAX_ID and club.isprintable()):
        raise Refusal("bad_request", f"{name}'s club ID is 1 to {MAX_ID} printable characters, not {club!r}")
    return Player(name, ema, club)


def seat_players(players: Sequence[Player], seats: Sequence[int], seating: str,
                 rng: random.Random) -> dict[int, Player]:
    """Seat -> player: in the given order, or drawn by lots (``rng``: the seed makes it
    reproducible)."""
    order = list(players)
    if seating == "draw":
        rng.shuffle(order)
    return dict(zip(seats, order))


def as_list(seated: dict[int, Player]) -> list[dict]:
    """Seat -> player as the API and the journal show it: ``[{"seat": 0, "name": "Ann", ...}, ...]``."""
    return [{"seat": seat, **p.to_dict()} for seat, p in sorted(seated.items())]


def seat_wind(seats: Sequence[int], dealer: int, seat: int) -> str:
    """The seat's wind: East at the dealer, then counter-clockwise over the seats in play."""
    return WIND_NAMES[(seats.index(seat) - seats.index(dealer)) % len(seats)]


def seat_text(player: Player, wind: str, words: Words = ENGLISH) -> str:
    """A seat display's greeting: ``Ann East``, Ann 東."""
    return words.say("{name} {wind}", name=player.name, wind=words.say(wind))


def centre_text(seating: dict[int, Player], seats: Sequence[int], dealer: int, words: Words = ENGLISH) -> str:
    """The seating on one line, from East: ``E Ann S Bo W Cy N Di`` (a centre display
    cuts it at its 40 bytes)."""
    by_wind = sorted(seating.items(), key=lambda item: WIND_NAMES.index(seat_wind(seats, dealer, item[0])))
    return " ".join(f"{words.say(seat_wind(seats, dealer, seat)[0])} {p.name}" for seat, p in by_wind)
