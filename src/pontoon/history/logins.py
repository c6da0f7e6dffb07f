"""The table server's logins in the history store (revision 0006; docs/accounts.md).

- ``web_logins``: one row per account: its name key (look-alike names collide on it: UNIQUE) and its
  argon2id password hash (NULL: a guest, who may claim the account later by setting one);
- ``web_sessions``: one row per login session: the SHA-256 of its token (the token itself is never
  written), the account, an expiry. Logging out deletes the row; an expired row is refused and
  deleted when next seen (and by ``purge``).

A new account's ``web_accounts`` row (revision 0003: its opening balance) and its ``web_logins`` row
are written in ONE transaction, so two requests for look-alike names never both make an account.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from pontoon.history.accounts import web_accounts
from pontoon.history.schema import web_logins, web_sessions
from pontoon.history.store import HistoryError, Store, now


class NameTaken(HistoryError):
    """An account whose name (or a look-alike of it: the same key) exists already."""


@dataclass(frozen=True)
class Login:
    name: str
    key: str | None
    pw_hash: str | None

    @property
    def guest(self) -> bool:
        return self.pw_hash is None


class LoginRecords:
    """Reads and writes of ``web_logins`` and ``web_sessions`` on ``store``."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ------------------------------------------------------------------ accounts
    def create(self, name: str, key: str, opening: Decimal, pw_hash: str | None) -> None:
        """The account and its login in one transaction; ``NameTaken`` if the name or its key is taken."""
        stamp = now()
        try:
            with self.store.engine.begin() as conn:
                taken = (
                    conn.execute(select(web_logins.c.name).where(web_logins.c.name_key == key)).first()
                    or conn.execute(select(web_accounts.c.name).where(web_accounts.c.name == name)).first()
                )
                if taken is not None:
                    raise NameTaken(f"the name {name!r} is taken (as {taken[0]!r})")
                conn.execute(insert(web_accounts).values(name=name, opening=str(opening), created=stamp))
                conn.execute(
                    insert(web_logins).values(
                        name=name,
                        name_key=key,
                        pw_hash=pw_hash,
                        created=stamp,
                        claimed=None if pw_hash is None else stamp,
                    )
                )
        except IntegrityError:  # a look-alike made by another process at the same moment
            raise NameTaken(f"the name {name!r} is taken") from None

    def by_key(self, key: str) -> Login | None:
        with self.store.reader.connect() as conn:
            r = conn.execute(select(web_logins).where(web_logins.c.name_key == key)).first()
        return None if r is None else Login(str(r.name), r.name_key, r.pw_hash)

    def of(self, name: str) -> Login | None:
        with self.store.reader.connect() as conn:
            r = conn.execute(select(web_logins).where(web_logins.c.name == name)).first()
        return None if r is None else Login(str(r.name), r.name_key, r.pw_hash)

    def claim(self, name: str, pw_hash: str) -> bool:
        """Set the password of guest ``name``; False if it has one already (or is not claimable)."""
        with self.store.engine.begin() as conn:
            res = conn.execute(
                update(web_logins)
                .where(
                    web_logins.c.name == name,
                    web_logins.c.pw_hash.is_(None),
                    web_logins.c.name_key.is_not(None),
                )
                .values(pw_hash=pw_hash, claimed=now())
            )
            return bool(res.rowcount)

    def set_hash(self, name: str, pw_hash: str) -> None:
        """Replace a hash (argon2's ``check_needs_rehash`` after a login with older parameters)."""
        with self.store.engine.begin() as conn:
            conn.execute(update(web_logins).where(web_logins.c.name == name).values(pw_hash=pw_hash))

    # ------------------------------------------------------------------ sessions
    def session_add(self, sid: str, name: str, expires: float) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(insert(web_sessions).values(id=sid, name=name, created=now(), expires=expires))

    def session_get(self, sid: str, at: float) -> str | None:
        """The account of live session ``sid`` (None: none, logged out or expired; an expired row is deleted).
        Read on the driver's own connection with one fixed statement: every table socket's connect reads
        its session (a seat token's too), and SQLAlchemy's connection, statement and result layers cost
        135 us of CPU a read (the interpreter lock, taken from the event loop) where this costs 12."""
        eng = self.store.reader
        mark = "?" if eng.dialect.paramstyle == "qmark" else "%s"
        raw = eng.raw_connection()
        try:
            cur = raw.cursor()
            try:
                cur.execute(f"SELECT name, expires FROM web_sessions WHERE id = {mark}", (sid,))
                r = cur.fetchone()
            finally:
                cur.close()
        finally:
            raw.close()  # (back to the pool, rolled back: a read only)
        if r is None:
            return None
        if float(r[1]) <= at:
            self.session_drop(sid)
            return None
        return str(r[0])

    def session_drop(self, sid: str) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(delete(web_sessions).where(web_sessions.c.id == sid))

    def sessions_drop_for(self, name: str, keep: str | None = None) -> None:
        """Every session of ``name`` (but ``keep``) ends: a password was set."""
        q = delete(web_sessions).where(web_sessions.c.name == name)
        if keep is not None:
            q = q.where(web_sessions.c.id != keep)
        with self.store.engine.begin() as conn:
            conn.execute(q)

    def purge(self, at: float) -> int:
        with self.store.engine.begin() as conn:
            return int(conn.execute(delete(web_sessions).where(web_sessions.c.expires <= at)).rowcount)


__all__ = ["Login", "LoginRecords", "NameTaken"]
