"""The status snapshot: everything a view or API client shows (docs/API.md `status`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller import rules as R
from controller.game.faults import remedy
from controller.club.players import as_list

if TYPE_CHECKING:
    from controller.game.controller import Controller


def snapshot(c: "Controller") -> dict[str, Any]:
    """Machine, game, hand, walls, link."""
    out: dict[str, Any] = {"state": c.sm.state, "ruleset": c.ruleset_name, "players": c.rules.players,
                           "seats": list(c.rules.seats),
                           "display_mode": c.settings.display_mode,
                           "fault": f"{c.fault.describe()}; {remedy(c.fault.code)}" if c.fault else None,
                           "fault_code": int(c.fault.code) if c.fault else None,
                           "connection": c.table.link.status(),
                           "waiting_for": _waiting_for(c),
                           "store_error": c.db.error if c.db is not None else None,
                           "session": c.sessions.status(),
                           "maintenance_due": c.reminders.due(),
                           "rules": _rules(c.rules)}
    if c.state is not None:
        s = c.displays.displayed()
        out.update(scores=list(s.scores), dealer=s.dealer, starting_dealer=s.starting_dealer, honba=s.honba,
                   riichi_sticks=s.riichi_sticks, round_wind=s.round_wind, hand=R.hand_label(s),
                   hands_played=s.hands_played, finished=s.finished,
                   wind_marker={"wind": s.round_wind, "seat": s.starting_dealer})
        if c.players:
            out.update(seat_players=as_list(c.players), seating=c.seating)
        if c.place is not None:  # the seats a tournament round's schedule expects
            out.update(round=c.place.round, table=c.place.table)
        if (clock := c.clock.status()) is not None:  # a game on the clock (controller/game/clock.py)
            out["time_limit"] = clock
            if clock["ended"]:
                out["ended"] = "time"
    if c.hand is not None:
        out["hand_in_play"] = {"seq": c.hand.seq, "label": c.hand.label, "riichi": c.hand.riichi,
                               "dice": [v for t in c.hand.throws for v in t], "kans": c.hand.kans}
        if len(c.hand.throws) == c.rules.dice.throws:
            out["walls"] = c.hand.walls(c.rules, c.setup())
    if c.last_record is not None:
        out["last_result"] = c.last_record
    if c.standings is not None:
        out["final_scores"] = list(c.standings.final_scores)
        out["ranks"] = list(c.standings.ranks)
    if c.table.stats is not None:
        out["link"] = {**_stats_dict(c.table.stats), **c.table.quality.as_dict()}
    return out


def _rules(rules: R.RuleSet) -> dict[str, Any]:
    """What a result form needs to offer only the values the rule set allows."""
    pay = rules.payment
    han_fu = pay.scheme == "riichi"
    return {"scheme": pay.scheme, "multiple_ron": rules.multiple_ron, "riichi": rules.riichi is not None,
            "abortive_draw": rules.draw.abortive,
            "han_fu": {"limit_han": pay.limits[0].han, "seven_pairs_fu": pay.seven_pairs_fu, "max_fu": pay.max_fu,
                       "max_yakuman": pay.max_yakuman} if han_fu else None,
            "points": None if han_fu else {"min": pay.min_points, "max": pay.max_points}}


def _waiting_for(c: "Controller") -> str | None:
    # While paused all motion waits for the operator, whatever the step waited for; a
    # result is still taken.
    if c.sm.is_motion_paused() and c.waiting_for != "result":
        return "resume"
    return c.waiting_for


def _stats_dict(stats) -> dict[str, Any]:
    return {k: v for k, v in vars(stats).items() if isinstance(v, (int, float))}
