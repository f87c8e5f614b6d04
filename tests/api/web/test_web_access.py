"""Who may do what over HTTP (docs/API.md, "Roles"): no secret, no change; a player plays
the hand but cannot pause or abandon; a cookie needs its CSRF token and the page's own
origin; wrong PINs lock the address out; an oversized body is refused."""
import asyncio

import pytest

from controller.errors import Refusal
from controller.api.web import access as A
from controller.api.web.server import MAX_BODY

from .web_harness import SECRET

RON = {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}], "riichi": []}


def _error(reply: tuple[int, dict], status: int, code: str) -> dict:
    got_status, body = reply
    assert (got_status, body["ok"], body["error"]["code"]) == (status, False, code), body
    return body["error"]


@pytest.mark.parametrize("op, args", [("pause", {}), ("abandon", {}), ("start", {}), ("retry", {}),
                                      ("riichi", {"seat": 1}), ("kan", {}), ("result", {"hand": 1, "result": RON}),
                                      ("preview", {"hand": 1, "result": RON})])
def test_without_a_secret_nothing_but_reading(in_play, op, args):
    before = in_play.status()
    _error(in_play.http().op(op, **args), 401, "unauthorized")
    assert in_play.status() == before


def test_a_spectator_reads(in_play):
    http = in_play.http()
    assert http.request("GET", "/api/status")[0] == 200
    assert http.op("journal")[0] == 200
    assert http.request("GET", "/api/session")[1]["role"] == "spectator"


@pytest.mark.parametrize("op", ["pause", "abandon", "start", "retry", "sensor_test"])
def test_a_player_cannot_run_the_operators_ops(in_play, op):
    before = in_play.status()
    error = _error(in_play.player().op(op), 403, "forbidden")
    assert "operator" in error["message"]
    assert in_play.status() == before


def test_a_player_declares_and_enters_the_result(in_play):
    player = in_play.player()
    assert player.op("riichi", seat=1) == (200, {"ok": True})
    assert player.op("result", hand=1, result={**RON, "riichi": [1]})[0] == 200
    in_play.wait_playing(2)


def test_the_operator_pauses_and_resumes(in_play):
    operator = in_play.operator()
    assert operator.op("pause") == (200, {"ok": True})
    assert in_play.status()["state"] == "paused"
    assert operator.op("resume") == (200, {"ok": True})
    session = operator.request("GET", "/api/session")[1]
    assert session["role"] == "operator" and session["pin"] == in_play.pin and "ema-2016" in session["rulesets"]


def test_the_pin_is_the_operators_to_see(in_play):
    assert "pin" not in in_play.player().request("GET", "/api/session")[1]
    assert "pin" not in in_play.http().request("GET", "/api/session")[1]


def test_a_cookie_without_its_csrf_token_changes_nothing(in_play):
    operator = in_play.operator()
    before = in_play.status()
    _error(operator.op("pause", csrf=False), 403, "forbidden")
    _error(operator.op("pause", csrf=False, headers={"X-CSRF-Token": "guessed"}), 403, "forbidden")
    assert in_play.status() == before
    assert operator.op("pause")[0] == 200


def test_a_request_from_another_sites_page_is_refused(in_play):
    operator = in_play.operator()
    _error(operator.op("pause", headers={"Origin": "http://evil.example"}), 403, "forbidden")
    status, reply = operator.op("pause", headers={"Origin": f"http://127.0.0.1:{in_play.web.port}"})
    assert status == 200, reply


def test_a_bearer_secret_needs_no_csrf_token(in_play):
    script = in_play.http()
    assert script.op("riichi", seat=2, headers={"Authorization": f"Bearer {in_play.pin}"}) == (200, {"ok": True})
    assert script.op("pause", headers={"Authorization": f"Bearer {SECRET}"}) == (200, {"ok": True})
    _error(script.op("resume", headers={"Authorization": f"Bearer {in_play.pin}"}), 403, "forbidden")


def test_pin_guessing_is_locked_out(in_play):
    guesser = in_play.http()
    wrong = f"{(int(in_play.pin) + 1) % 10 ** A.PIN_DIGITS:0{A.PIN_DIGITS}d}"
    for _ in range(A.MAX_FAILURES):
        _error(guesser.request("POST", "/api/login", {"role": "player", "pin": wrong}), 401, "unauthorized")
    status, reply = guesser.request("POST", "/api/login", {"role": "player", "pin": in_play.pin})
    assert status == 429 and reply["error"]["code"] == "locked_out" and reply["error"]["retry_after"] > 0
    assert guesser.cookie is None
    _error(guesser.op("riichi", seat=1, headers={"Authorization": f"Bearer {in_play.pin}"}), 429, "locked_out")


