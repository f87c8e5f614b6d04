"""`mjtable status` for people: the round, each seat with its wind and score, the hand in
play and the last result, in words; the link statistics and the walls only on request.
The lines a player reads (the round, the seats, the final standings) are in the reader's
language (controller/language.py); the operator's stay in English, as the logs."""
from __future__ import annotations

import json

from controller.language import ENGLISH, Words

WIND_NAMES = ("East", "South", "West", "North")


def describe_status(status: dict, verbose: bool = False, words: Words = ENGLISH) -> str:
    lines = [_state_line(status), f"fault: {_text(status.get('fault'))}",
             f"rule set: {status.get('ruleset', '-')} ({status.get('players', '?')} players)"]
    if status.get("fault_retries"):
        lines.insert(2, "  `mjtable retry` retries here, once it is seen to")
    if problem := (status.get("connection") or {}).get("problem"):
        lines.insert(1, f"connection: {problem}; next try in {status['connection']['retry_in']:g} s")
    if "scores" in status:
        lines += _game_lines(status, words)
    if clock := status.get("time_limit"):
        lines.append(time_limit_line(clock))
    if hand := status.get("hand_in_play"):
        lines.append(_hand_line(hand))
    if last := status.get("last_result"):
        lines.append(_last_result_line(last))
    if (sticks := status.get("sticks")) and not sticks["agrees"]:
        lines.append(f"sticks: {sticks['message']}")  # the stick reader disagrees with the ledger
    if "final_scores" in status:
        lines.append(words.say("final scores: {scores}  ranks: {ranks}", scores=_numbers(status["final_scores"]),
                               ranks=_numbers(status.get("ranks", []))))
        if status.get("seat_players"):
            lines.append(_standings_line(status, words))
    if session := status.get("session"):
        lines.append(_session_line(session))
    if verbose:
        for part in ("walls", "link"):
            if part in status:
                lines += [f"{part}:", *(f"  {k.replace('_', ' ')}: {_text(v)}" for k, v in status[part].items())]
    return "\n".join(lines)


def _state_line(status: dict) -> str:
    waiting = status.get("waiting_for")
    return f"state: {status.get('state', '?')}" + (f" (waiting for: {waiting})" if waiting else "")


def _game_lines(status: dict, words: Words) -> list[str]:
    seats = status.get("seats") or list(range(status.get("players", 4)))
    dealer = status.get("dealer")
    names = {p["seat"]: p["name"] for p in status.get("seat_players") or ()}
    chinese = (status.get("rules") or {}).get("scheme", "riichi") != "riichi"  # its own word for the dealer
    lines = [words.say("round: {wind} · hand {hand} · honba {honba} · riichi sticks {sticks} · hands played {played}",
                       wind=_wind(status.get("round_wind"), words), hand=status.get("hand", "-"),
                       honba=status.get("honba", 0), sticks=status.get("riichi_sticks", 0),
                       played=status.get("hands_played", 0))
             + (words.say(" · finished") if status.get("finished") else "")]
    for seat in seats:
        # seat winds run counter-clockwise from the dealer over the seats in play
        wind = _wind((seats.index(seat) - seats.index(dealer)) % len(seats), words) if dealer in seats else "-"
        score = status["scores"][seat] if seat < len(status["scores"]) else "-"
        is_dealer = "" if seat != dealer else words.say_in("chinese", "  dealer") if chinese else words.say("  dealer")
        lines.append(words.say("  seat {seat}  {wind:<5}  {score:>7}", seat=seat, wind=wind, score=score) + is_dealer
                     + (f"  {names[seat]}" if seat in names else ""))
    if status.get("seating") == "draw":
        lines.append(words.say("  seats drawn by the table"))
    if "round" in status:
        lines.append(f"  seats of round {status['round']} at table {status.get('table')}, from the schedule")
    return lines


def _standings_line(status: dict, words: Words) -> str:
    """The final standings by player, first place first: ``final: 1 Bo +19200 · 2 Di +5000 · ...``."""
    final, ranks = status["final_scores"], status.get("ranks") or []
    places = sorted((ranks[p["seat"]], p["seat"], p["name"]) for p in status["seat_players"] if p["seat"] < len(ranks))
    return words.say("final: {standings}", standings=" · ".join(f"{rank} {name} {final[seat]:+d}"
                                                                 for rank, seat, name in places))


def _session_line(session: dict) -> str:
    name = f" ({session['name']})" if session.get("name") else ""
    totals = " · totals on the table after each game" if session.get("show_totals") else ""
    return f"session {session['id']}{name}: {session.get('games', 0)} game(s) since {session.get('started_at', '-')}" \
        + totals
def time_limit_line(clock: dict) -> str:
    """A session on the clock: before its start, its time left, the hands after the warning."""
    head = f"time limit: {clock['session_minutes']} min"
    if clock.get("ended"):
        return f"{head} · the game ended by time"
    if clock.get("started_at") is None:
        return f"{head} · not started: the dice wait for the start signal (`mjtable signal start`)"
    minutes, seconds = divmod(clock.get("seconds_left") or 0, 60)
    line = f"{head} · started {clock['started_at']} · {minutes}:{seconds:02d} left"
    if not clock.get("signalled"):
        return f"{line} · warning at {clock['warning_at']}"
    left = clock.get("hands_left")
    return f"{line} · warning given by the {clock['signalled_by']} · {'last hand' if left == 1 else f'{left} hands left'}"


def _hand_line(hand: dict) -> str:
    dice = "+".join(str(d) for d in hand.get("dice", [])) or "not thrown"
    return (f"hand in play: {hand.get('label', '-')} (seq {hand.get('seq', '-')}) · dice {dice} · "
            f"riichi {_numbers(hand.get('riichi', []))} · kans {hand.get('kans', 0)}")


def _last_result_line(record: dict) -> str:
    result = dict(record.get("result") or {})
    kind = result.pop("kind", "?")
    winners = [_winner(w) for w in result.pop("winners", [])]
    details = ", ".join(winners + [f"{key} {_text(value)}" for key, value in result.items()])
    payments = " ".join(f"{p:+d}" if isinstance(p, int) and p else str(p) for p in record.get("payments", []))
    return f"last result: {record.get('hand', '-')} {kind}" + (f" ({details})" if details else "") + \
        f" · payments {payments or '-'} · riichi sticks after {record.get('riichi_sticks_after', 0)}"


def _winner(win: dict) -> str:
    """``winner 1: 3 han 40 fu`` (or points, yakuman, responsible) from a result's winner."""
    figures = " ".join(f"{_text(value)} {key}" for key, value in win.items() if key != "seat")
    return f"winner {win.get('seat', '?')}" + (f": {figures}" if figures else "")


def _wind(index, words: Words) -> str:
    return words.say(WIND_NAMES[index]) if isinstance(index, int) and 0 <= index < len(WIND_NAMES) else "-"


def _numbers(values: list) -> str:
    return " ".join(str(v) for v in values) or "-"


def _text(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return _numbers(value)
    return value if isinstance(value, str) else json.dumps(value)
