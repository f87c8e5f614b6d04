"""The rule set: every figure of a mahjong variant, loaded from YAML and validated.

Nothing in the engine is hard-coded: geometry, payments and progression read these
dataclasses. A parlour copies a preset from config/rulesets/ and changes any field. The
dataclasses are the file's shape too: each field's metadata gives its range (or choices)
and, for the figures the file groups (``players: {count, seats}``), the key it is read from;
their ``problems()`` are the checks across fields.
"""
from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field
from math import lcm
from pathlib import Path
from typing import Literal

from mjtable_config import CONFIG_DIR, named_file, shipped_names
from mjtable_config.reading import is_file
from mjtable_config.schema import (ConfigError, Issue, List, Problems, Record, Str, shape, spec, validate_file,
                                   validate_text)

PRESETS_DIR = CONFIG_DIR / "rulesets"
WINDS = ("E", "S", "W", "N")
SEATS = 4  # physical sides of a table; a 3-player set leaves one empty

_MONEY = 10**7  # points: bounds a figure without limiting any real rule set
_POINTS = spec(min=-_MONEY, max=_MONEY)
_PAYMENT = spec(min=0, max=10**6)
_TIMES = spec(min=1, max=20)  # base × this


# ----------------------------------------------------------------------------- dataclasses

@dataclass(frozen=True)
class Dice:
    throws: int = field(metadata=spec(min=1, max=2))
    per_throw: int = field(metadata=spec(min=1, max=3))
    breaker_counts: str = field(metadata=spec(choices=("walls", "players")))  # all four sides or seats in play
    break_count: str = field(metadata=spec(choices=("first", "sum")))  # the first throw's sum or all throws'


@dataclass(frozen=True)
class Dora:
    indicator_stack: int = field(metadata=spec(min=1, max=20))
    tile: str = field(metadata=spec(choices=("top", "bottom")))
    kan_step: int = field(metadata=spec(min=-1, max=1))
    max_indicators: int = field(metadata=spec(min=1, max=10))
    successor: tuple[tuple[str, ...], ...] = field(
        metadata=spec(schema=List(List(Str(what="a tile name such as 5m or east"), 2), 1)))

    def dora_of(self, indicator: str) -> str:
        for cycle in self.successor:
            if indicator in cycle:
                return cycle[(cycle.index(indicator) + 1) % len(cycle)]
        raise ValueError(f"unknown tile {indicator!r}")


@dataclass(frozen=True)
class Deal:
    blocks: int = field(metadata=spec(min=0, max=10))
    block_tiles: int = field(metadata=spec(min=1, max=8))
    then_each: int = field(metadata=spec(min=0, max=4))
    dealer_extra: int = field(metadata=spec(min=0, max=4))

    def problems(self) -> Problems:
        if self.blocks * self.block_tiles + self.then_each == 0:
            yield (), "deals no tiles; allowed: blocks × block_tiles + then_each = tiles.hand"


@dataclass(frozen=True)
class Riichi:
    deposit: int = field(metadata=spec(min=1, max=10**6))
    min_score: int | None = field(metadata=_POINTS)


_ADD = spec(choices=("add", "keep", "reset"))


@dataclass(frozen=True)
class Counters:
    ron: int = field(metadata=spec(min=0, max=10**5))
    tsumo_each: int = field(metadata=spec(min=0, max=10**5))
    after_dealer_win: str = field(metadata=_ADD)
    after_draw: str = field(metadata=_ADD)
    after_other_win: str = field(metadata=_ADD)


NO_COUNTERS = Counters(0, 0, "keep", "keep", "keep")  # what `counters: null` reads as


@dataclass(frozen=True)
class DealerRepeat:
    on_win: bool
    on_tenpai_draw: bool
    on_noten_draw: bool
    on_abortive_draw: bool


@dataclass(frozen=True)
class Draw:
    noten_total: int = field(metadata=_PAYMENT)
    abortive: bool


@dataclass(frozen=True)
class Chombo:
    mode: str = field(metadata=spec(choices=("final", "table")))  # deducted after uma, or paid at once
    final_penalty: int = field(metadata=_PAYMENT)
    to_dealer: int = field(metadata=_PAYMENT)
    to_others: int = field(metadata=_PAYMENT)
    dealer_pays_each: int = field(metadata=_PAYMENT)


