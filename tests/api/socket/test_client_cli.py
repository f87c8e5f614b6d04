import json

import pytest

from controller.errors import Refusal
from controller.cli import main
from controller.api.client import Client, ClientError, RequestError

from .api_harness import STATUS


def cli(served, *argv):
    return main([*argv, "--socket", str(served.path)])


@pytest.mark.parametrize("argv, result", [
    (["ron", "--discarder", "2", "--winner", "1", "--han", "3", "--fu", "40", "--riichi", "1"],
     {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}], "riichi": [1]}),
    (["ron", "--discarder", "0", "--winner", "1", "--han", "3", "--fu", "40", "--winner", "3", "--yakuman", "1",
      "--riichi", "1", "3"],
     {"kind": "ron", "discarder": 0, "winners": [{"seat": 1, "han": 3, "fu": 40}, {"seat": 3, "yakuman": 1}],
      "riichi": [1, 3]}),
    (["ron", "--discarder", "2", "--winner", "1", "--points", "30", "--responsible", "none"],
     {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "points": 30, "responsible": None}]}),
    (["tsumo", "--winner", "1", "--han", "4", "--fu", "30"],
     {"kind": "tsumo", "winners": [{"seat": 1, "han": 4, "fu": 30}]}),
    (["draw", "--tenpai", "0", "3", "--riichi", "0"], {"kind": "draw", "tenpai": [0, 3], "riichi": [0]}),
    (["draw", "--tenpai"], {"kind": "draw", "tenpai": []}),  # riichi: the controller's declarations
    (["draw", "--tenpai", "1", "--riichi"], {"kind": "draw", "tenpai": [1], "riichi": []}),
    (["chombo", "--offender", "3"], {"kind": "chombo", "offender": 3}),
])
def test_result_is_sent_for_the_hand_in_play(served, capsys, argv, result):
    assert cli(served, "result", *argv) == 0
    assert served.handler.calls == [("status", {}), ("result", {"hand": STATUS["hand_in_play"]["seq"], "result": result})]


def test_result_for_a_given_hand_skips_status(served):
    assert cli(served, "result", "chombo", "--offender", "1", "--hand", "3") == 0
    assert served.handler.calls == [("result", {"hand": 3, "result": {"kind": "chombo", "offender": 1}})]


@pytest.mark.parametrize("argv, complaint", [
    (["ron", "--discarder", "2", "--han", "3"], "--han must follow the --winner"),
    (["ron", "--discarder", "2", "--winner", "1", "--han", "3", "--han", "2"], "--han given twice for winner 1"),
    (["tsumo", "--winner", "4", "--han", "1"], "a seat is 0, 1, 2 or 3"),
    (["ron", "--winner", "1", "--han", "1", "--fu", "30"], "--discarder"),
])
def test_bad_result_arguments_are_usage_errors(served, capsys, argv, complaint):
    with pytest.raises(SystemExit) as exit_:
        cli(served, "result", *argv)
    assert exit_.value.code == 2 and complaint in capsys.readouterr().err
    assert served.handler.calls == []


def test_tsumo_with_two_winners_is_refused(served, capsys):
    assert cli(served, "result", "tsumo", "--winner", "1", "--han", "1", "--fu", "30", "--winner", "2", "--han", "1",
               "--fu", "30") == 1
    assert "exactly one --winner" in capsys.readouterr().err
    assert served.handler.calls == []


@pytest.mark.parametrize("argv, call", [
    (["start"], ("start", {})),
    (["start", "--ruleset", "wrc", "--dealer", "draw"], ("start", {"ruleset": "wrc", "dealer": "draw"})),
    (["start", "--dealer", "2"], ("start", {"dealer": 2})),
    (["riichi", "1"], ("riichi", {"seat": 1})),
    (["kan"], ("kan", {})),
    (["pause"], ("pause", {})),
    (["resume"], ("resume", {})),
    (["retry"], ("retry", {})),
    (["abandon"], ("abandon", {})),
])
def test_commands_send_their_op(served, capsys, argv, call):
    assert cli(served, *argv) == 0
    assert served.handler.calls == [call]


