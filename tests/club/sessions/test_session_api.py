"""The session ops of the control API (docs/API.md): what belongs to a session, and bad
requests refused with a clear error, changing nothing."""
import pytest

from controller.api.client import RequestError



def refused(service, op, **args) -> RequestError:
    with pytest.raises(RequestError) as error:
        service.request(op, **args)
    return error.value


@pytest.mark.parametrize("op, args, words", [
    ("session_start", {"name": 5}, "'name' must be the session's name"),
    ("session_start", {"show_totals": "yes"}, "'show_totals' must be true or false"),
    ("session_start", {"name": "x" * 65}, "at most 64 printable characters"),
    ("session_start", {"name": "bell\x07"}, "at most 64 printable characters"),
    ("session_show", {"session": 0}, "'session' must be a session id"),
    ("session_show", {"on_table": 1}, "'on_table' must be true or false"),
    ("session_end", {"force": True}, "unknown argument 'force'"),
])
def test_bad_arguments_are_refused_and_no_session_starts(service, op, args, words):
    error = refused(service, op, **args)
    assert error.code == "bad_request" and words in error.message, error.message
    assert service.status()["session"] is None
    assert refused(service, "session_show").message == "no session yet: start one first"


def test_a_session_holds_the_games_started_while_it_is_open(service):
    service.request("start")  # before the session: not in it
    opened = service.request("session_start", name="  Friday   club ")["session"]
    assert (opened["name"], opened["games"], opened["show_totals"]) == ("Friday club", 0, False)
    assert service.status()["session"] == opened
    service.request("abandon")
    service.request("start")
    assert service.status()["session"]["games"] == 1
    # the displays show the game in play: the totals wait until it is over
    error = refused(service, "session_show", on_table=True)
    assert error.code == "not_allowed" and "show the totals between games" in error.message
    ended = service.request("session_end")  # the game in play stays in the session
    assert service.status()["session"] is None
    assert [(g["status"], g["counted"], g["players"]) for g in ended["games"]] == [("active", False, [])]
    assert ended["totals"] == []
    assert service.request("session_show", session=opened["id"]) == ended
    service.request("abandon")
    again = service.request("session_show")
    assert [g["status"] for g in again["games"]] == ["abandoned"] and again["totals"] == []


def test_the_open_session_survives_a_restart(service, service_factory):
    service.request("session_start", name="late", show_totals=True)
    service.request("start")
    service.request("abandon")
    before = service.status()["session"]
    service.stop()
    again = service_factory(after=service)
    assert again.status()["session"] == before and before["games"] == 1
    assert refused(again, "session_start").code == "not_allowed"