@dataclass(frozen=True)
class Limit:
    han: int = field(metadata=spec(min=1, max=100))
    base: int = field(metadata=spec(min=1, max=10**6))
    name: str


@dataclass(frozen=True, kw_only=True)
class HanFuScoring:
    """Riichi payments: base = fu × 2^(han+2) below the limits."""
    scheme: Literal["riichi"] = "riichi"
    unit: int = field(metadata=spec(min=1, max=10**4))
    mangan_base: int = field(metadata=spec(min=1, max=10**6))
    kiriage: bool
    kiriage_min_base: int = field(metadata=spec(min=1, max=10**6))
    ron_dealer: int = field(metadata=_TIMES)
    ron_other: int = field(metadata=_TIMES)
    tsumo_dealer_pays: int = field(metadata=_TIMES)
    tsumo_others_pay: int = field(metadata=_TIMES)
    tsumo_dealer_wins_each: int = field(metadata=_TIMES)
    limits: tuple[Limit, ...] = field(metadata=spec(length=(1, None)))
    yakuman_base: int = field(metadata=spec(min=1, max=10**6))
    max_yakuman: int = field(metadata=spec(min=1, max=6))
    seven_pairs_fu: int = field(metadata=spec(min=20, max=110))
    max_fu: int = field(metadata=spec(min=30, max=200))
    # all simples counts on an open hand too (kuitan): EMA 2016, WRC and M.League alike;
    # read only when a hand is scored by its tiles (controller/rules/tiles.py)
    open_tanyao: bool = True
    # the most han a result may give: more is taken as a typing error (31 for 3), not paid
    max_han: int = field(default=20, metadata=spec(min=1, max=100))

    def problems(self) -> Problems:
        limits = self.limits
        for i in range(1, len(limits)):
            if limits[i].han <= limits[i - 1].han or limits[i].base < limits[i - 1].base:
                yield ("limits", i), (f"han {limits[i].han} base {limits[i].base} after han {limits[i - 1].han} "
                                      f"base {limits[i - 1].base}; allowed: han rising, base not falling")
        if self.yakuman_base < max(self.mangan_base, limits[-1].base):
            yield ("yakuman_base",), (f"{self.yakuman_base} is below mangan_base {self.mangan_base} or the "
                                      f"highest limit's base {limits[-1].base}; allowed: at least both")
        if self.max_han < limits[-1].han:
            yield ("max_han",), (f"{self.max_han} is below the highest limit's {limits[-1].han} han; "
                                 "allowed: at least that")
        if self.kiriage_min_base > self.mangan_base:
            yield ("kiriage_min_base",), (f"{self.kiriage_min_base} is above mangan_base {self.mangan_base}; "
                                          "allowed: at most mangan_base")


@dataclass(frozen=True, kw_only=True)
class PointScoring:
    """Point-valued hands (Zung Jung, MCR): the hand value is given, not computed."""
    scheme: str
    min_points: int = field(metadata=spec(min=1, max=10**4))
    max_points: int | None = field(metadata=spec(min=1, max=10**5))  # the limit on patterns added together
    # single patterns worth more than the limit, paid at their own value (Zung Jung: 400, 480)
    above_limit: tuple[int, ...] = field(default=(), metadata=spec(min=1, max=10**5, length=(0, 10)))

    def problems(self) -> Problems:
        if self.max_points is not None and self.max_points < self.min_points:
            yield ("max_points",), f"{self.max_points} is below min_points {self.min_points}; allowed: at least min_points"
        low = [v for v in self.above_limit if self.max_points is None or v <= self.max_points]
        if low:
            yield ("above_limit",), (f"{low} not above max_points {self.max_points}; "
                                     "allowed: values above the limit (max_points set)")

    def allows(self, points: int) -> bool:
        return (self.min_points <= points and (self.max_points is None or points <= self.max_points)
                or points in self.above_limit)

    def allowed_text(self) -> str:
        top = f" to {self.max_points}" if self.max_points is not None else " or more"
        return f"{self.min_points}{top}" + "".join(f", {v}" for v in self.above_limit)


@dataclass(frozen=True, kw_only=True)
class ZungJungScoring(PointScoring):
    scheme: Literal["zung_jung"]
    method: str = field(metadata=spec(choices=("formal", "uniform")))
    threshold: int = field(metadata=spec(min=0, max=10**4))  # formal: the two bystanders pay at most this


