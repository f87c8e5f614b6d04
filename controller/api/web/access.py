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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from controller.errors import Refusal
from controller.api.ops import BY_NAME, ROLES
from controller.api.web.secret import verify_secret

# web.spectators: who may read (open: anyone; pin: a player's PIN; operator: the secret)
SPECTATOR_ACCESS = {"open": "spectator", "pin": "player", "operator": "operator"}

# Guessing is bounded by counting: each try of a secret is counted as a failure BEFORE the
# secret is checked (a right one is taken back), so tries raced over many connections count
# all the same; past MAX_FAILURES from one address, or MAX_TOTAL_FAILURES from all of them,
# within FAILURE_WINDOW, further tries are refused unchecked until the oldest falls out of
# the window. Hence at most MAX_TOTAL_FAILURES guesses per FAILURE_WINDOW (240 an hour),
# however many addresses guess: a 6-digit PIN takes 2,000 hours on average (docs/WEB.md).
PIN_DIGITS = 6
LOGIN_LIFETIME = 12 * 3600.0  # seconds: a day's play
MAX_LOGINS = 256              # per role; past it that role's oldest login is ended
MAX_FAILURES = 5
MAX_TOTAL_FAILURES = 20
FAILURE_WINDOW = 300.0
_SCRYPT = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mjtable-secret")  # one check at a time


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


class Access:
    """The secrets and the logins made with them (kept in memory: a restart logs everyone out)."""

    def __init__(self, operator_hash: str, clock=time.monotonic) -> None:
        self.operator_hash = operator_hash
        self.clock = clock
        self.pin: str | None = None  # None: no game, no player may log in
        self.generation = 0
        self._logins: dict[str, Login] = {}
        self._failures: dict[str, deque[float]] = {}  # each address's recent failures
        self._all_failures: deque[tuple[float, str]] = deque()  # everyone's, oldest first
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
        if role == "player" and self.pin is None:
            raise Refusal("not_allowed", "no game is in play: the PIN is shown on the table when a game starts")
        if not (role == "operator" and self._known_bearer(secret)):
            attempt = self._attempt(address)
            if not await self._matches(role, secret):
                raise Refusal("unauthorized", "wrong PIN" if role == "player" else "wrong operator secret")
            self._take_back(attempt)
        return self._open(role)

    async def bearer(self, address: str, secret: str) -> str:
        """The role a script's bearer secret gives (the PIN: player, the secret: operator)."""
        if self._known_bearer(secret):  # a secret found right before: cheap, and no guess
            return "operator"
        attempt = self._attempt(address)
        for role in ("player", "operator"):
            if (role == "player" and self.pin is None) or not await self._matches(role, secret):
                continue
            self._take_back(attempt)
            return role
        raise Refusal("unauthorized", "wrong bearer secret")

    def _known_bearer(self, secret: str) -> bool:
        return hashlib.sha256(secret.encode()).digest() in self._bearers

    async def _matches(self, role: str, secret: str) -> bool:
        if role == "player":
            return hmac.compare_digest(secret.encode(), self.pin.encode())
        if await asyncio.get_running_loop().run_in_executor(_SCRYPT, verify_secret, secret, self.operator_hash):
            self._bearers.add(hashlib.sha256(secret.encode()).digest())
            return True
        return False

    def _open(self, role: str) -> tuple[str, Login]:
        same_role = [token for token, login in self._logins.items() if login.role == role]
        if len(same_role) >= MAX_LOGINS:  # a crowd of players never ends the operator's login
            del self._logins[same_role[0]]
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
    def _attempt(self, address: str) -> tuple[float, str]:
        """Count a try as a failure before its secret is checked, or refuse it (locked out)."""
        now = self.clock()
        self._forget(now)
        mine = self._failures.get(address, deque())
        _refuse_if_spent(len(mine), mine and mine[0], MAX_FAILURES, "this address", now)
        everyone = self._all_failures
        _refuse_if_spent(len(everyone), everyone and everyone[0][0], MAX_TOTAL_FAILURES, "the network", now)
        attempt = (now, address)
        self._failures.setdefault(address, deque()).append(now)
        self._all_failures.append(attempt)
        return attempt

    def _take_back(self, attempt: tuple[float, str]) -> None:
        """A try that was right is no failure."""
        if attempt in self._all_failures:  # not already forgotten, the window past while it was checked
            self._all_failures.remove(attempt)
            self._forget_one(*attempt)

    def _forget(self, now: float) -> None:
        """Failures older than the window go; the table holds at most MAX_TOTAL_FAILURES."""
        while self._all_failures and self._all_failures[0][0] <= now - FAILURE_WINDOW:
            self._forget_one(*self._all_failures.popleft())

    def _forget_one(self, when: float, address: str) -> None:
        mine = self._failures[address]
        mine.remove(when)
        if not mine:
            del self._failures[address]


def _refuse_if_spent(failures: int, oldest: float, limit: int, whose: str, now: float) -> None:
    if failures >= limit:
        left = max(1, round(oldest + FAILURE_WINDOW - now))
        raise Refusal("locked_out", f"too many wrong secrets from {whose}; try again in {left} s", retry_after=left)
