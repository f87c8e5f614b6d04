"""The status reply (docs/API.md `status`), composed from each part's own: the machine's
state, the fault (`Faults.status`), the table facade's connection and link
(`Table.status`), the game in play (`game_status` below), its clock, the store, the club
session and the maintenance reminders."""
from __future__ import annotations

from typing import Any

from controller import rules as R
from controller.club.players import as_list
from controller.game.game import InPlay


def compose(sm, in_play: InPlay, faults, table, clock, db, sessions, reminders, display_mode: str) -> dict[str, Any]:
    out: dict[str, Any] = {"state": sm.state, "ruleset": in_play.ruleset_name, "players": in_play.rules.players,
                           "seats": list(in_play.rules.seats), "display_mode": display_mode, **faults.status(),
                           "connection": table.link.status(),
                           "waiting_for": waiting_for(sm, in_play),
                           "store_error": db.error if db is not None else None,
                           "session": sessions.status(),
                           "maintenance_due": reminders.due(),
                           "rules": rules_form(in_play.rules)}
    out.update(game_status(in_play, clock.status()))
    out.update(table.status())
    return out


def game_status(in_play: InPlay, clock: dict | None) -> dict[str, Any]:
    """The game in play: scores as the table shows them, players, the round and table of a
    schedule, the clock, the hand in play and its walls, the last hand, the final."""
    out: dict[str, Any] = {}
    rules, hand = in_play.rules, in_play.hand
    if in_play.state is not None:
        s = in_play.displayed()
        out.update(scores=list(s.scores), dealer=s.dealer, starting_dealer=s.starting_dealer, honba=s.honba,
                   riichi_sticks=s.riichi_sticks, round_wind=s.round_wind, hand=R.hand_label(s),
                   hands_played=s.hands_played, finished=s.finished,
                   wind_marker={"wind": s.round_wind, "seat": s.starting_dealer})
        if in_play.players:
            out.update(seat_players=as_list(in_play.players), seating=in_play.seating)
        if in_play.place is not None:  # the seats a tournament round's schedule expects
            out.update(round=in_play.place.round, table=in_play.place.table)
        if clock is not None:  # a game on the clock (controller/game/clock.py)
            out["time_limit"] = clock
            if clock["ended"]:
                out["ended"] = "time"
    if hand is not None:
        out["hand_in_play"] = {"seq": hand.seq, "label": hand.label, "riichi": hand.riichi,
                               "dice": [v for t in hand.throws for v in t], "kans": hand.kans}
        if len(hand.throws) == rules.dice.throws:
            out["walls"] = hand.walls(rules, in_play.setup())
    if in_play.last_record is not None:
        out["last_result"] = in_play.last_record
    if in_play.standings is not None:
        out["final_scores"] = list(in_play.standings.final_scores)
        out["ranks"] = list(in_play.standings.ranks)
    if in_play.state is not None and any(in_play.state.penalties):  # deducted after uma (chombo)
        out["penalties"] = list(in_play.state.penalties)
    return out


def rules_form(rules: R.RuleSet) -> dict[str, Any]:
    """What a result form needs to offer only the values the rule set allows."""
    pay = rules.payment
    han_fu = pay.scheme == "riichi"
    return {"scheme": pay.scheme, "multiple_ron": rules.multiple_ron, "riichi": rules.riichi is not None,
            "abortive_draw": rules.draw.abortive, "red_fives": rules.red_fives,
            "han_fu": {"limit_han": pay.limits[0].han, "seven_pairs_fu": pay.seven_pairs_fu, "max_fu": pay.max_fu,
                       "max_yakuman": pay.max_yakuman} if han_fu else None,
            "points": None if han_fu else _points_form(pay)}


def _points_form(pay) -> dict[str, Any]:
    """The range a points field takes, and the single patterns above the limit it takes too."""
    top = None if pay.max_points is None else max((pay.max_points, *pay.above_limit))
    return {"min": pay.min_points, "max": top, "limit": pay.max_points, "above_limit": list(pay.above_limit)}


def waiting_for(sm, in_play: InPlay) -> str | None:
    # While paused all motion waits for the operator, whatever the step waited for; a
    # result is still taken.
    if sm.is_motion_paused() and in_play.waiting_for != "result":
        return "resume"
    return in_play.waiting_for
