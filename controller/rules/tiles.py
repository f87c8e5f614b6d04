"""A riichi hand scored from its tiles: the winner's tiles, the winning tile, the melds and
the circumstances in, the yaku with their han, the fu and the limit out — computed by the
kept `mahjong` package (imported on the first hand scored, so a table that never scores by
tiles never loads it), then entered as the han/fu result the rules engine pays.

Tiles are written as people write them: digits before their suit, ``m`` characters, ``p``
circles, ``s`` bamboos, ``z`` honours (1-4 East South West North, 5-7 white green red),
``0`` a red five (``123m 406p 789s 11z``; spaces are ignored). The hand is the concealed
tiles with the winning tile among them; each meld is given apart, a kan counting as three.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from controller.rules.geometry import turn_order
from controller.rules.payments import limit_name
from controller.rules.progression import GameState
from controller.rules.result import ResultError, Win
from controller.rules.ruleset import RuleSet


class TilesError(ResultError):
    """A hand the tiles do not make, in the player's words."""


MELD_KINDS = ("chi", "pon", "kan", "closed_kan", "added_kan")
FLAGS = ("ippatsu", "double_riichi", "haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou")
_SUITS = {"m": 0, "p": 9, "s": 18, "z": 27}
_GROUP = re.compile(r"([0-9]+)([mps])|([1-7]+)(z)")
_FIVES = (4, 13, 22)  # 5m 5p 5s: the kinds a red five can be
_HAND_SIZE = 14  # a kan counts as three

# the library's reasons, as a player reads them
_REFUSALS = {
    "hand_not_winning": "not a winning hand",
    "no_yaku": "no yaku: the hand needs at least one yaku (dora are not yaku)",
    "open_hand_riichi_not_allowed": "riichi needs a closed hand (a closed kan keeps it closed)",
    "open_hand_daburi_not_allowed": "double riichi needs a closed hand",
    "ippatsu_without_riichi_not_allowed": "ippatsu needs riichi by the winner",
    "chankan_with_tsumo_not_allowed": "robbing a kan (chankan) is a win on another's kan, not a self-draw",
    "rinshan_without_tsumo_not_allowed": "a win on the kan's replacement tile (rinshan) is a self-draw",
    "haitei_without_tsumo_not_allowed": "haitei is a self-draw of the last tile; on its discard it is houtei",
    "houtei_with_tsumo_not_allowed": "houtei is a win on the last discard; a self-draw of the last tile is haitei",
    "haitei_with_rinshan_not_allowed": "haitei and rinshan cannot both be: the last tile is not a replacement tile",
    "houtei_with_chankan_not_allowed": "houtei and chankan cannot both be",
    "tenhou_not_as_dealer_not_allowed": "tenhou is the dealer's; a non-dealer's first-draw win is chiihou",
    "tenhou_without_tsumo_not_allowed": "tenhou is a self-draw",
    "tenhou_with_meld_not_allowed": "tenhou has no melds",
    "chiihou_as_dealer_not_allowed": "chiihou is a non-dealer's; the dealer's first-draw win is tenhou",
    "chiihou_without_tsumo_not_allowed": "chiihou is a self-draw",
    "chiihou_with_meld_not_allowed": "chiihou has no melds",
}


@dataclass(frozen=True)
class Scored:
    """A hand's value as the library found it: enter ``win(seat)`` as the result."""
    han: int
    fu: int
    yakuman: int
    yaku: tuple[tuple[str, int], ...]       # (name, han), dora included
    fu_parts: tuple[tuple[str, int], ...]   # (reason, fu) before rounding
    limit: str | None

    def win(self, seat: int) -> dict[str, int]:
        if self.yakuman:
            return {"seat": seat, "yakuman": self.yakuman}
        return {"seat": seat, "han": self.han, "fu": self.fu}

    def breakdown(self) -> dict[str, Any]:
        return {"yaku": [{"name": n, "han": h} for n, h in self.yaku], "han": self.han, "fu": self.fu,
                "fu_parts": [{"reason": r, "fu": f} for r, f in self.fu_parts], "yakuman": self.yakuman,
                "limit": self.limit}


@dataclass(frozen=True)
class _Tile:
    kind: int   # 0-33: 1m..9m, 1p..9p, 1s..9s, East..red dragon
    red: bool


def parse_tiles(text: Any, where: str) -> list[_Tile]:
    """``123m0p11z`` as tiles; TilesError saying what is wrong with it."""
    if not isinstance(text, str):
        raise TilesError(f"{where} must be tiles written like 123m456p789s11z, got {text!r}")
    compact = re.sub(r"\s+", "", text)
    if not compact or not re.fullmatch(f"(?:{_GROUP.pattern})+", compact):
        raise TilesError(f"{where} {text!r} are not tiles: write digits before their suit, m p s (0 a red "
                         "five) or z (1-7: East South West North white green red), as in 123m456p789s11z")
    tiles = []
    for digits, suit, honours, z in _GROUP.findall(compact):
        for d in digits or honours:
            n = int(d) or 5
            tiles.append(_Tile(_SUITS[suit or z] + n - 1, d == "0"))
    return tiles


