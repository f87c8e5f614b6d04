"""Who may do what on the web page: roles, the per-game player PIN, logins, lockouts.

Three roles, each with the rights of the ones before it: spectator (read), player (the
hand's declarations and result), operator (everything else). Each op's least role is in
the op table (controller/api/ops.py), the operator's unless it says otherwise: a new op is
closed until someone opens it.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections import deque
from dataclasses import dataclass, field

from controller.errors import Refusal
from controller.api.ops import BY_NAME, ROLES
from controller.api.web.secret import verify_secret

# web.spectators: who may read (open: anyone; pin: a player's PIN; operator: the secret)
SPECTATOR_ACCESS = {"open": "spectator", "pin": "player", "operator": "operator"}

PIN_DIGITS = 4
LOGIN_LIFETIME = 12 * 3600.0  # seconds: a day's play
MAX_LOGINS = 256              # past it the oldest login is ended
# Wrong secrets: this many from one address within FAILURE_WINDOW lock it out for LOCKOUT.
MAX_FAILURES = 5
FAILURE_WINDOW = 300.0
LOCKOUT = 300.0
MAX_ADDRESSES = 4096  # addresses whose failures are remembered; past it the oldest are forgotten


def role_for(op: str, spectators: str = "open") -> str:
    """The least role that may run ``op`` (a spectator's: as ``web.spectators`` says)."""
    role = BY_NAME[op].role if op in BY_NAME else "operator"
    return SPECTATOR_ACCESS[spectators] if role == "spectator" else role


def may(role: str | None, needed: str) -> bool:
    """``role`` (None: no credentials, a spectator) has ``needed``'s rights."""
    return ROLES.index(role or "spectator") >= ROLES.index(needed)


@dataclass
class Login:
    role: str
    csrf: str
    expires: float
    game: int  # the PIN generation a player's login belongs to (a new game ends it)


@dataclass
class _Failures:
    times: deque = field(default_factory=deque)
    locked_until: float = 0.0


class Access:
    """The secrets and the logins made with them (kept in memory: a restart logs everyone out)."""

    def __init__(self, operator_hash: str, clock=time.monotonic) -> None:
        self.operator_hash = operator_hash
        self.clock = clock
        self.pin: str | None = None  # None: no game, no player may log in
        self.generation = 0
        self._logins: dict[str, Login] = {}
        self._failures: dict[str, _Failures] = {}
        self._bearers: set[bytes] = set()  # digests of operator secrets checked once (scrypt is slow)

    # ---- the player PIN ----
    def new_pin(self) -> str:
        """A new game's PIN: the last game's players are logged out."""
        self.pin = f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"
        self.generation += 1
        return self.pin

    # ---- logging in ----
    async def login(self, address: str, role: str, secret: str) -> tuple[str, Login]:
        """A new login's token and the login, or Refusal (wrong secret, locked out)."""
        if role not in ("player", "operator"):
            raise Refusal("bad_request", 'login: "role" must be "player" or "operator"')
        if not isinstance(secret, str) or not secret:
            what = "pin" if role == "player" else "secret"
            raise Refusal("bad_request", f'login: "{what}" must be a non-empty string')
        self._check_not_locked(address)
        if role == "player" and self.pin is None:
            raise Refusal("not_allowed", "no game is in play: the PIN is shown on the table when a game starts")
        if not await self._matches(role, secret):
            self._failed(address)
            raise Refusal("unauthorized", "wrong PIN" if role == "player" else "wrong operator secret")
        return self._open(role)

    async def bearer(self, address: str, secret: str) -> str:
        """The role a script's bearer secret gives (the PIN: player, the secret: operator)."""
        self._check_not_locked(address)
        for role in ("player", "operator"):
            if (role == "player" and self.pin is None) or not await self._matches(role, secret):
                continue
            return role
        self._failed(address)
        raise Refusal("unauthorized", "wrong bearer secret")

    async def _matches(self, role: str, secret: str) -> bool:
        if role == "player":
            return hmac.compare_digest(secret.encode(), self.pin.encode())
        digest = hashlib.sha256(secret.encode()).digest()
        if digest in self._bearers:
            return True
        if await asyncio.to_thread(verify_secret, secret, self.operator_hash):
            self._bearers.add(digest)
            return True
        return False

    def _open(self, role: str) -> tuple[str, Login]:
        while len(self._logins) >= MAX_LOGINS:
            del self._logins[next(iter(self._logins))]
        token = secrets.token_urlsafe(32)
        login = Login(role, secrets.token_urlsafe(24), self.clock() + LOGIN_LIFETIME, self.generation)
        self._logins[token] = login
        return token, login

    def login_of(self, token: str | None) -> Login | None:
        login = self._logins.get(token) if token else None
        if login is None:
            return None
        if login.expires < self.clock() or (login.role == "player" and login.game != self.generation):
            del self._logins[token]
            return None
        return login

    def logout(self, token: str | None) -> None:
        self._logins.pop(token or "", None)

    # ---- wrong secrets ----
    def _check_not_locked(self, address: str) -> None:
        failures = self._failures.get(address)
        left = failures.locked_until - self.clock() if failures else 0
        if left > 0:
            raise Refusal("locked_out", f"too many wrong secrets from this address; try again in {left:.0f} s",
                          retry_after=round(left))

    def _failed(self, address: str) -> None:
        now = self.clock()
        if address not in self._failures and len(self._failures) >= MAX_ADDRESSES:
            del self._failures[next(iter(self._failures))]
        failures = self._failures.setdefault(address, _Failures())
        failures.times.append(now)
        while failures.times and failures.times[0] < now - FAILURE_WINDOW:
            failures.times.popleft()
        if len(failures.times) >= MAX_FAILURES:
            failures.locked_until = now + LOCKOUT
            failures.times.clear()
