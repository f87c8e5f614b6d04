"""`mjtable run` with a `web:` section, as docs/INSTALL.md tells a user to set it up: the
page's address in the log, a hand played over HTTP, and no PIN or secret in the log or
the journal afterwards; a generated operator secret is printed once; with MQTT as well, no
aiohttp in the process."""
import os
import re
import socket
import subprocess
from pathlib import Path

import controller

from controller.api.web.secret import verify_secret

from ...app.service.process_harness import start_sim, write_config
from ...support.mosquitto import PASSWORD, Mosquitto
from ...support.processes import MJTABLE, stderr_of, wait_for
from .web_harness import SECRET, SECRET_HASH, Http

STARTUP = 30.0  # seconds: a loaded machine starts two interpreters and a table slowly
RON = {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}], "riichi": []}


def _web_config(procs, web: str):
    config = write_config(procs.folder, start_sim(procs, seed=5))
    config.write_text(config.read_text() + web)
    return config


def _run(procs, config) -> tuple[object, int]:
    """`mjtable run` once it is ready, and the web page's port from its log."""
    run = procs.start("run", "--config", str(config), name="run")

    def ready():
        assert run.poll() is None, stderr_of(run)
        log = stderr_of(run)
        return "ready in" in log and re.search(r"web page on \S+ \(listening on 127\.0\.0\.1:(\d+)\)", log)
    port = wait_for(ready, "mjtable run ready, the web page's address in its log", timeout=STARTUP)
    return run, int(port[1])


def _bare(secret: str, text: str) -> bool:
    """``secret`` appears in ``text`` by itself (a PIN's digits inside a longer number do not count)."""
    return re.search(rf"(?<![0-9A-Za-z_-]){re.escape(secret)}(?![0-9A-Za-z_-])", text) is not None


