"""The result form offers only what the rule set allows: for each han the fu the rules
engine accepts, a yakuman up to the rule set's count, a second ron winner only where a
double ron is allowed, riichi only where the rule set has it, and for point-valued rule
sets the hand's points within their bounds (and in Zung Jung who pays for a discard)."""
from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from controller import rules as R
from controller.game.status import rules_form as form_rules

RIICHI_PRESETS = ["ema-2016", "wrc", "mleague", "sanma"]

FU_OFFERED = """
const [cases, done] = [arguments[0], arguments[arguments.length - 1]];
import("/entry.js").then((entry) => done(cases.map(([hanFu, han, tsumo]) => entry.fuOptions(hanFu, han, tsumo))));
"""
# The form alone on a blank page, shown the status of a hand waiting for its result.
SHOW_FORM = """
const [status, done] = [arguments[0], arguments[arguments.length - 1]];
document.body.innerHTML = '<div id="entry"></div>';
import("/entry.js").then((entry) => {
  new entry.ResultEntry(document.querySelector("#entry")).show(status);
  done(true);
});
"""


def accepted_fu(rules: R.RuleSet, han: int, tsumo: bool) -> list[int | None]:
    """The fu the engine accepts with ``han`` (None: no fu, from the first limit up)."""
    p = rules.payment
    if han >= p.limits[0].han:
        return [None]
    candidates = sorted({p.seven_pairs_fu, *range(20, p.max_fu + 1, 10)})
    return [fu for fu in candidates if R.check_han_fu(p, han, fu, tsumo) is None]


def status_for(ruleset: str) -> dict:
    rules = R.load_ruleset(ruleset)
    return {"state": "playing", "waiting_for": "result", "seats": list(rules.seats), "dealer": rules.seats[0],
            "scores": [rules.starting_points] * 4, "rules": form_rules(rules),
            "hand_in_play": {"seq": 1, "label": "E1", "riichi": [], "dice": [3, 4], "kans": 0}}


@pytest.fixture
def form(browser, static_site):
    """Show the form for a rule set; the browser to click it."""
    def show(ruleset: str):
        browser.get(f"{static_site}words.js")
        browser.execute_async_script(SHOW_FORM, status_for(ruleset))
        return browser
    return show


def css(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def test_the_fu_offered_for_each_han_are_those_the_rules_engine_accepts(browser, static_site):
    browser.get(f"{static_site}words.js")
    cases = [(name, han, tsumo) for name in RIICHI_PRESETS for han in range(1, 14) for tsumo in (False, True)]
    facts = {name: form_rules(R.load_ruleset(name))["han_fu"] for name in RIICHI_PRESETS}
    offered = browser.execute_async_script(FU_OFFERED, [[facts[name], han, tsumo] for name, han, tsumo in cases])
    assert offered == [accepted_fu(R.load_ruleset(name), han, tsumo) for name, han, tsumo in cases]


@pytest.mark.parametrize("ruleset", ["ema-2016", "wrc"])
def test_a_second_ron_winner_only_where_the_rule_set_allows_a_double_ron(form, ruleset):
    driver = form(ruleset)
    css(driver, 'button.kind[data-kind="ron"]')[0].click()
    css(driver, '.picker[data-role="discarder"] [data-seat="0"]')[0].click()
    for seat in (1, 3):
        css(driver, f'.picker[data-role="winner"] [data-seat="{seat}"]')[0].click()
    winners = [w.get_attribute("data-seat") for w in css(driver, ".winner")]
    assert winners == (["1", "3"] if R.load_ruleset(ruleset).multiple_ron == "allowed" else ["3"])
    yakuman = [f"y{n}" for n in range(1, R.load_ruleset(ruleset).payment.max_yakuman + 1)]
    for seat in winners:
        han = [o.get_attribute("value") for o in css(driver, f'.winner[data-seat="{seat}"] [name="han"] option')]
        assert han == [str(h) for h in range(1, 14)] + yakuman


@pytest.mark.parametrize("ruleset", ["zung-jung", "mcr"])
def test_a_point_rule_set_asks_for_the_hands_points_within_its_bounds(form, ruleset):
    rules = R.load_ruleset(ruleset)
    driver = form(ruleset)
    assert css(driver, "button.riichi") == []  # no riichi in these rule sets
    kinds = [k.get_attribute("data-kind") for k in css(driver, "button.kind")]
    assert kinds == ["ron", "tsumo", "draw", *(["abortive"] if rules.draw.abortive else []), "chombo"]
    css(driver, 'button.kind[data-kind="ron"]')[0].click()
    css(driver, '.picker[data-role="discarder"] [data-seat="2"]')[0].click()
    css(driver, '.picker[data-role="winner"] [data-seat="1"]')[0].click()
    points = css(driver, '.winner [name="points"]')[0]
    assert points.get_attribute("min") == str(rules.payment.min_points)
    top = rules.payment.max_points and max((rules.payment.max_points, *rules.payment.above_limit))
    assert points.get_attribute("max") == (None if top is None else str(top))  # Zung Jung: 480 (Nine Gates)
    assert css(driver, '.winner [name="han"]') == []
    who_pays = [o.get_attribute("value") for o in css(driver, '.winner [name="responsible"] option')]
    assert who_pays == (["discarder", "none", "0", "3"] if rules.payment.scheme == "zung_jung" else [])
