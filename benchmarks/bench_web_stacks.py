"""What a web stack costs in memory for the same small page: one HTML page and a WebSocket
that answers each message, served by Starlette on uvicorn (h11, wsproto: the table's
stack since issue 22) or by aiohttp (its stack before, now only the tests' client), in a
fresh interpreter; VmRSS after a page load and a WebSocket exchange, over the same
interpreter with asyncio (and so ssl) loaded and nothing served. What the stack costs
`mjtable run` itself is bench_run's and bench_web's.
"""
from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import textwrap
import time

from benchmarks.bench_system import Figures

PAGE = "<!doctype html><title>table</title><p>table page</p>"

SERVERS = {
    "asyncio alone (nothing served)": """
        import asyncio
        print(flush=True)
        asyncio.run(asyncio.sleep(3600))
    """,
    "Starlette + uvicorn": """
        import uvicorn
        from starlette.applications import Starlette
        from starlette.responses import HTMLResponse
        from starlette.routing import Route, WebSocketRoute
        from starlette.websockets import WebSocketDisconnect
        async def page(request):
            return HTMLResponse(PAGE)
        async def ws(sock):
            await sock.accept()
            try:
                while True:
                    await sock.send_text(await sock.receive_text())
            except WebSocketDisconnect:
                pass
        app = Starlette(routes=[Route("/", page), WebSocketRoute("/ws", ws)])
        print(flush=True)
        uvicorn.run(app, host="127.0.0.1", port=PORT, http="h11", ws="wsproto", lifespan="off", log_level="warning")
    """,
    "aiohttp": """
        from aiohttp import web
        async def page(request):
            return web.Response(text=PAGE, content_type="text/html")
        async def ws(request):
            sock = web.WebSocketResponse()
            await sock.prepare(request)
            async for message in sock:
                await sock.send_str(message.data)
            return sock
        app = web.Application()
        app.add_routes([web.get("/", page), web.get("/ws", ws)])
        print(flush=True)
        web.run_app(app, host="127.0.0.1", port=PORT, print=None)
    """,
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def vm_rss(pid: int) -> int:
    return next(int(line.split()[1]) * 1024 for line in open(f"/proc/{pid}/status") if line.startswith("VmRSS"))


async def exchange(port: int) -> None:
    import aiohttp
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/") as reply:
            assert PAGE in await reply.text()
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
            await ws.send_str("ping")
            assert (await ws.receive()).data == "ping"


def measure(python: str, name: str, code: str) -> float:
    port = free_port()
    source = f"PAGE = {PAGE!r}\nPORT = {port}\n" + textwrap.dedent(code)
    server = subprocess.Popen([python, "-c", source], stdout=subprocess.PIPE, text=True)
    try:
        server.stdout.readline()
        if name.startswith("asyncio"):
            time.sleep(0.5)
        else:
            for _ in range(100):
                try:
                    asyncio.run(exchange(port))
                    break
                except OSError:
                    time.sleep(0.05)
        return vm_rss(server.pid) / 2**20
    finally:
        server.terminate()
        server.wait(5)


def main() -> None:
    figures = Figures("web stacks: VmRSS serving one page and a WebSocket (a fresh interpreter each)")
    base = None
    for name, code in SERVERS.items():
        rss = measure(sys.executable, name, code)
        base = rss if base is None else base
        figures.add(name, f"{rss:.1f} MB" + (f" (+{rss - base:.1f} MB over asyncio alone)" if rss != base else ""))
    figures.print()


if __name__ == "__main__":
    main()