def test_a_hand_over_http_leaves_no_secret_in_the_log_or_the_journal(procs):
    config = _web_config(procs, f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {SECRET_HASH}\n")
    run, port = _run(procs, config)
    operator = Http(port)
    operator.login("operator", secret=SECRET)
    assert operator.op("start")[0] == 200
    pin = operator.request("GET", "/api/session")[1]["pin"]
    assert re.fullmatch(r"\d{6}", pin)
    player = Http(port)
    player.login("player", pin=pin)
    wait_for(lambda: player.request("GET", "/api/status")[1]["state"] == "playing", "hand 1 in play")
    assert player.op("result", hand=1, result=RON) == (200, {"ok": True, "duplicate": False})
    assert player.op("result", hand=1, result=RON) == (200, {"ok": True, "duplicate": True})
    Http(port).request("POST", "/api/login", {"role": "operator", "secret": SECRET + "x"})  # a wrong one too
    journal = subprocess.run([MJTABLE, "journal", "--config", str(config)], capture_output=True, text=True,
                             check=True).stdout
    assert '"payments": [0, 5200, -5200, 0]' in journal
    log = stderr_of(run)
    assert "operator logged in" in log and "player logged in" in log
    for secret in (pin, SECRET, SECRET + "x"):
        assert not _bare(secret, log) and not _bare(secret, journal), secret


def test_without_a_configured_secret_one_is_made_and_printed_once(procs):
    config = _web_config(procs, "web:\n  listen: 127.0.0.1:0\n")
    run, port = _run(procs, config)
    printed = re.search(r"operator secret is (\S+)", stderr_of(run))[1]
    assert Http(port).login("operator", secret=printed)["role"] == "operator"
    run.terminate()
    run.wait(10)
    again, port = _run(procs, config)
    assert printed not in stderr_of(again)  # kept as its hash only
    assert Http(port).login("operator", secret=printed)["role"] == "operator"


def test_check_config_says_where_the_page_is_served(short_tmp):
    config = write_config(short_tmp, "/dev/null")
    config.write_text(config.read_text() + f"web:\n  listen: 0.0.0.0:8080\n  spectators: pin\n"
                                           f"  operator_secret: {SECRET_HASH}\n")
    done = subprocess.run([MJTABLE, "check-config", str(config)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "web page on 0.0.0.0:8080 (spectators pin)" in done.stdout


def test_check_config_names_a_bad_web_option(short_tmp):
    config = write_config(short_tmp, "/dev/null")
    config.write_text(config.read_text() + "web:\n  listen: everywhere\n  operator_secret: plain-text\n")
    done = subprocess.run([MJTABLE, "check-config", str(config)], capture_output=True, text=True)
    assert done.returncode != 0
    assert "web.listen: got 'everywhere'" in done.stderr and "web.operator_secret: not a secret hash" in done.stderr
    assert "plain-text" not in done.stderr


def test_hash_secret_prints_the_line_for_the_config():
    done = subprocess.run([MJTABLE, "web", "hash-secret"], input="a secret of mine\n", capture_output=True, text=True,
                          check=True)
    key, hashed = done.stdout.strip().split(": ", 1)
    assert key == "operator_secret" and "a secret of mine" not in done.stdout
    assert verify_secret("a secret of mine", hashed) and not verify_secret("a secret of yours", hashed)


def test_a_taken_port_stops_run_with_the_option_named(procs):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        config = _web_config(procs, f"web:\n  listen: 127.0.0.1:{taken.getsockname()[1]}\n"
                                    f"  operator_secret: {SECRET_HASH}\n")
        run = procs.start("run", "--config", str(config), name="run")
        assert run.wait(30) == 2
    assert "cannot serve the web page on 127.0.0.1" in stderr_of(run) and "(web.listen)" in stderr_of(run)


def test_a_table_serving_its_page_and_publishing_to_mqtt_loads_no_client_library(procs, short_tmp):
    """The web stack is the server alone (Starlette on uvicorn): aiohttp, whose package
    brings its HTTP client into every process that serves with it, is not loaded; nor what
    only a mistyped config (difflib's hint), the package metadata (the version) or the
    client commands need, nor importlib.resources (zipfile with it) for the shipped config."""
    broker = Mosquitto(short_tmp / "broker", ("table-1",)).start()
    try:
        (procs.folder / "mqtt-password").write_text(PASSWORD + "\n")
        config = _web_config(procs, f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {SECRET_HASH}\n"
                                    f"mqtt:\n  broker: {broker.url}\n  table_id: table-1\n  username: table-1\n"
                                    f"  password_file: mqtt-password\n")
        run = procs.start("run", "--config", str(config), name="run", env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
        port = int(wait_for(lambda: run.poll() is None and re.search(r"listening on 127\.0\.0\.1:(\d+)\)", stderr_of(run)),
                            "the web page's address in the log", timeout=STARTUP)[1])
        assert Http(port).request("GET", "/api/status")[1]["ok"] is True
        wait_for(lambda: "MQTT: connected" in stderr_of(run), "connected to the broker", timeout=STARTUP)
        # not anchored to lines: another thread's log line may fall in between
        imported = set(re.findall(r"import time:\s+\d+ \|\s+\d+ \|\s+([\w.]+)", stderr_of(run)))
    finally:
        broker.kill()
    packages = {m.split(".")[0] for m in imported}  # a package's own line may be cut by another thread's
    assert {"uvicorn", "starlette", "aiomqtt"} <= packages
    assert "aiohttp" not in packages
    assert {"difflib", "importlib.metadata", "controller.commands.client", "importlib.resources",
            "zipfile"} & imported == set()


def test_the_page_and_its_files_come_from_memory_with_no_thread_backend(procs):
    """A phone opening the page: each file with its type and entity tag, a revalidation
    answered 304, an unknown file 404 — and the board's controller loads no thread backend
    for it (anyio's, whose worker threads read the files before: 2 MB of resident memory
    for the rest of the day)."""
    import http.client

    config = _web_config(procs, f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {SECRET_HASH}\n")
    run = procs.start("run", "--config", str(config), name="run", env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    port = int(wait_for(lambda: run.poll() is None and "ready in" in stderr_of(run) and
                        re.search(r"listening on 127\.0\.0\.1:(\d+)\)", stderr_of(run)), "ready", timeout=STARTUP)[1])
    browser = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def get(path: str, **headers) -> http.client.HTTPResponse:
        browser.request("GET", path, headers=headers)
        reply = reply_ = browser.getresponse()
        reply_.body = reply.read()
        return reply

    page = get("/")
    assert page.status == 200 and page.getheader("Content-Type") == "text/html; charset=utf-8"
    files = re.findall(r'(?:src|href)="/?([^":]+\.(?:js|css))"', page.body.decode())
    assert files, page.body[:200]
    for name in files:
        reply = get(f"/{name}")
        assert reply.status == 200 and reply.body, name
        assert reply.getheader("Content-Type").split(";")[0] == {"js": "text/javascript", "css": "text/css"}[
            name.rsplit(".", 1)[1]]
        again = get(f"/{name}", **{"If-None-Match": reply.getheader("ETag")})
        assert again.status == 304 and again.body == b"", name
    assert get("/i18n/ja.json").getheader("Content-Type") == "application/json"
    assert get("/no-such-file.js").status == 404
    assert get("/../table.yaml").status == 404
    assert "anyio._backends" not in stderr_of(run)


def test_every_file_a_page_ships_has_its_type():
    from controller.api.assets import TYPES

    pages = Path(controller.__file__).parent
    shipped = [p for folder in ("api/web/static", "api/floor/static", "hall/static")
               for p in (pages / folder).rglob("*") if p.is_file()]
    assert shipped and {p.name for p in shipped if p.suffix not in TYPES} == set()
