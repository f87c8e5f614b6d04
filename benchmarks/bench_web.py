"""Web figures: `mjtable run` (the console script, on a simulator's pty, as the systemd unit
runs it) with a `web:` and an `mqtt:` section: the CPU the controller spends on one page load (the page, its files, the
session, the event stream's snapshot) and on one GET /api/status; VmRSS after the page
load, and with a game in play and an event stream open; the time from an HTTP op to its
event on the WebSocket (the server's share of "table event to the browser's DOM").
Start-up, idle memory and idle CPU in each configuration are bench_run.py's."""
from __future__ import annotations

import asyncio
import json
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.bench_system import (MIB, MJTABLE, Figures, compile_for_unit, cpu_of, spawn_first_line, stop,
                                     unit_environment, vm_rss)

CYCLES = 20  # pause / resume pairs timed over the WebSocket
STATUS_REQUESTS = 100  # GET /api/status, their CPU shared out
SECRET = "bench operator secret"


def _config(folder: Path, device: str, web: str) -> Path:
    config = folder / "table.yaml"
    config.write_text(f"kind: table\nserial: {{port: {device}, baud: 1000000}}\nprofile: four-port\nruleset: ema-2016\n"
                      f"state: {{database: state.db}}\napi: {{socket: api.sock}}\ngame: {{starting_dealer: 0}}\n{web}")
    return config


def _start(config: Path) -> tuple[subprocess.Popen, float, str]:
    """`mjtable run` as the systemd unit runs it, the seconds until it logs "ready", and its log so far."""
    started = time.perf_counter()
    run = subprocess.Popen([MJTABLE, "run", "--config", str(config)], stderr=subprocess.PIPE, text=True,
                           stdin=subprocess.DEVNULL, env=unit_environment())
    log = ""
    while "ready in" not in log:
        line = run.stderr.readline()
        if not line:
            raise SystemExit(f"mjtable run exited: {log}")
        log += line
    return run, time.perf_counter() - started, log


async def _page_load(port: int) -> None:
    """What a phone's browser asks for on opening the page, the event stream's snapshot last."""
    import aiohttp

    base = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{base}/") as reply:
            page = await reply.text()
        for path in re.findall(r'(?:src|href)="/?([^":]+)"', page):
            async with session.get(f"{base}/{path}") as reply:
                assert reply.status == 200, path
        await (await session.get(f"{base}/api/session")).read()
        async with session.ws_connect(f"{base}/api/events") as ws:
            await ws.receive()


def _cpu_of(pid: int, action) -> float:
    """CPU seconds the controller spends on ``action()``, its replies sent."""
    before = cpu_of(pid)
    action()
    time.sleep(0.2)  # its last writes and closes
    return cpu_of(pid) - before


def _statuses(port: int) -> None:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(STATUS_REQUESTS):
        connection.request("GET", "/api/status")
        connection.getresponse().read()
    connection.close()


async def _op_to_event(port: int) -> list[float]:
    """Seconds from sending pause (resume) over HTTP to its state event on the stream."""
    import aiohttp

    auth = {"Authorization": f"Bearer {SECRET}"}
    base = f"http://127.0.0.1:{port}"
    delays = []
    async with aiohttp.ClientSession() as session:
        await session.post(f"{base}/api/op/start", json={}, headers=auth)
        async with session.ws_connect(f"{base}/api/events") as ws:
            await ws.receive()  # the snapshot
            while (await (await session.get(f"{base}/api/status")).json())["state"] != "playing":
                await asyncio.sleep(0.05)
            for op in ["pause", "resume"] * CYCLES:
                sent = time.perf_counter()
                reply = await session.post(f"{base}/api/op/{op}", json={}, headers=auth)
                assert (await reply.json())["ok"], await reply.text()
                while json.loads((await ws.receive()).data).get("event") != "state":
                    pass
                delays.append(time.perf_counter() - sent)
    return delays


def main() -> None:
    from controller.api.web.secret import hash_secret

    from tests.support.mosquitto import Mosquitto

    compile_for_unit()
    sim, device = spawn_first_line([MJTABLE, "sim", "--pty", "--speed", "1000"])
    try:
        with tempfile.TemporaryDirectory(prefix="mjtable-bench-web-") as tmp:
            broker = Mosquitto(Path(tmp) / "broker", ("bench",)).start()
            try:
                sections = (f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {hash_secret(SECRET)}\n"
                            f"mqtt:\n  broker: {broker.url}\n  table_id: bench\n")
                run, _, log = _start(_config(Path(tmp), device, sections))
                port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", log)[1])
                page_cpu = _cpu_of(run.pid, lambda: asyncio.run(_page_load(port)))
                page_rss = vm_rss(run.pid)
                status_cpu = _cpu_of(run.pid, lambda: _statuses(port)) / STATUS_REQUESTS
                delays = asyncio.run(_op_to_event(port))
                rss = vm_rss(run.pid)
                stop(run)
            finally:
                broker.kill()
    finally:
        stop(sim)
    figures = Figures("web: mjtable run with its web server and MQTT, a game in play, in the systemd unit's "
                      "environment (start-up and idle memory: run)")
    figures.add("one page load (page, files, session, stream snapshot): controller CPU", f"{page_cpu * 1e3:.0f} ms", "", True)
    figures.add(f"GET /api/status: controller CPU per request, over {STATUS_REQUESTS}", f"{status_cpu * 1e3:.2f} ms", "",
                True)
    figures.add("mjtable run VmRSS, web + MQTT, after one page load", f"{page_rss / MIB:.1f} MB", "≤ 40 MB",
                page_rss <= 40 * MIB)
    figures.add("mjtable run VmRSS, web + MQTT, a game in play, a stream open", f"{rss / MIB:.1f} MB", "≤ 40 MB",
                rss <= 40 * MIB)
    median = statistics.median(delays)
    figures.add(f"HTTP op to its WebSocket event, median of {len(delays)}", f"{median * 1e3:.1f} ms",
                "≤ 100 ms (to the DOM)", median <= 0.100)
    figures.print()


if __name__ == "__main__":
    main()
