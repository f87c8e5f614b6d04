"""The API's refusals speak to every client (the page, MQTT, the socket): they say what to
do in words, never as a CLI command in backticks, which a player on the page cannot type."""
import re

from .web_harness import RunningWeb

# a CLI command, or any name in backticks
COMMAND = re.compile(r"`|\bmjtable\b")


def refusal(client, op: str, **args) -> str:
    status, reply = client.op(op, **args)
    assert status in (400, 409) and not reply["ok"], reply
    return reply["error"]["message"]


def test_refusals_on_the_page_name_no_command(web: RunningWeb):
    operator = web.operator()
    said = {"session_show": refusal(operator, "session_show"),
            "signal": refusal(operator, "signal", signal="start"),
            "start --round": refusal(operator, "start", round=1)}
    assert operator.op("session_start", name="Friday club")[0] == 200
    again = refusal(operator, "session_start", name="Saturday")
    assert operator.op("pause")[0] == 200
    said |= {"retry while paused": refusal(operator, "retry"), "pause while paused": refusal(operator, "pause"),
             "start while paused": refusal(operator, "start")}
    assert said == {
        "session_show": "no session yet: start one first",
        "signal": "no game on the clock is in play; start a game with its time limit first",
        "start --round": "this table has no number: set table.number in the table config to take its seats from "
                         "the schedule",
        "retry while paused": "the table is paused, which is no fault; resume carries on",
        "pause while paused": "cannot pause while paused: the table is stopped already; resume carries on",
        "start while paused": "the table is paused; resume it first, then start",
    }
    assert again.startswith("session 1 (Friday club) is open (since ")
    assert again.endswith("); end it first")
    assert not [text for text in [*said.values(), again] if COMMAND.search(text)], said

