"""Signed, expiring tokens: the seat token (your seat at one table; ``Lobby.join``, bound to the login
session that joined: ``web/auth.py``). Who you are is the login session (``web/auth.py``), not a token
of this kind.

A token is ``base64url(json payload) + "." + base64url(HMAC-SHA256(secret, payload))``; the payload
carries its kind, the names it grants and an expiry (unix seconds). The secret is per server (random
at start) unless given (``PONTOON_SECRET``), so that several processes can check each other's tokens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any


class TokenError(Exception):
    """A token that is malformed, forged, expired or of the wrong kind (one-line reason)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class Signer:
    secret: bytes
    ttl_s: float = 12 * 3600.0

    @classmethod
    def new(cls, secret: str | None = None, ttl_s: float = 12 * 3600.0) -> Signer:
        key = secret.encode("utf-8") if secret else secrets.token_bytes(32)
        return cls(key, ttl_s)

    def sign(self, kind: str, now: float | None = None, **claims: Any) -> str:
        exp = int((time.time() if now is None else now) + self.ttl_s)
        body = json.dumps({"k": kind, "exp": exp, **claims}, separators=(",", ":"), sort_keys=True).encode()
        mac = hmac.new(self.secret, body, hashlib.sha256).digest()
        return f"{_b64(body)}.{_b64(mac)}"

    def check(self, token: object, kind: str, now: float | None = None) -> dict[str, Any]:
        """The token's claims; TokenError with the reason unless it is genuine, unexpired and of ``kind``."""
        if not isinstance(token, str) or not 10 <= len(token) <= 1024 or token.count(".") != 1:
            raise TokenError(f"a {kind} token is required (the text given when you created it)")
        body_t, mac_t = token.split(".")
        try:
            body, mac = _unb64(body_t), _unb64(mac_t)
        except (ValueError, TypeError):
            raise TokenError(f"the {kind} token is not valid base64url text") from None
        if not hmac.compare_digest(mac, hmac.new(self.secret, body, hashlib.sha256).digest()):
            raise TokenError(f"the {kind} token's signature does not match: it was not issued by this server")
        try:
            claims = json.loads(body)
        except ValueError:
            raise TokenError(f"the {kind} token's body is not JSON") from None
        if not isinstance(claims, dict) or claims.get("k") != kind:
            raise TokenError(f"this is not a {kind} token")
        if not isinstance(claims.get("exp"), int) or claims["exp"] < (time.time() if now is None else now):
            raise TokenError(f"the {kind} token has expired: join again")
        return claims
