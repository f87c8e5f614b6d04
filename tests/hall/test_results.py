"""Results in, exactly once, through `mjtable hall serve` on a real mosquitto with the ACL
of docs/INSTALL.md: the tables' results (published as controller/api/mqtt/results.py
publishes them) stored once each, confirmed, kept across a SIGKILL of the hall; forged,
unknown and duplicate results change nothing; the EMA export equals docs/HALL.md's."""
from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request

from ..api.mqtt.listener import Listener
from ..support.processes import wait_for
from .conftest import doc_block, hall

# docs/HALL.md's four games: (round, table, table id, [(score, table points, rank)] East first)
GAMES = [
    (1, 1, "demo-1", [(35200, 20200, 1), (32000, 7000, 2), (28000, -7000, 3), (24800, -20200, 4)]),
    (1, 2, "demo-2", [(40000, 25000, 1), (30000, 0, 2), (30000, 0, 2), (20000, -25000, 4)]),
    (2, 1, "demo-1", [(25000, -20000, 4), (35000, 20000, 1), (30000, 0, 2), (30000, 0, 2)]),
    (2, 2, "demo-2", [(31000, 6000, 2), (29000, -6000, 3), (33000, 18000, 1), (27000, -18000, 4)]),
]


def result(key: str, table_id: str, winds, round_: int | None = None) -> dict:
    return {"key": key, "table_id": table_id, "time": 0, "ruleset": "ema-2016", "ended": "rules",
            **({"round": round_} if round_ else {}),
            "winds": [{"seat": s, "score": a, "table_points": b, "rank": c} for s, (a, b, c) in enumerate(winds)]}


class Table:
    """A table's account on the broker, publishing results and reading the hall's confirmations."""

    def __init__(self, broker, table_id: str) -> None:
        self.table_id = table_id
        self.mqtt = Listener(broker.port, table_id, f"mjtable/{table_id}/results/+/ack")

    def send(self, key: str, winds, round_: int | None = None, as_table: str | None = None) -> None:
        self.mqtt.publish(f"mjtable/{as_table or self.table_id}/results/{key}",
                          result(key, as_table or self.table_id, winds, round_), retain=True)

    def acks(self, key: str) -> int:
        return len(self.mqtt.on(f"mjtable/{self.table_id}/results/{key}/ack"))

    def wait_ack(self, key: str, count: int = 1) -> None:
        wait_for(lambda: self.acks(key) >= count, f"the hall to confirm {key}", 20)


def play_the_doc_s_games(broker) -> None:
    """docs/HALL.md's four games, each sent by its table and confirmed by the hall."""
    one, two = Table(broker, "demo-1"), Table(broker, "demo-2")
    with one.mqtt, two.mqtt:
        for n, (round_, _, table_id, winds) in enumerate(GAMES):
            (one if table_id == "demo-1" else two).send(f"k{n}", winds, round_)
        for n, (_, _, table_id, _) in enumerate(GAMES):
            (one if table_id == "demo-1" else two).wait_ack(f"k{n}")


def cells(row) -> list:
    """A row's cells as numbers where they are numbers (a sheet keeps 45.0 as 45), the
    empty ones as "", the trailing empty ones left out."""
    def value(v):
        if v is None or str(v).isdigit() and len(str(v)) == 8:  # an EMA number stays text
            return "" if v is None else str(v)
        try:
            return float(v)
        except ValueError:
            return str(v)
    out = [value(v) for v in row]
    while out and out[-1] == "":
        out.pop()
    return out


def standings_json(url: str) -> dict:
    with urllib.request.urlopen(url + "standings", timeout=10) as reply:
        return json.load(reply)


def test_results_reach_the_hall_once_across_a_sigkill_and_the_export_is_the_doc_s(hall_process, broker):
    hall_process.start()
    one, two = Table(broker, "demo-1"), Table(broker, "demo-2")
    with one.mqtt, two.mqtt:
        one.send("demo-1-a", GAMES[0][3])
        one.wait_ack("demo-1-a")
        assert standings_json(hall_process.url)["unreported"] == {"1": [2], "2": [1, 2]}
        one.send("demo-1-a", GAMES[0][3])  # republished: the hall has it already
        one.wait_ack("demo-1-a", 2)
        hall_process.stop(signal.SIGKILL)
        two.send("demo-2-a", GAMES[1][3])  # while the hall is down: retained on the broker
        hall_process.start()
        two.wait_ack("demo-2-a")
        one.send("demo-1-second", GAMES[2][3], round_=1)  # a second game in round 1: not counted
        wait_for(lambda: "round 1 table 1 has a result already (demo-1-a); this second game is not counted"
                 in hall_process.logs(), "the hall to refuse it")
        one.send("demo-1-b", GAMES[2][3], round_=2)
        two.send("demo-2-b", GAMES[3][3])  # no round: the next the table has not reported
        one.wait_ack("demo-1-b")
        two.wait_ack("demo-2-b")
        state = standings_json(hall_process.url)
        assert state["results"] == 4 and state["unreported"] == {"1": [], "2": []}
    hall_process.stop()
    assert "result demo-1-a again: stored already, nothing changed" in hall_process.logs()
    rounds = hall("export", "rounds", cwd=hall_process.folder).stdout.splitlines()
    assert len(rounds) == 1 + 16
    corrected = hall("correct", "7", "-2000", "--who", "A. Referee", "--why", "late back from the break, round 2",
                     "--round", "2", cwd=hall_process.folder)
    assert corrected.returncode == 0, corrected.stderr
    exported = hall("export", "ema", cwd=hall_process.folder)
    assert exported.stdout == doc_block("Tournament,")


