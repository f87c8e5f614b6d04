"""JSON naming a key twice is refused as `bad_json` on the control socket and over HTTP of
`mjtable run` (readers differ on which one counts: `{"op":"status","op":"pause"}` must not
pause), and an `op` in an HTTP body is refused as docs/API.md says."""
import json
import socket

from .test_web_run import _run, _web_config
from .web_harness import SECRET, SECRET_HASH, Http

OPERATOR = {"Authorization": f"Bearer {SECRET}"}


def _socket_reply(path, line: bytes) -> dict:
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(path))
        conn.sendall(line + b"\n")
        return json.loads(conn.makefile().readline())


def test_repeated_keys_and_an_op_in_the_body_are_refused(procs):
    config = _web_config(procs, f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {SECRET_HASH}\n")
    _, port = _run(procs, config)
    http = Http(port)
    assert http.op("start", headers=OPERATOR)[0] == 200
    reply = _socket_reply(config.parent / "api.sock", b'{"op": "status", "op": "pause"}')
    assert reply["error"]["code"] == "bad_json" and "'op' given twice" in reply["error"]["message"]
    status, reply = http.request("POST", "/api/op/riichi", b'{"seat": 9, "seat": 1}', OPERATOR)
    assert (status, reply["error"]["code"]) == (400, "bad_json")
    status, reply = http.request("POST", "/api/op/status", {"op": "pause"}, OPERATOR)
    assert (status, reply["error"]["code"]) == (400, "bad_request")
    status = http.request("GET", "/api/status")[1]
    assert status["state"] != "paused" and (status.get("hand_in_play") or {}).get("riichi", []) == []
