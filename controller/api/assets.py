"""A page's own files (its HTML, scripts, styles, catalogs), answered from memory.

Each page's folder is small and fixed at install (the table's 117 KB, the floor's 30 KB),
so it is read once, when its server is built. Starlette's StaticFiles and FileResponse
read every file in a worker thread instead: the first page load started three threads and
loaded anyio's thread backend, 2 MB more resident memory on the board for the rest of the
day, and a page's files are not worth a thread each.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response


# The types of the files the pages ship (tests/api/web checks that each has one). The
# standard library's mimetypes would read the system's 1,500 types for them: 0.44 MB.
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json",
         ".svg": "image/svg+xml", ".png": "image/png"}


class Assets:
    """The files under ``folder`` by their path in it, with their type and entity tag."""

    def __init__(self, folder: Path) -> None:
        self._files: dict[str, tuple[bytes, str, str]] = {}
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                body = path.read_bytes()
                kind = TYPES.get(path.suffix, "application/octet-stream")
                self._files[path.relative_to(folder).as_posix()] = (body, kind, f'"{hashlib.sha1(body).hexdigest()}"')

    def reply(self, request: Request, name: str) -> Response:
        """The file ``name``: 304 when the browser's copy (If-None-Match) is it, 404 if none."""
        try:
            body, kind, etag = self._files[name]
        except KeyError:
            raise HTTPException(404) from None
        cached = request.headers.get("If-None-Match", "")
        if etag in (tag.strip().removeprefix("W/") for tag in cached.split(",")):
            return Response(status_code=304, headers={"ETag": etag})
        return Response(body, headers={"ETag": etag}, media_type=kind)

    async def file(self, request: Request) -> Response:
        """A route's endpoint: the file its ``{path:path}`` names."""
        return self.reply(request, request.path_params["path"])