@dataclass(frozen=True, kw_only=True)
class McrScoring(PointScoring):
    scheme: Literal["mcr"]
    base: int = field(metadata=spec(min=0, max=10**4))  # everyone pays this on top


@dataclass(frozen=True)
class Extension:
    target: int = field(metadata=spec(min=0, max=_MONEY))
    rounds: int = field(metadata=spec(min=1, max=3))


@dataclass(frozen=True)
class Match:
    rounds: int = field(metadata=spec(min=1, max=4))
    busting_below: int | None = field(metadata=spec(key="busting.below", **_POINTS))  # busting: null, or below
    agari_yame: bool
    extension: Extension | None
    east_only: bool = False  # the rule text has an East-only form: `start` may play the East round alone


@dataclass(frozen=True)
class StandingsRules:
    uma: tuple[int, ...] = field(metadata=spec(length=(3, 4), **_POINTS))
    oka: int = field(metadata=spec(min=0, max=_MONEY))
    ties: str = field(metadata=spec(choices=("split", "seat_order")))
    leftover_sticks: str = field(metadata=spec(choices=("winner", "none")))


@dataclass(frozen=True)
class TimeLimit:
    """A tournament session on a clock (EMA 2016 §5.9): its length from the start signal,
    the warning signal that long before its end, and the hands played after the warning
    (the hand in progress is finished first; controller/club/time_limit.py counts them)."""
    session_minutes: int = field(metadata=spec(min=1, max=600))
    warning_minutes: int = field(metadata=spec(min=1, max=600))
    hands_after_signal: int = field(metadata=spec(min=1, max=8))

    def problems(self) -> Problems:
        if self.warning_minutes >= self.session_minutes:
            yield ("warning_minutes",), (f"{self.warning_minutes} is not shorter than session_minutes "
                                         f"{self.session_minutes}; allowed: less than the session")


@dataclass(frozen=True, kw_only=True)
class RuleSet:
    name: str
    title: str = ""
    players: int = field(metadata=spec(key="players.count", min=3, max=4))
    seats: tuple[int, ...] = field(metadata=spec(key="players.seats", min=0, max=3, length=(3, 4)))  # sorted
    tiles: int = field(metadata=spec(key="tiles.count", min=2, max=400))
    red_fives: int = field(default=0, metadata=spec(key="tiles.red_fives", min=0, max=12))
    stacks_per_side: tuple[int, ...] = field(metadata=spec(key="tiles.stacks_per_side", min=1, max=40, length=(4, 4)))
    hand_tiles: int = field(metadata=spec(key="tiles.hand", min=1, max=20))
    dice: Dice
    dead_wall_stacks: int = field(metadata=spec(key="dead_wall.stacks", min=0, max=20))
    dora: Dora | None
    deal: Deal
    starting_points: int = field(metadata=spec(key="points.start", min=0, max=_MONEY))
    return_points: int = field(metadata=spec(key="points.return", min=0, max=_MONEY))
    riichi: Riichi | None
    counters: Counters = field(metadata=spec(null=NO_COUNTERS))
    dealer_repeat: DealerRepeat
    draw: Draw
    multiple_ron: str = field(metadata=spec(choices=("allowed", "head_bump")))
    # on a multiple ron: own_bet_back — each winning declarer gets his bet back, the other
    # sticks go to the winner nearest the discarder, every winner gets the counters (EMA §4.1);
    # nearest_winner — all sticks and the counters go to that winner alone (Tenhou-style)
    multiple_ron_sticks: str = field(default="own_bet_back", metadata=spec(choices=("own_bet_back", "nearest_winner")))
    chombo: Chombo
    payment: HanFuScoring | ZungJungScoring | McrScoring = field(metadata=spec(by="scheme"))
    match: Match
    standings: StandingsRules
    time_limit: TimeLimit | None = None  # null or absent: no clock; a game uses it when started so
    source: str = field(default="", metadata=spec(file=False))  # the file it was read from

    @property
    def has_dora(self) -> bool:
        return self.dora is not None

    @property
    def has_riichi(self) -> bool:
        return self.riichi is not None

    @property
    def deposit(self) -> int:
        return self.riichi.deposit if self.riichi else 0

    def east_only_form(self) -> "RuleSet":
        """The game of the East round alone (`start` with east_only), where the text has one."""
        return dataclasses.replace(self, match=dataclasses.replace(self.match, rounds=1))

    def plays_east_only(self) -> bool:
        return self.match.east_only and self.match.rounds == 1

    def summary(self) -> str:
        throws = "1 throw" if self.dice.throws == 1 else f"{self.dice.throws} throws"
        walls = "-".join(str(s) for s in self.stacks_per_side)
        return (f"rule set {self.name}: {self.players} players, {self.tiles} tiles ({walls} stacks), "
                f"{throws}, {self.payment.scheme} payments, {self.match.rounds} round(s)")

    def problems(self) -> Problems:
        """The figures that must agree with one another (each field is valid by itself)."""
        for check in (_players, _tiles, _dice, _dead_wall, _dora, _deal_fits, _draw, _scheme, _standings,
                      _extension):
            yield from check(self)