def test_a_lockout_ends_after_its_time():
    now = [0.0]
    access = A.Access("scrypt$2$1$1$AA==$AA==", clock=lambda: now[0])
    pin = access.new_pin()
    wrong = f"{(int(pin) + 1) % 10 ** A.PIN_DIGITS:0{A.PIN_DIGITS}d}"
    run = asyncio.run
    for _ in range(A.MAX_FAILURES):
        with pytest.raises(Refusal):
            run(access.login("10.0.0.9", "player", wrong))
    with pytest.raises(Refusal) as locked:
        run(access.login("10.0.0.9", "player", pin))
    assert locked.value.code == "locked_out"
    assert run(access.login("10.0.0.8", "player", pin))[1].role == "player"  # another address is not
    now[0] += A.FAILURE_WINDOW + 1
    assert run(access.login("10.0.0.9", "player", pin))[1].role == "player"


def test_a_new_game_ends_the_last_games_player_sessions(in_play):
    player, operator = in_play.player(), in_play.operator()
    assert operator.op("abandon")[0] == 200
    assert operator.op("start")[0] == 200
    assert in_play.access.generation == 2  # a new PIN (by chance the same digits, 1 in a million)
    assert player.request("GET", "/api/session")[1]["role"] == "spectator"
    _error(player.op("riichi", seat=1), 401, "unauthorized")


def test_an_oversized_body_is_refused(in_play):
    player = in_play.player()
    before = in_play.status()
    status, reply = player.request("POST", "/api/op/riichi", b'{"seat": 1, "x": "' + b"x" * MAX_BODY + b'"}',
                                   {"X-CSRF-Token": player.csrf, "Content-Type": "application/json"})
    assert status == 413 and reply["error"]["code"] == "too_large"
    assert in_play.status() == before


def test_spectators_pin_closes_the_reads(web_factory):
    closed = web_factory(spectators="pin")
    closed.request("start")
    closed.wait_playing(1)
    _error(closed.http().request("GET", "/api/status"), 401, "unauthorized")
    _error(closed.http().op("journal"), 401, "unauthorized")
    assert closed.player().request("GET", "/api/status")[0] == 200


def test_the_table_shows_the_games_pin_on_its_centre_display(in_play):
    assert in_play.call(lambda: in_play.table.model.centre_display.text) == f"web PIN {in_play.pin}"


def test_a_crowd_of_player_logins_never_ends_the_operators():
    access = A.Access("scrypt$2$1$1$AA==$AA==")
    pin = access.new_pin()
    token, _ = access._open("operator")
    for _ in range(A.MAX_LOGINS + 10):
        asyncio.run(access.login("10.0.0.7", "player", pin))
    assert access.login_of(token).role == "operator"
    assert sum(login.role == "player" for login in access._logins.values()) == A.MAX_LOGINS


def test_many_addresses_share_one_budget_and_cannot_flush_a_lockout():
    now = [0.0]
    access = A.Access("scrypt$2$1$1$AA==$AA==", clock=lambda: now[0])
    pin = access.new_pin()
    wrong = f"{(int(pin) + 1) % 10 ** A.PIN_DIGITS:0{A.PIN_DIGITS}d}"
    codes = []
    for i in range(1000):
        with pytest.raises(Refusal) as refused:
            asyncio.run(access.login(f"10.0.{i // 250}.{i % 250}", "player", wrong))
        codes.append(refused.value.code)
    assert codes.count("unauthorized") == A.MAX_TOTAL_FAILURES and len(access._failures) <= A.MAX_TOTAL_FAILURES
    with pytest.raises(Refusal) as locked:
        asyncio.run(access.login("10.0.0.0", "player", pin))
    assert locked.value.code == "locked_out"
    now[0] += A.FAILURE_WINDOW + 1
    assert asyncio.run(access.login("10.0.0.0", "player", pin))[1].role == "player"


def test_the_operator_is_offered_only_the_rule_sets_this_table_can_play(in_play):
    # The simulated four-port table holds 136 tiles: no MCR (144) and no sanma (108) to start.
    session = in_play.operator().request("GET", "/api/session")[1]
    assert {"ema-2016", "wrc", "mleague", "zung-jung"} <= set(session["rulesets"])
    assert not {"mcr", "sanma"} & set(session["rulesets"])
