"""Sealed hash chains: an HMAC over each table's chain head, with a key the store does not hold.

Every event's ``hash`` chains the table's events (sha256 of the previous hash and the event's
canonical body with its ledger rows), but anyone who can edit the file can also recompute that chain.
So every write transaction also stores ``tables.seal`` = HMAC-SHA256(key, "pontoon-seal:1:TABLE:HEAD"):
the chain's newest head, keyed. Without the key an edited table cannot get a seal that verifies;
``history --audit`` and ``replay`` check it.

The key (``history_key``):
- ``PONTOON_HISTORY_KEY_FILE``: a file holding the key (16 to 4096 bytes, any bytes);
- else the key file ``history.key`` in ``platformdirs.user_config_dir("pontoon")`` (on Linux
  ``~/.config/pontoon/history.key``): a writer creates it (32 random bytes, mode 0600) when it is
  missing; a reader never does (without a key it cannot check seals and says so).
Not ``PONTOON_SECRET``: that is the server's token secret, random per start unless given, and set
only where the server runs; a seal key derived from it would change with it and leave the operator's
``history --audit`` (run without the server's environment) unable to check anything. The seal key is
a separate, stable file that the operator keeps (and backs up) apart from the database.
The key never goes into the database: the store holds only its id (``key_id``: a keyed hash of a
fixed text, which tells which key sealed it, not the key), in ``pontoon_meta``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pontoon.errors import PontoonError

KEY_FILE_ENV = "PONTOON_HISTORY_KEY_FILE"
MIN_KEY, MAX_KEY = 16, 4096


class SealKeyError(PontoonError):
    """No usable seal key (an unreadable or too short key file)."""


@dataclass(frozen=True)
class SealKey:
    key: bytes
    source: str  # where it came from, for messages: a path or an environment variable

    @property
    def key_id(self) -> str:
        return hmac.new(self.key, b"pontoon history key id", hashlib.sha256).hexdigest()[:16]

    def seal(self, table_id: int, head: str) -> str:
        """HMAC-SHA256(key, "pontoon-seal:1:TABLE:HEAD") in hex, from the key's padded inner and outer
        hashes made once (``_pads``: RFC 2104 itself, as ``hmac`` computes it): the group commit seals
        every table of each transaction, and ``hmac.digest`` prepares the key for every call."""
        inner, outer = self._pads()
        h = inner.copy()
        h.update(f"pontoon-seal:1:{table_id}:{head}".encode())
        o = outer.copy()
        o.update(h.digest())
        return o.hexdigest()

    def _pads(self) -> tuple[Any, Any]:
        pads = self.__dict__.get("_padded")
        if pads is None:
            key = hashlib.sha256(self.key).digest() if len(self.key) > 64 else self.key
            key = key.ljust(64, b"\0")  # sha256's block: 64 bytes
            pads = (
                hashlib.sha256(bytes(b ^ 0x36 for b in key)),
                hashlib.sha256(bytes(b ^ 0x5C for b in key)),
            )
            object.__setattr__(self, "_padded", pads)  # (a frozen dataclass: made once, kept)
        return pads

    def verifies(self, table_id: int, head: str, seal: str) -> bool:
        return hmac.compare_digest(self.seal(table_id, head), str(seal))


def default_key_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("pontoon")) / "history.key"


def _read_key(path: Path, what: str) -> bytes:
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_KEY + 1)
    except OSError as err:
        raise SealKeyError(
            f"cannot read the history key file {str(path)[:200]} ({what}): {err.strerror or err}"
        ) from None
    if not MIN_KEY <= len(raw) <= MAX_KEY:
        raise SealKeyError(
            f"the history key file {str(path)[:200]} ({what}) holds {len(raw)} bytes: "
            f"a key is {MIN_KEY} to {MAX_KEY} bytes"
        )
    return raw


def history_key(*, create: bool) -> SealKey | None:
    """The seal key (see the module doc); ``create`` (writers) makes the default key file when no key
    is configured; a reader gets ``None`` then."""
    named = os.environ.get(KEY_FILE_ENV)
    if named:
        return SealKey(_read_key(Path(named), KEY_FILE_ENV), KEY_FILE_ENV)
    path = default_key_path()
    if path.is_file():
        return SealKey(_read_key(path, "the default key file"), str(path))
    if not create:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it just now: use theirs
        return SealKey(_read_key(path, "the default key file"), str(path))
    except OSError as err:
        raise SealKeyError(
            f"cannot create the history key file {str(path)[:200]}: {err.strerror or err} "
            f"(set {KEY_FILE_ENV} to a key file)"
        ) from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(secrets.token_bytes(32))
        fh.flush()
        os.fsync(fh.fileno())
    return SealKey(_read_key(path, "the default key file"), str(path))


NO_KEY = (
    f"no history key to check the seals with: the default key file is absent; set {KEY_FILE_ENV} to "
    "the key file the history was written with"
)

__all__ = [
    "KEY_FILE_ENV",
    "NO_KEY",
    "SealKeyError",
    "SealKey",
    "default_key_path",
    "history_key",
]
