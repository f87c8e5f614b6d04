"""Hall figures (docs/HALL.md): 100 tables (400 players) on one mosquitto, their results
of 4 rounds published as controller/api/mqtt/results.py publishes them, to a real
`mjtable hall serve`; the time from each result's publication to the standings message on
the hall page's WebSocket that counts it (median, p99), and the hall's RSS at the end.

The tables here are MQTT clients that publish results (a simulated game's end), not whole
simulated tables: what is measured is the hall's side.
"""
from __future__ import annotations

import asyncio
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TABLES, ROUNDS = 100, 4
RATE = 50.0  # results a second, the whole field's games ending close together
MJTABLE = str(Path(sys.executable).with_name("mjtable"))


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tournament(folder: Path) -> None:
    from controller.hall.seating import pantheon_text, shuffled

    players = range(1, 4 * TABLES + 1)
    (folder / "players.csv").write_text("number,first_name,last_name,ema_id,country,ema_member\n" + "".join(
        f"{n},P{n},Player,,FRA,no\n" for n in players))
    (folder / "header.csv").write_text("key,value\ntitle,Bench\nplace,Here\ncountry,FRA\nstart_date,2027-01-01\n"
                                       "end_date,2027-01-02\ndays,2\nrules,EMA\nmers_weight,1\n")
    (folder / "tables.csv").write_text("number,table_id\n" + "".join(f"{n},t{n}\n" for n in range(1, TABLES + 1)))
    (folder / "seating.txt").write_text(pantheon_text(shuffled(list(players), ROUNDS)))


async def _measure(port: int, url: str) -> list[float]:
    import aiohttp
    import aiomqtt

    sent: list[float] = []
    counted: dict[int, float] = {}
    async with aiohttp.ClientSession() as http, http.ws_connect(url + "ws") as ws:
        async def watch():
            async for message in ws:
                data = json.loads(message.data)
                if data.get("type") == "standings":
                    counted.setdefault(data["results"], time.monotonic())
        watcher = asyncio.ensure_future(watch())
        async with aiomqtt.Client("127.0.0.1", port) as client:
            for round_ in range(1, ROUNDS + 1):
                for table in range(1, TABLES + 1):
                    key = f"t{table}-r{round_}"
                    winds = [{"seat": s, "score": 30000 + 1000 * (1 - s), "table_points": 15000 - 10000 * s,
                              "rank": s + 1} for s in range(4)]
                    message = {"key": key, "table_id": f"t{table}", "round": round_, "winds": winds}
                    sent.append(time.monotonic())
                    await client.publish(f"mjtable/t{table}/results/{key}", json.dumps(message), qos=1, retain=True)
                    await asyncio.sleep(1 / RATE)
        deadline = time.monotonic() + 60
        while len(counted) < len(sent) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        watcher.cancel()
    # the n-th result sent is shown by the first push that counts n or more (the hall stores
    # them in the order they come, and coalesces its pushes)
    pushes = sorted(counted.items())
    return [next(at for count, at in pushes if count >= n) - sent[n - 1]
            for n in range(1, len(sent) + 1) if pushes and pushes[-1][0] >= n]


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="mjhall"))
    port = _port()
    (folder / "mosquitto.conf").write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    broker = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(folder / "mosquitto.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hall = None
    try:
        _tournament(folder)
        subprocess.run([MJTABLE, "hall", "import", "--players", "players.csv", "--header", "header.csv", "--tables",
                        "tables.csv", "seating.txt"], cwd=folder, check=True, capture_output=True)
        time.sleep(0.5)
        hall = subprocess.Popen([MJTABLE, "hall", "serve", "--broker", f"mqtt://127.0.0.1:{port}", "--listen",
                                 "127.0.0.1:0"], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        url = hall.stdout.readline().split()[-1]
        time.sleep(1.0)  # subscribed
        latencies = asyncio.run(_measure(port, url))
        rss = int(next(line for line in Path(f"/proc/{hall.pid}/status").read_text().splitlines()
                       if line.startswith("VmRSS")).split()[1]) * 1024
        p99 = sorted(latencies)[int(0.99 * (len(latencies) - 1))]
        print(f"hall: {len(latencies)} of {TABLES * ROUNDS} results on the page; publication to standings "
              f"median {statistics.median(latencies) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms; "
              f"hall RSS {rss / 2 ** 20:.1f} MiB ({TABLES} tables, {4 * TABLES} players)")
    finally:
        for proc in (hall, broker):
            if proc is not None:
                proc.terminate()
                proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