# ----------------------------------------------------------------------------- cross-field checks

def _players(r: RuleSet) -> Problems:
    if len(set(r.seats)) != len(r.seats):
        yield ("players", "seats"), f"seats {list(r.seats)} repeat a seat; allowed: distinct seats 0-3"
    elif len(r.seats) != r.players:
        yield ("players", "seats"), (f"{len(r.seats)} seats listed for count: {r.players}; "
                                     "allowed: exactly one seat per player")


def _tiles(r: RuleSet) -> Problems:
    stacked = 2 * sum(r.stacks_per_side)
    if stacked != r.tiles:
        yield ("tiles", "stacks_per_side"), (f"{list(r.stacks_per_side)} make {stacked} tiles but count is "
                                             f"{r.tiles}; allowed: stacks that hold exactly count tiles (2 per stack)")


def _dice(r: RuleSet) -> Problems:
    if r.dice.throws > 1 and r.dice.break_count == "first":
        yield ("dice", "break_count"), (f"'first' ignores the other {r.dice.throws - 1} throw(s); "
                                        "allowed: sum (or throws: 1)")


def _dead_wall(r: RuleSet) -> Problems:
    shortest = min(r.stacks_per_side)
    if r.dead_wall_stacks >= shortest:
        yield ("dead_wall", "stacks"), (f"{r.dead_wall_stacks} stacks is not shorter than a wall of {shortest}; "
                                        f"allowed: 0 to {shortest - 1}")


def _dead_wall_reach(size: int, kans: int, tile: str) -> int:
    """The farthest stack from the break whose indicator tile is in the dead wall after
    ``kans`` kans: each kan takes the live wall's last tile in (a stack's bottom is drawn
    after its top, so the bottom goes first)."""
    return size + (kans + (tile == "bottom")) // 2


def _dora(r: RuleSet) -> Problems:
    dora, size = r.dora, r.dead_wall_stacks
    if dora is None:
        return
    for kans in range(dora.max_indicators):
        stack, reach = dora.indicator_stack + kans * dora.kan_step, _dead_wall_reach(size, kans, dora.tile)
        if not 1 <= stack <= reach:
            yield ("dora",), (f"the indicator after {kans} kan(s) is on stack {stack}, outside the dead wall "
                              f"(stacks 1-{reach} then); allowed: every indicator within the dead wall of {size} "
                              "stacks and the live wall's last tiles each kan takes into it")
            return
    if dora.kan_step == 0 and dora.max_indicators > 1:
        yield ("dora", "kan_step"), "0 puts every kan's indicator on the first one's stack; allowed: 1 or -1"
    counts = Counter(t for cycle in dora.successor for t in cycle)
    repeated = sorted(t for t, n in counts.items() if n > 1)
    if repeated:
        yield ("dora", "successor"), f"tiles {repeated} appear twice; allowed: each tile in one cycle once"


def _deal_fits(r: RuleSet) -> Problems:
    deal = r.deal
    hand = deal.blocks * deal.block_tiles + deal.then_each
    if hand != r.hand_tiles:
        yield ("deal",), (f"deals {hand} tiles per player but tiles.hand is {r.hand_tiles}; "
                          "allowed: blocks × block_tiles + then_each = tiles.hand")
    dealt = r.players * r.hand_tiles + deal.dealer_extra
    live = r.tiles - 2 * r.dead_wall_stacks
    if dealt > live:
        yield ("deal",), f"deals {dealt} tiles but the live wall holds {live}; allowed: at most {live}"


