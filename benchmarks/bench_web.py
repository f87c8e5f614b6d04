"""Web figures: `mjtable run` (the console script, on a simulator's pty) with a `web:`
section: VmRSS with a game in play and an event stream open, and the time from an HTTP op
to its event on the WebSocket (the server's share of "table event to the browser's DOM").
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

from benchmarks.bench_system import MIB, MJTABLE, Figures, spawn_first_line, stop, vm_rss

CYCLES = 20  # pause / resume pairs timed over the WebSocket
SECRET = "bench operator secret"


def _config(folder: Path, device: str, web: str) -> Path:
    config = folder / "table.yaml"
    config.write_text(f"kind: table\nserial: {{port: {device}, baud: 1000000}}\nprofile: four-port\nruleset: ema-2016\n"
                      f"state: {{database: state.db}}\napi: {{socket: api.sock}}\ngame: {{starting_dealer: 0}}\n{web}")
    return config


def _start(config: Path) -> tuple[subprocess.Popen, float, str]:
    """`mjtable run`, the seconds until it logs "ready", and its log so far."""
    started = time.perf_counter()
    run = subprocess.Popen([MJTABLE, "run", "--config", str(config)], stderr=subprocess.PIPE, text=True,
                           stdin=subprocess.DEVNULL)
    log = ""
    while "ready in" not in log:
        line = run.stderr.readline()
        if not line:
            raise SystemExit(f"mjtable run exited: {log}")
        log += line
    return run, time.perf_counter() - started, log


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

    sim, device = spawn_first_line([MJTABLE, "sim", "--pty", "--speed", "1000"])
    try:
        with tempfile.TemporaryDirectory(prefix="mjtable-bench-web-") as tmp:
            web = f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {hash_secret(SECRET)}\n"
            run, _, log = _start(_config(Path(tmp), device, web))
            port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", log)[1])
            delays = asyncio.run(_op_to_event(port))
            rss = vm_rss(run.pid)
            stop(run)
    finally:
        stop(sim)
    figures = Figures("web: mjtable run with its web server, a game in play (start-up and idle memory: run)")
    figures.add("mjtable run VmRSS, web server, a game in play, a stream open", f"{rss / MIB:.1f} MB", "≤ 40 MB",
                rss <= 40 * MIB)
    median = statistics.median(delays)
    figures.add(f"HTTP op to its WebSocket event, median of {len(delays)}", f"{median * 1e3:.1f} ms",
                "≤ 100 ms (to the DOM)", median <= 0.100)
    figures.print()


if __name__ == "__main__":
    main()
