"""The table page draws the walls as docs/GEOMETRY.md has them: every stack of every wall
once, stack 1 at its owner's right, counter-clockwise on screen the way counter-clockwise
runs on the table, the dead wall, the dora indicators and the break where the rules
engine puts them, and a label only at the seats in play."""
from __future__ import annotations

import math

import pytest

from controller import rules as R

DRAW = """
const [status, done] = [arguments[0], arguments[arguments.length - 1]];
import("/table.js").then((table) => {
  document.body.innerHTML = table.tableSvg(status);
  const number = (e, name) => Number(e.getAttribute(name));
  done({
    stacks: [...document.querySelectorAll("rect.stack")].map((e) => [e.dataset.stack, e.getAttribute("class"),
      number(e, "x") + number(e, "width") / 2, number(e, "y") + number(e, "height") / 2]),
    line: [...document.querySelectorAll("line.break")].map((e) =>
      [(number(e, "x1") + number(e, "x2")) / 2, (number(e, "y1") + number(e, "y2")) / 2]),
    dot: [...document.querySelectorAll("circle.break")].map((e) => [number(e, "cx"), number(e, "cy")]),
    seats: [...document.querySelectorAll("g.seat")].map((e) => Number(e.dataset.seat)),
  });
});
"""
CENTRE = 500  # the SVG's viewBox is 1000 × 1000

# (rule set, dealer, throws): one throw; two throws whose count runs into the next wall
# (docs/API.md's Zung Jung example); sanma's walls of 13 and 14 stacks; MCR without dead wall.
HANDS = [("ema-2016", 0, [[6, 2]]), ("ema-2016", 1, [[1, 6]]), ("zung-jung", 3, [[5, 5], [5, 3]]),
         ("sanma", 0, [[3, 4]]), ("mcr", 2, [[4, 4], [6, 5]])]


def status_of(rules: R.RuleSet, dealer: int, throws: list[list[int]], kans: int) -> dict:
    setup = R.setup_hand(rules, dealer, throws)
    shown = 1 + kans if rules.dora else 0
    walls = {"stacks_per_side": list(rules.stacks_per_side), "breaker": setup.breaker,
             "broken_wall": setup.broken_wall, "break_after": list(setup.break_after),
             "dead_wall": [list(p) for p in setup.dead_wall],
             "dora_indicators": [list(p) for p in setup.dora_indicators[:shown]],
             "live_start": list(R.clockwise(rules, setup.break_after, 1))}
    return {"state": "playing", "seats": list(rules.seats), "dealer": dealer, "scores": [25000] * 4, "honba": 0,
            "riichi_sticks": 0, "round_wind": 0, "hand": "E1", "wind_marker": {"wind": 0, "seat": dealer},
            "hand_in_play": {"seq": 1, "label": "E1", "riichi": [], "dice": sum(throws, []), "kans": kans},
            "walls": walls}


def angle(x: float, y: float) -> float:
    """Counter-clockwise as the viewer sees it (the screen's y runs down)."""
    return math.atan2(CENTRE - y, x - CENTRE)


@pytest.mark.parametrize("ruleset, dealer, throws", HANDS)
def test_the_walls_are_drawn_as_the_geometry_has_them(browser, static_site, ruleset, dealer, throws):
    rules = R.load_ruleset(ruleset)
    status = status_of(rules, dealer, throws, kans=2)
    browser.get(f"{static_site}words.js")
    drawn = browser.execute_async_script(DRAW, status)
    at = {tuple(map(int, p.split(":"))): (kind, x, y) for p, kind, x, y in drawn["stacks"]}

    every = {(seat, k) for seat, n in enumerate(rules.stacks_per_side) for k in range(1, n + 1)}
    assert len(drawn["stacks"]) == len(every) and set(at) == every
    walls = status["walls"]
    dora = {tuple(p) for p in walls["dora_indicators"]}
    dead = {tuple(p) for p in walls["dead_wall"]} - dora
    assert {p for p, (kind, _, _) in at.items() if kind == "stack dora"} == dora
    assert {p for p, (kind, _, _) in at.items() if kind == "stack dead"} == dead
    # stack 1 at the owner's right: seat 0's rightmost, seat 2's leftmost, seat 1's top, seat 3's bottom
    for seat, n in enumerate(rules.stacks_per_side):
        _, x1, y1 = at[(seat, 1)]
        _, xn, yn = at[(seat, n)]
        assert {0: x1 > xn, 1: y1 < yn, 2: x1 < xn, 3: y1 > yn}[seat]
    # one step counter-clockwise on the table is a small step counter-clockwise on screen
    for p in every:
        q = R.counter_clockwise(rules, p)
        turn = (angle(*at[q][1:]) - angle(*at[p][1:])) % (2 * math.pi)
        assert 0 < turn < math.pi / 4, (p, q)
    # the break between the dead wall's first stack and the live wall's first
    between = [(a + b) / 2 for a, b in zip(at[tuple(walls["break_after"])][1:], at[tuple(walls["live_start"])][1:])]
    [mark] = drawn["line"] + drawn["dot"]
    assert mark == pytest.approx(between, abs=1)
    assert sorted(drawn["seats"]) == list(rules.seats)