def test_status_is_readable_and_json_is_raw(served, capsys):
    assert cli(served, "status") == 0
    out = capsys.readouterr().out
    assert out.startswith("state: playing\n") and "hand in play: E3 (seq 7) · dice 3+5 · riichi 1" in out
    assert [line.split()[-1] for line in out.splitlines() if line.startswith("  seat ")] == \
        ["25000", "24000", "26000", "25000"]
    assert cli(served, "status", "--json") == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, **STATUS}


def test_api_error_is_one_line_on_stderr(served, capsys):
    served.handler.refuse = Refusal("invalid_result", "1 han 20 fu does not exist for a ron")
    assert cli(served, "result", "ron", "--discarder", "2", "--winner", "1", "--han", "1", "--fu", "20", "--hand", "7") == 1
    captured = capsys.readouterr()
    assert captured.err == "mjtable result: 1 han 20 fu does not exist for a ron\n" and captured.out == ""


def test_duplicate_result_says_nothing_changed(served, capsys, mocker):
    handle = mocker.patch.object(served.handler, "handle", mocker.AsyncMock(return_value={"duplicate": True}))
    assert cli(served, "result", "draw", "--tenpai", "--hand", "7") == 0
    assert "already recorded; nothing changed" in capsys.readouterr().out
    handle.assert_awaited_once_with("result", {"hand": 7, "result": {"kind": "draw", "tenpai": []}})


def test_controller_not_running_is_a_clear_message(short_tmp, capsys):
    assert main(["status", "--socket", str(short_tmp / "none.sock")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mjtable status: no controller is running at") and err.count("\n") == 1


def test_client_raises_request_error_with_code(served):
    served.handler.refuse = Refusal("not_allowed", "the table is paused")
    with pytest.raises(RequestError) as refused:
        Client(served.path).request("kan")
    assert (refused.value.code, refused.value.message) == ("not_allowed", "the table is paused")


def test_client_subscription_yields_events(served):
    with Client(served.path).subscribe() as events:
        assert events.status == STATUS
        served.publish("scores", scores=[1, 2, 3, 4])
        assert next(iter(events)) == {"event": "scores", "scores": [1, 2, 3, 4]}


def test_client_reports_a_silent_controller(short_tmp):
    import socket
    path = short_tmp / "silent.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        listener.listen()
        with pytest.raises(ClientError, match="did not answer in time"):
            Client(path, timeout=0.2).request("status")


def test_socket_path_from_the_table_config(served, short_tmp, capsys):
    (short_tmp / "profile.yaml").touch()
    config = short_tmp / "table.yaml"
    config.write_text('serial: {port: "socket://localhost:7000", baud: 115200}\nprofile: profile.yaml\n'
                      f"ruleset: ema-2016\nstate: {{database: state.db}}\napi: {{socket: {served.path}}}\n")
    assert main(["kan", "--config", str(config)]) == 0
    assert served.handler.calls == [("kan", {})]
    config.write_text(config.read_text().replace("baud: 115200", "baud: fast"))
    with pytest.raises(SystemExit) as exited:  # as `mjtable run` and check-config: exit 2
        main(["kan", "--config", str(config)])
    assert exited.value.code == 2
    assert "baud" in capsys.readouterr().err and served.handler.calls == [("kan", {})]


def test_status_gives_three_player_winds_and_the_last_result_in_words():
    from controller.commands.status_text import describe_status
    status = {"state": "playing", "ruleset": "sanma", "players": 3, "fault": None, "waiting_for": "result",
              "scores": [33000, 37000, 35000, 0], "dealer": 1, "honba": 1, "riichi_sticks": 0, "round_wind": 1,
              "hand": "S2", "hands_played": 5,
              "last_result": {"hand": "S1", "result": {"kind": "ron", "discarder": 0, "riichi": [1],
                                                       "winners": [{"seat": 1, "han": 2, "fu": 30}]},
                              "payments": [-2000, 2000, 0, 0], "riichi_sticks_after": 0}}
    lines = describe_status(status).splitlines()
    assert lines[3] == "round: South · hand S2 · honba 1 · riichi sticks 0 · hands played 5"
    assert [line.split() for line in lines[4:7]] == [["seat", "0", "West", "33000"], ["seat", "1", "East", "37000",
                                                     "dealer"], ["seat", "2", "South", "35000"]]
    assert lines[7] == "last result: S1 ron (winner 1: 2 han 30 fu, discarder 0, riichi 1) · payments -2000 +2000 0 0" \
                       " · riichi sticks after 0"
