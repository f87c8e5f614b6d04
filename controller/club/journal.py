"""The hand journal: one record per hand, exported from the state database.

The controller stores each hand's record (exactly :data:`HAND_KEYS`, and ``penalties``
where a tournament chombo gave one) with
``Store.commit_hand``; this module reads the records back, in that key order, and
writes them as JSON lines or CSV. A finished game ends with one ``{"final": true, ...}``
object. A game with named players begins with one ``{"seating": "draw"|"as-given"|"schedule",
"players": [...]}`` object (each seat's player, or null for an empty side), and each
record after it carries ``players``, the name at each seat. A game of a club session
has ``session`` on its first record, one of a tournament round its ``round`` and ``table``.
A game on the clock has a ``{"time_signal": "start"|"warning", "at", "by", "seq",
"dice_thrown"}`` object for each signal (JSON lines only), before the record of the hand it
fell in, and its final object says ``"ended": "time"`` when the time limit ended it.
"""
from __future__ import annotations

import csv
import json
from typing import IO, Iterable

from controller.club.players import Player
from controller.club.time_limit import STORED_KEY, iso
from controller.store.database import Store, StoreError

HAND_KEYS = (
    "ruleset", "hand", "honba", "riichi_sticks", "dealer", "dice", "breaker", "broken_wall", "dead_wall",
    "dora_indicators", "result", "payments", "scores", "riichi_sticks_after",
)
FINAL_KEYS = ("scores", "final_scores", "ranks")
GAME_KEYS = ("session", "round", "table")  # on the first record, when the game has them
FINAL_IF_GIVEN = ("ended", "penalties")
HAND_IF_GIVEN = ("penalties",)  # a tournament chombo's: deducted from the final scores


def journal_records(store: Store, game_id: int | None = None) -> list[dict]:
    """The hands of a game (the latest by default), then its final standings if finished."""
    game = store.game(game_id) if game_id is not None else store.latest_game()
    if game is None:
        raise StoreError(f"no game recorded in {store.path} yet")
    records = [{**{k: r.get(k) for k in HAND_KEYS}, **{k: r[k] for k in HAND_IF_GIVEN if k in r}}
               for r in store.hands(game.id)]
    for signal in reversed(game.hand.get(STORED_KEY, {}).get("signals", [])):
        records.insert(signal["seq"] - 1, {"time_signal": signal["signal"], "at": iso(signal["at"]), "by": signal["by"],
                                           "seq": signal["seq"], "dice_thrown": signal["dice_thrown"]})
    if game.status == "finished" and game.final is not None:
        records.append({"final": True, **{k: game.final.get(k) for k in FINAL_KEYS},
                        **{k: game.final[k] for k in FINAL_IF_GIVEN if k in game.final}})
    players = store.players(game.id)
    if players:
        seats = range(max([max(players) + 1] + [len(r.get("scores") or ()) for r in records]))
        names = [players[s]["name"] if s in players else None for s in seats]
        records = [{"seating": game.seating, "players": [players.get(s) for s in seats]},
                   *(r if "time_signal" in r else {**r, "players": names} for r in records)]
    return _with_game_keys(records, game)


def _with_game_keys(records: list[dict], game) -> list[dict]:
    """The game's session, round and table (when it has them) on its first record."""
    keys = {k: v for k, v in zip(GAME_KEYS, (game.session_id, game.round, game.table)) if v is not None}
    if not keys or not records:
        return records
    return [{**records[0], **keys}, *records[1:]]


GAME_FIELDS = ("id", "ruleset", "status", "started_at", "ended_at", "seating", "session_id", "round", "table")


def game_journal(store: Store, game_id: int | None = None) -> dict:
    """A game's journal (the latest by default; none recorded: null) and the list of games, newest first."""
    games = [{k: getattr(g, k) for k in GAME_FIELDS} for g in reversed(store.games())]
    if not games:
        return {"game": None, "records": [], "games": []}
    game = next((g for g in games if g["id"] == game_id), None) if game_id is not None else games[0]
    if game is None:
        raise StoreError(f"no game {game_id} in {store.path}")
    return {"game": game, "records": journal_records(store, game["id"]), "games": games}


def write_jsonl(records: Iterable[dict], out: IO[str]) -> None:
    for record in records:
        out.write(json.dumps(record, separators=(", ", ": ")) + "\n")


# CSV: one row per hand, then a row with hand "final". Per-seat lists get one column per
# seat (payments_0 ...) so a spreadsheet can sum them; dice and positions are
# space-separated ("3 5", "2:5 2:4" = seat:stack); the result is its JSON text.
# A game with players adds players_0 ... (the name; on the first row, hand "seating", each
# player as `mjtable start --players` takes it: "Ann:EMA=04010001") and a seating column;
# a game of a session (a round) a session (round and table) column, filled on the first row.
_PER_SEAT = ("payments", "scores", "final_scores", "ranks", "players", "penalties")
_PER_SEAT_IF_GIVEN = ("players", "penalties")  # columns only in a game that has them


def _columns(records: list[dict]) -> list[str]:
    seats = max((len(r.get("scores") or r.get("players") or []) for r in records), default=4)
    named = any("players" in r for r in records)
    columns = [k for k in HAND_KEYS if k not in _PER_SEAT] + (["seating"] if named else [])
    columns += [k for k in GAME_KEYS if any(k in r for r in records)]
    given = {k for k in _PER_SEAT_IF_GIVEN if any(k in r for r in records)}
    columns += [f"{k}_{s}" for k in _PER_SEAT for s in range(seats) if k in given or k not in _PER_SEAT_IF_GIVEN]
    return columns + [k for k in FINAL_IF_GIVEN if k not in _PER_SEAT and any(k in r for r in records)]


def _cell(key: str, value) -> str:
    if value is None:
        return ""
    if key == "result":
        return json.dumps(value, separators=(",", ":"))
    if key in ("dead_wall", "dora_indicators"):
        return " ".join(f"{seat}:{stack}" for seat, stack in value)
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    if isinstance(value, dict):  # a player of the seating record
        return Player.from_dict(value).cli_form()
    return str(value)


def _row(record: dict) -> dict:
    row = {k: _cell(k, v) for k, v in record.items() if k not in _PER_SEAT and k != "final"}
    if record.get("final"):
        row["hand"] = "final"
    if "seating" in record:
        row["hand"] = "seating"
    for key in _PER_SEAT:
        row.update({f"{key}_{s}": _cell(key, v) for s, v in enumerate(record.get(key) or [])})
    return row


def write_csv(records: list[dict], out: IO[str]) -> None:
    records = [r for r in records if "time_signal" not in r]  # the signals are in the JSON lines
    writer = csv.DictWriter(out, fieldnames=_columns(records), restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(_row(r) for r in records)


WRITERS = {"jsonl": write_jsonl, "csv": write_csv}
