"""The service of tests/service with the web server beside its control socket (on a free
port), and a small blocking HTTP client that keeps its own session cookie."""
from __future__ import annotations

import asyncio
import http.client
import json
from email.message import Message

import aiohttp

from controller.api.web.access import Access
from controller.api.web.secret import hash_secret
from controller.api.web.server import COOKIE, WebServer, WebSettings
from controller.api.web.table_web import deal_pins

from ...app.service.service_harness import TIMEOUT, RunningService

SECRET = "operator secret of the web tests"
SECRET_HASH = hash_secret(SECRET)  # once: scrypt takes a while


class RunningWeb(RunningService):
    def __init__(self, folder, spectators: str = "open") -> None:
        super().__init__(folder)
        self.spectators = spectators

    async def _build(self) -> None:
        await super()._build()
        self.access = Access(SECRET_HASH)
        deal_pins(self.controller.subscribe, self.controller.displays, self.controller.background.spawn, self.access)
        self.web = WebServer(self.service, WebSettings("127.0.0.1", 0, self.spectators), self.access)
        await self.web.start()
        self.service.page_url = self.web.url

    def stop(self) -> None:
        if not self.stopped:
            self.call(self.web.close)
        super().stop()

    @property
    def pin(self) -> str:
        return self.access.pin

    def http(self) -> "Http":
        return Http(self.web.port)

    def player(self) -> "Http":
        client = self.http()
        client.login("player", pin=self.pin)
        return client

    def operator(self) -> "Http":
        client = self.http()
        client.login("operator", secret=SECRET)
        return client


class Http:
    """One browser, or one script: requests to the web server, with the cookie it was given."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie: str | None = None
        self.csrf: str | None = None

    def request(self, method: str, path: str, body=None, headers: dict | None = None) -> tuple[int, dict]:
        status, data, _ = self.raw(method, path, body, headers)
        return status, json.loads(data)

    def raw(self, method: str, path: str, body=None, headers: dict | None = None) -> tuple[int, bytes, Message]:
        headers = dict(headers or {})
        if self.cookie:
            headers["Cookie"] = f"{COOKIE}={self.cookie}"
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie" and value.startswith(f"{COOKIE}="):
                    self.cookie = value.split(";")[0].split("=", 1)[1] or None
            return response.status, data, response.headers  # its names are case-insensitive, as HTTP's
        finally:
            connection.close()

    def login(self, role: str, **secret) -> dict:
        status, reply = self.request("POST", "/api/login", {"role": role, **secret})
        assert status == 200, reply
        self.csrf = reply["csrf"]
        return reply

    def op(self, op: str, csrf: bool = True, headers: dict | None = None, **args) -> tuple[int, dict]:
        """POST /api/op/<op>, with the session's CSRF token unless told not to."""
        headers = dict(headers or {})
        if csrf and self.csrf:
            headers["X-CSRF-Token"] = self.csrf
        return self.request("POST", f"/api/op/{op}", args, headers)


def events(port: int, count: int, act=None, headers: dict | None = None) -> list[dict]:
    """The first ``count`` messages of the event stream; ``act()`` (blocking, in a thread)
    runs once the snapshot has come."""
    async def read():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(f"http://127.0.0.1:{port}/api/events", headers=headers) as ws:
                got = [json.loads((await ws.receive(timeout=TIMEOUT)).data)]
                if act is not None:
                    await asyncio.to_thread(act)
                while len(got) < count:
                    got.append(json.loads((await ws.receive(timeout=TIMEOUT)).data))
                return got
    return asyncio.run(read())