def test_the_xlsx_workbook_has_the_rows_of_the_csv(hall_process, broker):
    from openpyxl import load_workbook

    hall_process.start()
    play_the_doc_s_games(broker)
    hall_process.stop()
    assert hall("export", "ema-xlsx", "--out", "results.xlsx", cwd=hall_process.folder).returncode == 0
    sheet = load_workbook(hall_process.folder / "results.xlsx").active
    rows = [cells(row) for row in sheet.iter_rows(values_only=True)]
    exported = hall("export", "ema", cwd=hall_process.folder).stdout.splitlines()
    assert [r for r in rows if r] == [cells(line.split(",")) for line in exported if line]
    assert sheet.cell(12, 5).value == 45 and sheet.cell(12, 5).number_format == "0.0"  # a number, shown 45.0


def test_forged_unknown_and_malformed_results_change_nothing(hall_process, broker):
    hall_process.start()
    one, two, stranger = Table(broker, "demo-1"), Table(broker, "demo-2"), Table(broker, "demo-9")
    with one.mqtt, two.mqtt, stranger.mqtt:
        two.send("forged", GAMES[0][3], as_table="demo-1")  # demo-2 writing demo-1's tree: the ACL drops it
        stranger.send("demo-9-a", GAMES[0][3])               # a table not of this tournament
        one.mqtt.publish("mjtable/demo-1/results/bad", "not json", retain=True)
        one.send("demo-1-late", GAMES[0][3], round_=3)      # a round the seating does not have
        one.mqtt.publish("mjtable/demo-1/results/demo-1-t2", {**result("demo-1-t2", "demo-1", GAMES[0][3], 1),
                                                              "table": 2}, retain=True)  # a table config's wrong number
        wait_for(lambda: "demo-9 is not a table of this tournament" in hall_process.logs(), "the hall to log it")
        wait_for(lambda: "result bad from demo-1 ignored: not JSON" in hall_process.logs(), "the hall to log it")
        wait_for(lambda: "the seating has no table 1 in round 3" in hall_process.logs(), "the hall to log it")
        wait_for(lambda: "it says it is table 2, but the tables file has demo-1 as table 1" in hall_process.logs(),
                 "the hall to log it")
        assert standings_json(hall_process.url)["results"] == 0
        assert one.acks("forged") == 0 and stranger.acks("demo-9-a") == 0 and one.acks("bad") == 0
    assert "forged" not in hall_process.logs()


def post(url: str, body: dict, secret: str | None) -> tuple[int, dict]:
    request = urllib.request.Request(url, json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {secret}"} if secret else {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)


def test_a_correction_on_the_running_hall_needs_its_secret(hall_process, broker):
    hall_process.start()
    assert hall_process.secret
    correction = {"player": 7, "points": -2000, "who": "A. Referee", "why": "late back from the break"}
    for secret in (None, "wrong"):
        status, reply = post(hall_process.url + "api/correct", correction, secret)
        assert status == 401 and reply["ok"] is False
    status, reply = post(hall_process.url + "api/correct", {**correction, "player": 99}, hall_process.secret)
    assert status == 400 and reply["error"]["message"] == "unknown player number 99: the tournament has no such player"
    assert all(line["corrections"] == 0 for line in standings_json(hall_process.url)["standings"])
    status, reply = post(hall_process.url + "api/correct", correction, hall_process.secret)
    assert status == 200 and reply["correction"]["who"] == "A. Referee"
    gus = next(line for line in standings_json(hall_process.url)["standings"] if line["number"] == 7)
    assert gus["table_points"] == "-2.0" and gus["corrections"] == -2000
    hall_process.stop()
    hall_process.start()  # the secret's hash is kept: the same secret, not printed again
    status, _ = post(hall_process.url + "api/correct", correction, hall_process.secret)
    assert status == 200 and "operator secret" not in hall_process.log.read_text()


def test_the_hall_page_s_tables_are_the_floor_view_s_to_anyone(hall_process, broker):
    """GET /tables gives the tiles as the floor view does (the director's orders, a POST to
    /api/tables, once answered it in their place: a spectator got a 401)."""
    hall_process.start()
    one = Table(broker, "demo-1")
    with one.mqtt:
        one.mqtt.publish("mjtable/demo-1/status", {"state": "idle", "table_id": "demo-1"}, retain=True)
        wait_for(lambda: any(t["table_id"] == "demo-1" for t in tables_json(hall_process.url)), "the table's tile")
    status, _ = post(hall_process.url + "api/tables", {"order": "signal", "signal": "start"}, None)
    assert status == 401


def tables_json(url: str) -> list[dict]:
    with urllib.request.urlopen(url + "tables", timeout=30) as reply:
        return json.load(reply)["tiles"]