def _name(t: _Tile) -> str:
    if t.kind >= 27:
        return f"{t.kind - 26}z"
    return f"{0 if t.red else t.kind % 9 + 1}{'mps'[t.kind // 9]}"


_HONOUR_NAMES = ("east", "south", "west", "north", "white", "green", "red")


def _kinds_of(rules: RuleSet) -> frozenset[int]:
    """The kinds the set has: those its dora order names (sanma's characters are 1 and 9)."""
    if rules.dora is None:
        return frozenset(range(34))
    names = {n for cycle in rules.dora.successor for n in cycle}
    return frozenset(k for k in range(34) if (_HONOUR_NAMES[k - 27] if k >= 27 else _name(_Tile(k, False))) in names)


class _Box:
    """The set's physical tiles: each kind it has four times, a red five the first copy of
    its five (the library's numbering, 136 ids). Taking one more than the set has is refused."""

    def __init__(self, rules: RuleSet) -> None:
        self.red_fives, self.kinds, self.taken = rules.red_fives > 0, _kinds_of(rules), set()

    def take(self, t: _Tile) -> int:
        if t.kind not in self.kinds:
            raise TilesError(f"{_name(t)}: this rule set's tiles have none")
        if t.red and not self.red_fives:
            raise TilesError(f"{_name(t)}: this rule set has no red fives; write the five as 5")
        copies = [4 * t.kind] if t.red else [4 * t.kind + i for i in (1, 2, 3)] + (
            [] if self.red_fives and t.kind in _FIVES else [4 * t.kind])
        free = [i for i in copies if i not in self.taken]
        if not free:
            what = "red five" if t.red else f"{_name(t)}"
            raise TilesError(f"more {what} than the set has ({len(copies)}), counting melds and indicators")
        self.taken.add(free[0])
        return free[0]


