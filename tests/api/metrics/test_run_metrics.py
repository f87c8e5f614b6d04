"""`mjtable run` as the docs set it up: /metrics on the table's web server, maintenance reminders
from the `maintenance:` section in `mjtable status`, cleared by `mjtable maintenance serviced`
and still cleared after a restart."""
from __future__ import annotations

import json
import re
import select
import subprocess
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from controller.api.client import Client
from firmware_protocol.profile import DEFAULT_PROFILE

from ...app.cli.cli_harness import mjtable, wait_until
from ...support.processes import stderr_of

MAINTENANCE = ("maintenance:\n  clean_tiles: {every: 1, counter: shuffles}\n  felt: {every: 2, counter: hands}\n"
               "web: {listen: '127.0.0.1:0'}\n")


def start_run(procs, config) -> tuple[subprocess.Popen, str]:
    run = procs.start("run", "--config", str(config), name="run")

    def metrics_url():
        assert run.poll() is None, f"mjtable run exited: {stderr_of(run)}"
        found = re.search(r"listening on [^:]+:(\d+)\)", stderr_of(run))
        return found and "ready in" in stderr_of(run) and f"http://127.0.0.1:{found.group(1)}/metrics"
    return run, wait_until(metrics_url, "mjtable run to serve its metrics")


def scrape(url: str) -> dict[tuple, float]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        assert reply.headers["Content-Type"].startswith("text/plain; version=")  # the text exposition format
        text = reply.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def request(folder, op: str, **args) -> dict:
    """The control API, for what this test does not check (a client, not a process each time)."""
    return Client(folder / "var" / "api.sock", timeout=10).request(op, **args)


def status(folder, config) -> dict:
    return request(folder, "status")


def test_metrics_and_maintenance_reminders_of_a_running_table(procs, short_tmp):
    sim = procs.start("sim", "--pty", "--speed", "2000", "--profile", str(DEFAULT_PROFILE), name="sim",
                      stdout=subprocess.PIPE, text=True)
    assert select.select([sim.stdout], [], [], 20)[0], stderr_of(sim)
    config = short_tmp / "table.yaml"
    config.write_text(f"kind: table\nserial: {{port: {sim.stdout.readline().strip()}, baud: 115200}}\n"
                      f"profile: {DEFAULT_PROFILE}\nruleset: ema-2016\nstate: {{database: var/state.db}}\n"
                      f"api: {{socket: var/api.sock}}\ngame: {{starting_dealer: 0}}\n{MAINTENANCE}")
    run, url = start_run(procs, config)
    assert status(short_tmp, config)["maintenance_due"] == []

    request(short_tmp, "start")
    play_hand(short_tmp, config, 1)
    play_hand(short_tmp, config, 2)
    due = wait_until(lambda: len(status(short_tmp, config)["maintenance_due"]) == 2 and
                     status(short_tmp, config)["maintenance_due"], "both reminders due")
    shown = json.loads(mjtable("status", "--json", "--config", str(config), cwd=short_tmp).stdout)
    assert shown["maintenance_due"] == due  # as `mjtable status` shows it
    assert [(d["task"], d["since"], d["due"]) for d in due] == [("clean_tiles", 2, True), ("felt", 2, True)]
    assert "maintenance due: felt" in stderr_of(run)

    got = scrape(url)
    assert got[("mjtable_hands_played_total", ())] == 2
    assert got[("mjtable_maintenance_due", (("counter", "shuffles"), ("task", "clean_tiles")))] == 1
    assert got[("mjtable_store_bytes", ())] > 0
    assert got[("mjtable_link_frames_received_total", ())] > 0
    # Prometheus's conventions: the build as an info metric, the client library's process metrics
    from importlib.metadata import version
    assert got[("mjtable_build_info", (("version", version("mjtable")),))] == 1
    assert got[("process_resident_memory_bytes", ())] > 0 and ("process_cpu_seconds_total", ()) in got
    assert got[("mjtable_fault_active", (("code", ""), ("name", "")))] == 0
    assert all(name.endswith(("_total", "_seconds", "_bytes", "_info", "_bucket", "_count", "_sum", "_created"))
               or name in ("mjtable_maintenance_due", "mjtable_fault_active", "process_open_fds",
                           "process_max_fds", "python_info")
               for name, _ in got), sorted({name for name, _ in got})

    request(short_tmp, "abandon")
    wait_until(lambda: mjtable("maintenance", "serviced", "--config", str(config), cwd=short_tmp,
                               check=False).returncode == 0, "the service to be recorded (after the shuffle)")
    assert status(short_tmp, config)["maintenance_due"] == []

    run.terminate()
    run.wait(10)
    start_run(procs, config)  # the readings at the service are kept beside the database
    request(short_tmp, "start")
    play_hand(short_tmp, config, 1)
    due = wait_until(lambda: status(short_tmp, config)["maintenance_due"], "the shuffles since the service")
    assert [d["task"] for d in due] == ["clean_tiles"]  # felt: 1 hand since the service, not 3


def play_hand(folder, config, seq: int) -> None:
    wait_until(lambda: (status(folder, config).get("hand_in_play") or {}).get("seq") == seq
               and status(folder, config)["state"] == "playing", f"hand {seq} in play")
    request(folder, "result", hand=seq, result={"kind": "draw", "tenpai": []})