def _draw(r: RuleSet) -> Problems:
    total, n = r.draw.noten_total, r.players
    step = lcm(*range(1, n))
    if total % step:
        yield ("draw", "noten_total"), (f"{total} does not split evenly among 1 to {n - 1} players; "
                                        f"allowed: a multiple of {step}")


def _scheme(r: RuleSet) -> Problems:
    # deposits and counters are riichi bookkeeping; point schemes have no use for them
    # (`counters: null` reads as NO_COUNTERS itself, so `is not` tells a written one)
    for key, given in (("riichi", r.riichi is not None), ("counters", r.counters is not NO_COUNTERS)):
        if given and r.payment.scheme != "riichi":
            yield (key,), (f"set with payment scheme {r.payment.scheme!r}; "
                           "allowed: null unless payment.scheme is riichi")


def _standings(r: RuleSet) -> Problems:
    st, n = r.standings, r.players
    if len(st.uma) != n:
        yield ("standings", "uma"), f"{len(st.uma)} places for {n} players; allowed: one per player"
    elif sum(st.uma) != 0:
        yield ("standings", "uma"), f"{list(st.uma)} sums to {sum(st.uma)}; allowed: places summing to 0"
    oka = n * (r.return_points - r.starting_points)
    if st.oka != oka:
        yield ("standings", "oka"), (f"{st.oka} but {n} × (return {r.return_points} − start {r.starting_points}) "
                                     f"= {oka}; allowed: {oka}, so that final scores sum to zero")


def _extension(r: RuleSet) -> Problems:
    ext = r.match.extension
    if ext is not None and r.match.rounds + ext.rounds > len(WINDS):
        yield ("match", "extension", "rounds"), (f"{ext.rounds} extra round(s) after {r.match.rounds}; "
                                                 f"allowed: at most {len(WINDS) - r.match.rounds} (the winds end at North)")


# ----------------------------------------------------------------------------- loading

def ruleset_shape() -> Record:
    """A rule-set file's schema."""
    return shape(RuleSet, kind="ruleset", what="a rule set")


def _read(rules: RuleSet, source: str) -> RuleSet:
    return dataclasses.replace(rules, seats=tuple(sorted(rules.seats)), source=source)


def ruleset_from_text(text: str, file: str = "<rule set>") -> RuleSet:
    return _read(validate_text(ruleset_shape(), text, file), file)


def preset_names() -> list[str]:
    return shipped_names("rulesets")


def resolve_ruleset(name_or_path: str | Path, base: Path | None = None) -> Path:
    """A preset name (config/rulesets/<name>.yaml) or a file path (relative to ``base``)."""
    path = named_file("rulesets", name_or_path, base)
    if path.parent == PRESETS_DIR and not is_file(path):
        raise ConfigError([Issue(str(name_or_path), None, "", f"no rule-set preset named {str(name_or_path)!r}; "
                                 f"allowed: {', '.join(preset_names())} or a path to a YAML file")])
    return path


def load_ruleset(name_or_path: str | Path, base: Path | None = None) -> RuleSet:
    """Load and validate a rule set; raises ConfigError listing every problem."""
    path = resolve_ruleset(name_or_path, base)
    return _read(validate_file(ruleset_shape(), path), str(path))


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def folder_rulesets(folder: Path | None) -> list[str]:
    """The names of the rule sets of ``folder`` that `start` may name."""
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder is not None and folder.is_dir() else []


def find_ruleset(name: str, folder: Path | None) -> str:
    """What a client may name (the control API's `start`): a file of ``folder`` by its name,
    else a preset; never a path, so a client reads no other file. Returns the reference
    load_ruleset takes (a preset's name, or the file's path); raises ConfigError."""
    stem = name.removesuffix(".yaml")
    if _NAME.fullmatch(stem):
        if folder is not None and is_file(folder / f"{stem}.yaml"):
            mine = folder / f"{stem}.yaml"
            # the shipped config's folder is the presets' own (a table run from the repository)
            return stem if mine.resolve() == (PRESETS_DIR / f"{stem}.yaml").resolve() else str(mine)
        if stem in preset_names():
            return stem
    mine = folder_rulesets(folder)
    raise ConfigError([Issue("start", None, "ruleset", f"no rule set named {name[:64]!r}; allowed: a preset "
                             f"({', '.join(preset_names())}) or a rule set of the folder {folder} by name "
                             f"({', '.join(mine) or 'none there'})")])
