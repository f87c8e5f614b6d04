"""Web figures: `mjtable run` (the console script, on a simulator's pty) with and without
a `web:` section: start to ready, RSS after a few requests and an open event stream, and
the time from an HTTP op to its event on the WebSocket (the server's share of "table
event to the browser's DOM")."""
from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.bench_system import MIB, MJTABLE, spawn_first_line, stop

CYCLES = 20  # pause / resume pairs timed over the WebSocket
SECRET = "bench operator secret"


def _config(folder: Path, device: str, web: str) -> Path:
    config = folder / "table.yaml"
    config.write_text(f"kind: table\nserial: {{port: {device}, baud: 1000000}}\nprofile: four-port\nruleset: ema-2016\n"
                      f"state: {{database: state.db}}\napi: {{socket: api.sock}}\ngame: {{starting_dealer: 0}}\n{web}")
    return config


def _rss(pid: int) -> int:
    return next(int(line.split()[1]) * 1024 for line in open(f"/proc/{pid}/status") if line.startswith("VmRSS"))


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) the process has used: what a loaded machine does not inflate."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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

    rows = []
    sim, device = spawn_first_line([MJTABLE, "sim", "--pty", "--speed", "1000"])
    try:
        with tempfile.TemporaryDirectory(prefix="mjtable-bench-web-") as tmp:
            plain = Path(tmp) / "plain"
            plain.mkdir()
            run, ready, _ = _start(_config(plain, device, ""))
            cpu_plain = _cpu(run.pid)
            time.sleep(1.0)
            rss_plain = _rss(run.pid)
            stop(run)
            served = Path(tmp) / "web"
            served.mkdir()
            web = f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {hash_secret(SECRET)}\n"
            run, ready_web, log = _start(_config(served, device, web))
            cpu_web = _cpu(run.pid)
            time.sleep(1.0)
            rss_web_idle = _rss(run.pid)
            port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", log)[1])
            delays = asyncio.run(_op_to_event(port))
            rss_web = _rss(run.pid)
            stop(run)
    finally:
        stop(sim)
    rows.append(("mjtable run: start to ready, no web section", f"{ready:.2f} s", ""))
    rows.append(("mjtable run: start to ready, with the web server", f"{ready_web:.2f} s", "≤ 1 s"))
    rows.append(("mjtable run: CPU to ready, no web section / with it", f"{cpu_plain:.2f} / {cpu_web:.2f} s", ""))
    rows.append(("mjtable run RSS idle, no web section", f"{rss_plain / MIB:.1f} MB", ""))
    rows.append(("mjtable run RSS idle, with the web server", f"{rss_web_idle / MIB:.1f} MB", "≤ 40 MB"))
    rows.append(("mjtable run RSS, web server, a game in play, a stream open", f"{rss_web / MIB:.1f} MB", "≤ 40 MB"))
    rows.append((f"HTTP op to its WebSocket event, median of {len(delays)}",
                 f"{statistics.median(delays) * 1e3:.1f} ms", "≤ 100 ms (to the DOM)"))
    print_rows("web: mjtable run with and without its web server", rows)


def print_rows(title: str, rows: list[tuple[str, str, str]]) -> None:
    """``title``, then one line per (figure, value, target), in columns."""
    width, value_width = (max(len(r[i]) for r in rows) for i in (0, 1))
    print(title)
    for figure, value, target in rows:
        print(f"  {figure:<{width}}  {value:>{value_width}}  {target}")


if __name__ == "__main__":
    main()
