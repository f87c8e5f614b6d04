"""The operator secret, kept only as a salted scrypt hash.

Set in the table config (``web.operator_secret``, made by `mjtable web hash-secret`), or
made at the first start: a random secret printed once to stderr, its hash kept in a file
next to the database (``<database>.web-secret``, mode 600) for the starts after.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

# scrypt's cost: 16 MB and about 50 ms a check on a table's board; tried off the loop
N, R, P = 2 ** 14, 8, 1
SALT_BYTES = 16
GENERATED_BYTES = 15  # a generated secret: 20 URL-safe characters
HASH = re.compile(r"^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$")
FORMAT = "scrypt$N$r$p$SALT$HASH as `mjtable web hash-secret` prints it"


def _derive(secret: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, n=n, r=r, p=p, maxmem=256 * n * r * p, dklen=32)


def hash_secret(secret: str) -> str:
    salt = os.urandom(SALT_BYTES)
    digest = _derive(secret, salt, N, R, P)
    return f"scrypt${N}${R}${P}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def is_secret_hash(text: str) -> bool:
    """A hash this module can check, at a cost a board can pay (at most 2^17 x 16: 256 MB)."""
    match = HASH.match(text)
    if not match:
        return False
    n, r, p = (int(v) for v in match.groups()[:3])
    return n in {2 ** k for k in range(10, 18)} and 1 <= r <= 16 and 1 <= p <= 4


def verify_secret(secret: str, hashed: str) -> bool:
    """Whether ``secret`` is the one ``hashed`` was made of (in constant time)."""
    match = HASH.match(hashed)
    if not match:
        return False
    n, r, p = (int(v) for v in match.groups()[:3])
    salt, digest = (base64.b64decode(v) for v in match.groups()[3:])
    return hmac.compare_digest(_derive(secret, salt, n, r, p), digest)


def secret_file(database: Path) -> Path:
    return database.with_name(database.name + ".web-secret")


def stored_or_new(path: Path) -> tuple[str, str | None]:
    """The hash kept in ``path``; without one, a new secret's: (hash, the secret to print once)."""
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        text = ""
    if is_secret_hash(text):
        return text, None
    secret = secrets.token_urlsafe(GENERATED_BYTES)
    hashed = hash_secret(secret)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(hashed + "\n")
    return hashed, secret