def _meld(box: _Box, data: Any, where: str):
    from mahjong.meld import Meld
    if not isinstance(data, dict) or set(data) != {"kind", "tiles"} or data["kind"] not in MELD_KINDS:
        raise TilesError(f"{where} must be {{\"kind\": one of {', '.join(MELD_KINDS)}, \"tiles\": ...}}, got {data!r}")
    kind, tiles = data["kind"], parse_tiles(data["tiles"], f"{where} tiles")
    kinds = [t.kind for t in tiles]
    if kind == "chi":
        ok = len(tiles) == 3 and max(kinds) < 27 and len({k // 9 for k in kinds}) == 1 \
            and sorted(kinds) == list(range(min(kinds), min(kinds) + 3))
    else:
        ok = len(tiles) == (3 if kind == "pon" else 4) and len(set(kinds)) == 1
    if not ok:
        shape = "three in a row of one suit" if kind == "chi" else (
            "three alike" if kind == "pon" else "four alike")
        raise TilesError(f"{where}: a {kind.replace('_', ' ')} is {shape}, got {data['tiles']!r}")
    ids = [box.take(t) for t in tiles]
    meld_type = {"chi": Meld.CHI, "pon": Meld.PON, "added_kan": Meld.SHOUMINKAN}.get(kind, Meld.KAN)
    return Meld(meld_type=meld_type, tiles=ids, opened=kind != "closed_kan"), ids


def _winning_id(concealed: list[int], t: _Tile, red_fives: bool) -> int | None:
    """The winning tile among the concealed ones (a red five only if the tile says so)."""
    red = 4 * t.kind if red_fives and t.kind in _FIVES else None
    return next((i for i in concealed if i // 4 == t.kind and (i == red) == t.red), None)


def _indicators(box: _Box, value: Any, where: str) -> list[int]:
    return [] if value in (None, "") else [box.take(t) for t in parse_tiles(value, where)]


def _options(rules: RuleSet):
    from mahjong.hand_calculating.hand_config import HandConstants, OptionalRules
    p = rules.payment
    return OptionalRules(has_open_tanyao=p.open_tanyao, has_aka_dora=rules.red_fives > 0,
                         has_double_yakuman=p.max_yakuman > 1, kazoe_limit=HandConstants.KAZOE_NO_LIMIT,
                         kiriage=p.kiriage, is_three_player=rules.players == 3)


def score_hand(rules: RuleSet, state: GameState, seat: int, *, tsumo: bool, riichi: bool,
               hand: dict, dora_shown: int | None = None) -> Scored:
    """The value of ``seat``'s winning hand, given as ``hand`` (docs/API.md "Scores by
    tiles": tiles, win, melds, flags, dora, ura). ``riichi``: the winner declared it;
    ``dora_shown``: how many indicators the table turned (None: not known)."""
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig

    if rules.payment.scheme != "riichi":
        raise TilesError(f"{rules.name} scores hands in points; scoring by tiles is for riichi rule sets")
    if not isinstance(hand, dict) or not {"tiles", "win"} <= set(hand) \
            or set(hand) - {"tiles", "win", "melds", "flags", "dora", "ura"}:
        raise TilesError(f"a hand by tiles is {{\"tiles\", \"win\", and optionally \"melds\", \"flags\", "
                         f"\"dora\", \"ura\"}}, got {hand!r}")
    flags = _flags(hand.get("flags", []))
    box = _Box(rules)
    concealed = [box.take(t) for t in parse_tiles(hand["tiles"], "tiles")]
    win = parse_tiles(hand["win"], "the winning tile")
    if len(win) != 1:
        raise TilesError(f"the winning tile is one tile, got {hand['win']!r}")
    win_id = _winning_id(concealed, win[0], box.red_fives)
    if win_id is None:
        raise TilesError(f"the winning tile {hand['win']} is not among the tiles: the hand's tiles include it")
    melds, meld_ids = [], []
    for i, data in enumerate(_list(hand.get("melds", []), "melds")):
        meld, ids = _meld(box, data, f"melds[{i}]")
        melds.append(meld)
        meld_ids += ids
    size = len(concealed) + 3 * len(melds)
    if size != _HAND_SIZE:
        raise TilesError(f"not a winning hand: {size} tiles; a winning hand has {_HAND_SIZE} with the winning "
                         "tile (a kan counts as three)")
    dora, ura = _indicators(box, hand.get("dora"), "dora"), _indicators(box, hand.get("ura"), "ura")
    if ura and not riichi:
        raise TilesError("ura dora count only for a winner who declared riichi")
    if len(ura) > len(dora):
        raise TilesError(f"{len(ura)} ura dora indicator(s) for {len(dora)} dora indicator(s): at most one each")
    seat_wind = turn_order(rules, state.dealer).index(seat)
    config = HandConfig(
        is_tsumo=tsumo, is_riichi=riichi and "double_riichi" not in flags, is_daburu_riichi="double_riichi" in flags,
        is_ippatsu="ippatsu" in flags, is_rinshan="rinshan" in flags, is_chankan="chankan" in flags,
        is_haitei="haitei" in flags, is_houtei="houtei" in flags, is_tenhou="tenhou" in flags,
        is_chiihou="chiihou" in flags, player_wind=EAST + seat_wind, round_wind=EAST + state.round_wind,
        options=_options(rules))
    if "double_riichi" in flags and not riichi:
        raise TilesError("double riichi is a riichi: the winner must have declared it")
    found = HandCalculator.estimate_hand_value(concealed + meld_ids, win_id, melds=melds, dora_indicators=dora,
                                               ura_dora_indicators=ura, config=config)
    if found.error:
        raise TilesError(_REFUSALS.get(found.error, found.error))
    # asked once the hand is known to win: the tiles first, then what the table turned
    if dora_shown is not None and rules.has_dora and len(dora) != dora_shown:
        raise TilesError(f"{len(dora)} dora indicator(s) given; the table shows {dora_shown}")
    return _scored(rules, found, tsumo)


def _flags(value: Any) -> frozenset[str]:
    flags = _list(value, "flags")
    unknown = [f for f in flags if f not in FLAGS]
    if unknown:
        raise TilesError(f"flags {unknown!r} are unknown; allowed: {', '.join(FLAGS)} (riichi is the declaration's)")
    return frozenset(flags)


def _list(value: Any, where: str) -> list:
    if not isinstance(value, list):
        raise TilesError(f"{where} must be a list, got {value!r}")
    return value


def _scored(rules: RuleSet, found, tsumo: bool) -> Scored:
    open_hand = found.is_open_hand
    yaku = tuple((y.name, y.han_open if open_hand else y.han_closed) for y in found.yaku)
    yakuman = sum(h // 13 for (_, h), y in zip(yaku, found.yaku) if y.is_yakuman)
    yakuman = min(yakuman, rules.payment.max_yakuman)
    fu = found.fu
    parts = tuple((d["reason"], d["fu"]) for d in found.fu_details or ())
    han = sum(h for _, h in yaku)
    win = Win(seat=0, han=han, fu=None if yakuman else fu, yakuman=yakuman)
    return Scored(han=han, fu=fu, yakuman=yakuman, yaku=yaku, fu_parts=parts,
                  limit=limit_name(rules.payment, win))
