"""The rule set: every figure of a mahjong variant, loaded from YAML and validated.

Nothing in the engine is hard-coded: geometry, payments and progression read these
dataclasses. A parlour copies a preset from config/rulesets/ and changes any field.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from math import lcm
from pathlib import Path

from controller.schema import (AnyOf, Bool, ConfigError, Context, Field, Int, Issue, List, Map, Nullable, Str,
                               Variant, validate_file, validate_text)
from mjtable_config import CONFIG_DIR, named_file, shipped_names
from mjtable_config.reading import is_file

PRESETS_DIR = CONFIG_DIR / "rulesets"
WINDS = ("E", "S", "W", "N")
SEATS = 4  # physical sides of a table; a 3-player set leaves one empty


# ----------------------------------------------------------------------------- dataclasses

@dataclass(frozen=True)
class Dice:
    throws: int
    per_throw: int
    breaker_counts: str  # "walls" (all four sides) or "players" (seats in play)
    break_count: str     # "first" throw's sum or "sum" of all throws


@dataclass(frozen=True)
class Dora:
    indicator_stack: int
    tile: str
    kan_step: int
    max_indicators: int
    successor: tuple[tuple[str, ...], ...]

    def dora_of(self, indicator: str) -> str:
        for cycle in self.successor:
            if indicator in cycle:
                return cycle[(cycle.index(indicator) + 1) % len(cycle)]
        raise ValueError(f"unknown tile {indicator!r}")


@dataclass(frozen=True)
class Deal:
    blocks: int
    block_tiles: int
    then_each: int
    dealer_extra: int


@dataclass(frozen=True)
class Riichi:
    deposit: int
    min_score: int | None


@dataclass(frozen=True)
class Counters:
    ron: int
    tsumo_each: int
    after_dealer_win: str  # add | keep | reset
    after_draw: str
    after_other_win: str


NO_COUNTERS = Counters(0, 0, "keep", "keep", "keep")


@dataclass(frozen=True)
class DealerRepeat:
    on_win: bool
    on_tenpai_draw: bool
    on_noten_draw: bool
    on_abortive_draw: bool


@dataclass(frozen=True)
class Draw:
    noten_total: int
    abortive: bool


@dataclass(frozen=True)
class Chombo:
    mode: str  # "final" (deducted after uma) or "table" (paid at once)
    final_penalty: int
    to_dealer: int
    to_others: int
    dealer_pays_each: int


@dataclass(frozen=True)
class Limit:
    han: int
    base: int
    name: str


@dataclass(frozen=True)
class HanFuScoring:
    """Riichi payments: base = fu × 2^(han+2) below the limits."""
    unit: int
    mangan_base: int
    kiriage: bool
    kiriage_min_base: int
    ron_dealer: int
    ron_other: int
    tsumo_dealer_pays: int
    tsumo_others_pay: int
    tsumo_dealer_wins_each: int
    limits: tuple[Limit, ...]
    yakuman_base: int
    max_yakuman: int
    seven_pairs_fu: int
    max_fu: int
    scheme: str = "riichi"


@dataclass(frozen=True)
class PointScoring:
    """Point-valued hands (Zung Jung, MCR): the hand value is given, not computed."""
    scheme: str          # "zung_jung" or "mcr"
    min_points: int
    max_points: int | None
    method: str = ""     # zung_jung: "formal" or "uniform"
    threshold: int = 0   # zung_jung formal: the two bystanders pay at most this
    base: int = 0        # mcr: everyone pays this on top


@dataclass(frozen=True)
class Extension:
    target: int
    rounds: int


@dataclass(frozen=True)
class Match:
    rounds: int
    busting_below: int | None
    agari_yame: bool
    extension: Extension | None


@dataclass(frozen=True)
class StandingsRules:
    uma: tuple[int, ...]
    oka: int
    ties: str             # "split" or "seat_order"
    leftover_sticks: str  # "winner" or "none"


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str
    players: int
    seats: tuple[int, ...]
    tiles: int
    red_fives: int
    stacks_per_side: tuple[int, ...]
    hand_tiles: int
    dice: Dice
    dead_wall_stacks: int
    dora: Dora | None
    deal: Deal
    starting_points: int
    return_points: int
    riichi: Riichi | None
    counters: Counters
    dealer_repeat: DealerRepeat
    draw: Draw
    multiple_ron: str  # "allowed" or "head_bump"
    chombo: Chombo
    payment: HanFuScoring | PointScoring
    match: Match
    standings: StandingsRules
    source: str = ""

    @property
    def has_dora(self) -> bool:
        return self.dora is not None

    @property
    def has_riichi(self) -> bool:
        return self.riichi is not None

    @property
    def deposit(self) -> int:
        return self.riichi.deposit if self.riichi else 0

    def summary(self) -> str:
        throws = "1 throw" if self.dice.throws == 1 else f"{self.dice.throws} throws"
        walls = "-".join(str(s) for s in self.stacks_per_side)
        return (f"rule set {self.name}: {self.players} players, {self.tiles} tiles ({walls} stacks), "
                f"{throws}, {self.payment.scheme} payments, {self.match.rounds} round(s)")


# ----------------------------------------------------------------------------- schema

def _check_players(v: dict, path: tuple, ctx: Context) -> None:
    if len(set(v["seats"])) != len(v["seats"]):
        ctx.error(path + ("seats",), f"seats {v['seats']} repeat a seat; allowed: distinct seats 0-3")
    elif len(v["seats"]) != v["count"]:
        ctx.error(path + ("seats",), f"{len(v['seats'])} seats listed for count: {v['count']}; "
                  "allowed: exactly one seat per player")


def _check_tiles(v: dict, path: tuple, ctx: Context) -> None:
    stacked = 2 * sum(v["stacks_per_side"])
    if stacked != v["count"]:
        ctx.error(path + ("stacks_per_side",), f"{v['stacks_per_side']} make {stacked} tiles but count is "
                  f"{v['count']}; allowed: stacks that hold exactly count tiles (2 per stack)")


def _check_deal(v: dict, path: tuple, ctx: Context) -> None:
    if v["blocks"] * v["block_tiles"] + v["then_each"] == 0:
        ctx.error(path, "deals no tiles; allowed: blocks × block_tiles + then_each = tiles.hand")


_TILE = Str(what="a tile name such as 5m or east")
_ADD = Str(("add", "keep", "reset"))

PLAYERS = Map({"count": Int(3, 4), "seats": List(Int(0, 3), 3, 4)}, checks=[_check_players])
TILES = Map({"count": Int(2, 400), "red_fives": Field(Int(0, 12), False, 0),
             "stacks_per_side": List(Int(1, 40), 4, 4), "hand": Int(1, 20)}, checks=[_check_tiles])
DICE = Map({"throws": Int(1, 2), "per_throw": Int(1, 3), "breaker_counts": Str(("walls", "players")),
            "break_count": Str(("first", "sum"))})
DEAD_WALL = Map({"stacks": Int(0, 20)})
DORA = Map({"indicator_stack": Int(1, 20), "tile": Str(("top", "bottom")), "kan_step": Int(-1, 1),
            "max_indicators": Int(1, 10), "successor": List(List(_TILE, 2), 1)})
DEAL = Map({"blocks": Int(0, 10), "block_tiles": Int(1, 8), "then_each": Int(0, 4), "dealer_extra": Int(0, 4)},
           checks=[_check_deal])
POINTS = Map({"start": Int(0, 10**7), "return": Int(0, 10**7)})
RIICHI = Map({"deposit": Int(1, 10**6), "min_score": Nullable(Int(-10**7, 10**7))})
COUNTERS = Map({"ron": Int(0, 10**5), "tsumo_each": Int(0, 10**5), "after_dealer_win": _ADD,
                "after_draw": _ADD, "after_other_win": _ADD})
DEALER_REPEAT = Map({"on_win": Bool(), "on_tenpai_draw": Bool(), "on_noten_draw": Bool(),
                     "on_abortive_draw": Bool()})
DRAW = Map({"noten_total": Int(0, 10**6), "abortive": Bool()})
CHOMBO = Map({"mode": Str(("final", "table")), "final_penalty": Int(0, 10**6), "to_dealer": Int(0, 10**6),
              "to_others": Int(0, 10**6), "dealer_pays_each": Int(0, 10**6)})
LIMIT = Map({"han": Int(1, 100), "base": Int(1, 10**6), "name": Str()})


def _check_limits(v: dict, path: tuple, ctx: Context) -> None:
    limits = v["limits"]
    for i in range(1, len(limits)):
        if limits[i]["han"] <= limits[i - 1]["han"] or limits[i]["base"] < limits[i - 1]["base"]:
            ctx.error(path + ("limits", i), f"han {limits[i]['han']} base {limits[i]['base']} after han "
                      f"{limits[i - 1]['han']} base {limits[i - 1]['base']}; allowed: han rising, base not falling")
    if v["yakuman_base"] < max(v["mangan_base"], limits[-1]["base"]):
        ctx.error(path + ("yakuman_base",), f"{v['yakuman_base']} is below mangan_base {v['mangan_base']} or the "
                  f"highest limit's base {limits[-1]['base']}; allowed: at least both")
    if v["kiriage_min_base"] > v["mangan_base"]:
        ctx.error(path + ("kiriage_min_base",), f"{v['kiriage_min_base']} is above mangan_base "
                  f"{v['mangan_base']}; allowed: at most mangan_base")


def _check_points(v: dict, path: tuple, ctx: Context) -> None:
    if v["max_points"] is not None and v["max_points"] < v["min_points"]:
        ctx.error(path + ("max_points",), f"{v['max_points']} is below min_points {v['min_points']}; "
                  "allowed: at least min_points")


_MONEY = Int(0, 10**7)
PAYMENT = Variant("scheme", {
    "riichi": Map({"scheme": Str(), "unit": Int(1, 10**4), "mangan_base": Int(1, 10**6), "kiriage": Bool(),
                   "kiriage_min_base": Int(1, 10**6), "ron_dealer": Int(1, 20), "ron_other": Int(1, 20),
                   "tsumo_dealer_pays": Int(1, 20), "tsumo_others_pay": Int(1, 20),
                   "tsumo_dealer_wins_each": Int(1, 20), "limits": List(LIMIT, 1), "yakuman_base": Int(1, 10**6),
                   "max_yakuman": Int(1, 6), "seven_pairs_fu": Int(20, 110), "max_fu": Int(30, 200)},
                  checks=[_check_limits]),
    "zung_jung": Map({"scheme": Str(), "method": Str(("formal", "uniform")), "threshold": Int(0, 10**4),
                      "min_points": Int(1, 10**4), "max_points": Nullable(Int(1, 10**5))}, checks=[_check_points]),
    "mcr": Map({"scheme": Str(), "base": Int(0, 10**4), "min_points": Int(1, 10**4),
                "max_points": Nullable(Int(1, 10**5))}, checks=[_check_points]),
})
MATCH = Map({"rounds": Int(1, 4), "busting": Nullable(Map({"below": Int(-10**7, 10**7)})), "agari_yame": Bool(),
             "extension": Nullable(Map({"target": _MONEY, "rounds": Int(1, 3)}))})
STANDINGS = Map({"uma": List(Int(-10**7, 10**7), 3, 4), "oka": _MONEY, "ties": Str(("split", "seat_order")),
                 "leftover_sticks": Str(("winner", "none"))})

RULESET = Map({
    "kind": Field(Str(("ruleset",)), False, "ruleset"),
    "name": Str(), "title": Field(Str(), False, ""), "players": PLAYERS, "tiles": TILES, "dice": DICE,
    "dead_wall": DEAD_WALL, "dora": Nullable(DORA), "deal": DEAL, "points": POINTS, "riichi": Nullable(RIICHI),
    "counters": Nullable(COUNTERS), "dealer_repeat": DEALER_REPEAT, "draw": DRAW,
    "multiple_ron": Str(("allowed", "head_bump")), "chombo": CHOMBO, "payment": PAYMENT, "match": MATCH,
    "standings": STANDINGS,
}, what="a rule set")


# ----------------------------------------------------------------------------- cross-field checks

def _cross_checks(v: dict, path: tuple, ctx: Context) -> None:
    for check in (_check_dice, _check_dead_wall, _check_dora, _check_deal_fits, _check_draw, _check_scheme,
                  _check_standings, _check_extension):
        check(v, ctx)


def _check_dice(v: dict, ctx: Context) -> None:
    d = v["dice"]
    if d["throws"] > 1 and d["break_count"] == "first":
        ctx.error(("dice", "break_count"), f"'first' ignores the other {d['throws'] - 1} throw(s); "
                  "allowed: sum (or throws: 1)")


def _check_dead_wall(v: dict, ctx: Context) -> None:
    shortest = min(v["tiles"]["stacks_per_side"])
    if v["dead_wall"]["stacks"] >= shortest:
        ctx.error(("dead_wall", "stacks"), f"{v['dead_wall']['stacks']} stacks is not shorter than a wall of "
                  f"{shortest}; allowed: 0 to {shortest - 1}")


def _dead_wall_reach(size: int, kans: int, tile: str) -> int:
    """The farthest stack from the break whose indicator tile is in the dead wall after
    ``kans`` kans: each kan takes the live wall's last tile in (a stack's bottom is drawn
    after its top, so the bottom goes first)."""
    return size + (kans + (tile == "bottom")) // 2


def _check_dora(v: dict, ctx: Context) -> None:
    dora, size = v["dora"], v["dead_wall"]["stacks"]
    if dora is None:
        return
    for kans in range(dora["max_indicators"]):
        stack, reach = dora["indicator_stack"] + kans * dora["kan_step"], _dead_wall_reach(size, kans, dora["tile"])
        if not 1 <= stack <= reach:
            ctx.error(("dora",), f"the indicator after {kans} kan(s) is on stack {stack}, outside the dead wall "
                      f"(stacks 1-{reach} then); allowed: every indicator within the dead wall of {size} stacks "
                      "and the live wall's last tiles each kan takes into it")
            return
    if dora["kan_step"] == 0 and dora["max_indicators"] > 1:
        ctx.error(("dora", "kan_step"), "0 puts every kan's indicator on the first one's stack; allowed: 1 or -1")
    counts = Counter(t for cycle in dora["successor"] for t in cycle)
    repeated = sorted(t for t, n in counts.items() if n > 1)
    if repeated:
        ctx.error(("dora", "successor"), f"tiles {repeated} appear twice; allowed: each tile in one cycle once")


def _check_deal_fits(v: dict, ctx: Context) -> None:
    deal, tiles = v["deal"], v["tiles"]
    hand = deal["blocks"] * deal["block_tiles"] + deal["then_each"]
    if hand != tiles["hand"]:
        ctx.error(("deal",), f"deals {hand} tiles per player but tiles.hand is {tiles['hand']}; "
                  "allowed: blocks × block_tiles + then_each = tiles.hand")
    dealt = v["players"]["count"] * tiles["hand"] + deal["dealer_extra"]
    live = tiles["count"] - 2 * v["dead_wall"]["stacks"]
    if dealt > live:
        ctx.error(("deal",), f"deals {dealt} tiles but the live wall holds {live}; allowed: at most {live}")


def _check_draw(v: dict, ctx: Context) -> None:
    total, n = v["draw"]["noten_total"], v["players"]["count"]
    step = lcm(*range(1, n))
    if total % step:
        ctx.error(("draw", "noten_total"), f"{total} does not split evenly among 1 to {n - 1} players; "
                  f"allowed: a multiple of {step}")


def _check_scheme(v: dict, ctx: Context) -> None:
    # deposits and counters are riichi bookkeeping; point schemes have no use for them
    for key in ("riichi", "counters"):
        if v[key] is not None and v["payment"]["scheme"] != "riichi":
            ctx.error((key,), f"set with payment scheme {v['payment']['scheme']!r}; "
                      "allowed: null unless payment.scheme is riichi")


def _check_standings(v: dict, ctx: Context) -> None:
    st, n, pts = v["standings"], v["players"]["count"], v["points"]
    if len(st["uma"]) != n:
        ctx.error(("standings", "uma"), f"{len(st['uma'])} places for {n} players; allowed: one per player")
    elif sum(st["uma"]) != 0:
        ctx.error(("standings", "uma"), f"{st['uma']} sums to {sum(st['uma'])}; allowed: places summing to 0")
    oka = n * (pts["return"] - pts["start"])
    if st["oka"] != oka:
        ctx.error(("standings", "oka"), f"{st['oka']} but {n} × (return {pts['return']} − start {pts['start']}) "
                  f"= {oka}; allowed: {oka}, so that final scores sum to zero")


def _check_extension(v: dict, ctx: Context) -> None:
    ext = v["match"]["extension"]
    if ext is not None and v["match"]["rounds"] + ext["rounds"] > len(WINDS):
        ctx.error(("match", "extension", "rounds"), f"{ext['rounds']} extra round(s) after {v['match']['rounds']}; "
                  f"allowed: at most {len(WINDS) - v['match']['rounds']} (the winds end at North)")


# ----------------------------------------------------------------------------- building

def _payment(p: dict) -> HanFuScoring | PointScoring:
    if p["scheme"] == "riichi":
        fields = {k: v for k, v in p.items() if k not in ("scheme", "limits")}
        return HanFuScoring(limits=tuple(Limit(**x) for x in p["limits"]), **fields)
    return PointScoring(**p)


def build(v: dict, source: str = "") -> RuleSet:
    """The RuleSet from validated YAML data."""
    m, st = v["match"], v["standings"]
    return RuleSet(
        name=v["name"], title=v["title"], players=v["players"]["count"], seats=tuple(sorted(v["players"]["seats"])),
        tiles=v["tiles"]["count"], red_fives=v["tiles"]["red_fives"],
        stacks_per_side=tuple(v["tiles"]["stacks_per_side"]), hand_tiles=v["tiles"]["hand"], dice=Dice(**v["dice"]),
        dead_wall_stacks=v["dead_wall"]["stacks"],
        dora=None if v["dora"] is None else Dora(**{**v["dora"], "successor": tuple(map(tuple, v["dora"]["successor"]))}),
        deal=Deal(**v["deal"]), starting_points=v["points"]["start"], return_points=v["points"]["return"],
        riichi=None if v["riichi"] is None else Riichi(**v["riichi"]),
        counters=NO_COUNTERS if v["counters"] is None else Counters(**v["counters"]),
        dealer_repeat=DealerRepeat(**v["dealer_repeat"]), draw=Draw(**v["draw"]), multiple_ron=v["multiple_ron"],
        chombo=Chombo(**v["chombo"]), payment=_payment(v["payment"]),
        match=Match(rounds=m["rounds"], busting_below=m["busting"]["below"] if m["busting"] else None,
                    agari_yame=m["agari_yame"], extension=Extension(**m["extension"]) if m["extension"] else None),
        standings=StandingsRules(uma=tuple(st["uma"]), oka=st["oka"], ties=st["ties"],
                                 leftover_sticks=st["leftover_sticks"]),
        source=source,
    )


def ruleset_from_text(text: str, file: str = "<rule set>") -> RuleSet:
    return build(validate_text(RULESET, text, file, [_cross_checks]), file)


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
    return build(validate_file(RULESET, path, [_cross_checks]), str(path))


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def find_ruleset(name: str, folder: Path | None) -> str:
    """What a client may name (the control API's `start`): a file of ``folder`` by its name,
    else a preset; never a path, so a client reads no other file. Returns the reference
    load_ruleset takes (a preset's name, or the file's path); raises ConfigError."""
    stem = name.removesuffix(".yaml")
    if _NAME.fullmatch(stem):
        if folder is not None and is_file(folder / f"{stem}.yaml"):
            return str(folder / f"{stem}.yaml")
        if stem in preset_names():
            return stem
    mine = sorted(p.stem for p in folder.glob("*.yaml")) if folder is not None and folder.is_dir() else []
    raise ConfigError([Issue("start", None, "ruleset", f"no rule set named {name[:64]!r}; allowed: a preset "
                             f"({', '.join(preset_names())}) or a rule set of the folder {folder} by name "
                             f"({', '.join(mine) or 'none there'})")])
