"""Accounts (issue 28, items 4 and 9), through a real server on loopback: passwords (argon2id), log in
from any device, log out, the HttpOnly SameSite cookie, sessions in the history store (durable,
expiring, revoked at logout), a guest claimed later with its balance, no token in any URL or log line,
a balance shown to its owner only, look-alike names refused."""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from pontoon.history import open_store
from pontoon.history.schema import web_logins, web_sessions
from pontoon.web.auth import COOKIE
from pontoon.web.site import Security
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, Client, LiveServer, bearer
from tests.web.play import casino_choice

PW = "correct horse battery"


def _client(live: LiveServer) -> httpx.Client:
    """A fresh 'device': its own cookie jar."""
    return httpx.Client(base_url=live.url, timeout=20)


def _ws(live: LiveServer, tid: str, headers: dict[str, str] | None = None) -> Client:
    conn = connect(f"ws://127.0.0.1:{live.port}/ws/tables/{tid}", open_timeout=10, additional_headers=headers)
    return Client(conn.__enter__())


def test_register_login_from_another_device_and_logout(live: LiveServer) -> None:
    phone, laptop = _client(live), _client(live)
    r = phone.post("/api/auth/register", json={"name": "ann", "password": PW})
    assert r.status_code == 201, r.text
    cookie = next(h for h in r.headers.get_list("set-cookie") if h.startswith(COOKIE + "="))
    attrs = {a.strip().split("=")[0].lower() for a in cookie.split(";")[1:]}
    assert {"httponly", "path", "max-age"} <= attrs and "samesite=lax" in cookie.lower()
    assert "secure" not in attrs  # plain http on loopback (auto: Secure behind TLS)
    assert phone.get("/api/auth/session").json()["name"] == "ann"  # the cookie is the session
    assert r.json()["guest"] is False and r.json()["balance"] == "1000"
    # the other device: wrong password refused, the right one logs in to the same account
    bad = laptop.post("/api/auth/login", json={"name": "ann", "password": "not her password"})
    nobody = laptop.post("/api/auth/login", json={"name": "zed", "password": "not her password"})
    assert bad.status_code == nobody.status_code == 401 and bad.json() == nobody.json()  # tells nothing
    got = laptop.post("/api/auth/login", json={"name": "ANN", "password": PW})  # any case of the name
    assert got.status_code == 200 and got.json()["name"] == "ann" and got.json()["balance"] == "1000"
    # logout ends that session only (the cookie cleared, the store forgets it)
    old = phone.cookies.get(COOKIE)
    out = phone.post("/api/auth/logout")
    assert out.status_code == 200 and out.json() == {"logged_out": True}
    assert phone.cookies.get(COOKIE) is None
    assert phone.get("/api/auth/session").status_code == 401
    assert live.http.get("/api/auth/session", headers=bearer(str(old))).status_code == 401  # revoked
    assert laptop.get("/api/auth/session").json()["name"] == "ann"


def test_guest_claims_the_account_and_keeps_the_balance(live: LiveServer) -> None:
    """Today's name-only join is a guest; setting a password keeps the account and its money."""
    tid = live.table(preset="mbs", seed=5)
    tablet = _client(live)
    r = tablet.post("/api/accounts", json={"name": "cy"})
    assert r.status_code == 201 and r.json()["guest"] is True
    assert tablet.post(f"/api/tables/{tid}/join", json={"box": 1, "buy_in": "300"}).status_code == 200
    assert tablet.get("/api/accounts/cy").json() == {
        "name": "cy",
        "balance": "700",
        "guest": True,
        "at_tables": "300",
        "token": None,
    }
    guest_login = _client(live).post("/api/auth/login", json={"name": "cy", "password": PW})
    assert guest_login.status_code == 401  # a guest has no password to log in with
    assert tablet.post("/api/auth/claim", json={"password": "short"}).status_code == 422
    claimed = tablet.post("/api/auth/claim", json={"password": PW})
    assert claimed.status_code == 200 and claimed.json()["guest"] is False
    assert tablet.post("/api/auth/claim", json={"password": PW}).status_code == 409  # once
    other = _client(live)
    got = other.post("/api/auth/login", json={"name": "cy", "password": PW})
    assert got.status_code == 200
    assert (got.json()["balance"], got.json()["at_tables"]) == ("700", "300")
    left = other.post(f"/api/tables/{tid}/leave")  # the seat is the account's, from the new device too
    assert left.status_code == 200 and left.json()["returned"] == "300"
    assert other.get("/api/accounts/cy").json()["balance"] == "1000"


def test_sessions_are_in_the_store_durable_and_expiring(make_live: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store = open_store(url)
    a = make_live(FAST, StorePersistence(store))
    r = a.http.post("/api/auth/register", json={"name": "dora", "password": PW})
    token = r.json()["token"]
    with store.reader.connect() as conn:
        (pw_hash,) = conn.execute(select(web_logins.c.pw_hash).where(web_logins.c.name == "dora")).one()
        sids = [s.id for s in conn.execute(select(web_sessions))]
    assert pw_hash.startswith("$argon2id$") and PW not in pw_hash
    assert sids == [hashlib.sha256(token.encode()).hexdigest()]  # the token itself is never written
    a.stop()
    b = make_live(replace(FAST, security=Security(session_ttl_s=3)), StorePersistence(open_store(url)))
    assert b.http.get("/api/auth/session", headers=bearer(token)).json()["name"] == "dora"  # a restart
    short = b.http.post("/api/auth/login", json={"name": "dora", "password": PW}).json()["token"]
    assert b.http.get("/api/auth/session", headers=bearer(short)).status_code == 200
    time.sleep(3.5)
    assert b.http.get("/api/auth/session", headers=bearer(short)).status_code == 401  # expired
    assert b.http.get("/api/auth/session", headers=bearer(token)).status_code == 200  # its own expiry
    again = b.http.post("/api/auth/login", json={"name": "dora", "password": PW})
    assert again.status_code == 200  # the password, not the session, is what lasts


def test_the_table_socket_is_the_cookie_s_seat_and_logout_ends_it(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=9)
    dev = _client(live)
    dev.post("/api/accounts", json={"name": "eve"})
    seat = dev.post(f"/api/tables/{tid}/join", json={"box": 2, "buy_in": "100"}).json()["token"]
    cookie = {"Cookie": f"{COOKIE}={dev.cookies.get(COOKIE)}"}
    c = _ws(live, tid, cookie)
    assert c.wait_state(lambda m: True)["you"] == "eve"  # the cookie says who, no token in the URL
    spectator = _ws(live, tid)
    assert spectator.wait_state(lambda m: True)["you"] is None
    dev.post("/api/auth/logout")
    with pytest.raises(ConnectionClosed) as closed:
        c.until(lambda m: False, timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401  # logged out: closed
    # the seat token was bound to that session: it ends with it
    r = live.http.post(f"/api/tables/{tid}/leave", json={"token": seat})
    assert r.status_code == 401 and "session has ended" in r.json()["detail"]
    with pytest.raises(InvalidStatus):
        _ws(live, tid, bearer(seat))
    spectator.close()


def test_no_token_in_any_url_or_log_line(make_live: Any) -> None:
    """The page and the server never put a token in a URL, a URL with one is refused, and uvicorn's
    access and error logs never carry one (today: ``?token=<seat token>`` on every socket)."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    live = make_live(FAST, log_level="info")
    keep = Keep()
    for name in ("uvicorn.access", "uvicorn.error"):
        logging.getLogger(name).addHandler(keep)
    try:
        tid = live.table(preset="mbs", seed=2)
        acct = live.account("fay")
        seat = live.join(tid, acct, box=1)
        c = live.ws(tid, seat)
        c.wait_state(lambda m: m["you"] == "fay")
        c.close()
        with pytest.raises(InvalidStatus) as refused:  # the old way: refused, and not logged as sent
            connect(f"ws://127.0.0.1:{live.port}/ws/tables/{tid}?token={seat}", open_timeout=10)
        assert refused.value.response.status_code == 403
        r = live.http.get(f"/api/tables/{tid}?token={acct}")
        assert r.status_code == 400 and "token in the URL" in r.json()["detail"]
        time.sleep(0.3)
    finally:
        for name in ("uvicorn.access", "uvicorn.error"):
            logging.getLogger(name).removeHandler(keep)
    text = "\n".join(lines)
    assert f"/ws/tables/{tid}" in text and "token=[redacted]" in text  # the lines are there ...
    assert seat not in text and acct not in text  # ... without the tokens
    page = (Path(__file__).parents[2] / "src/pontoon/web/static/app.js").read_text()
    assert "token=" not in page and 'sessionStorage.setItem("acct_token"' not in page


def test_a_balance_is_shown_to_its_owner_only(live: LiveServer) -> None:
    ann, bob = live.account("ann"), live.account("bob")
    assert live.http.get("/api/accounts/ann").status_code == 401  # anyone: refused
    r = live.http.get("/api/accounts/ann", headers=bearer(bob))
    assert r.status_code == 403 and "its owner only" in r.json()["detail"]
    assert live.http.get("/api/accounts/ann", headers=bearer(ann)).json()["balance"] == "1000"
    # the table's stacks stay public at the table (what every player sees across the felt)
    tid = live.table(preset="mbs", seed=1)
    live.join(tid, ann, box=1, buy_in="250")
    members = live.http.get(f"/api/tables/{tid}").json()["state"]["members"]
    assert [(m["name"], m["balance"]) for m in members] == [("ann", "250")]


LOOKALIKES = [
    "bob ",
    " bob",
    "BOB",
    "Bob",
    "ｂｏｂ",  # full-width letters (NFKC: bob)
    "b0b",  # a zero for an o
    "bob\t",
]
REFUSED = [
    "bob.",  # trailing punctuation is not accepted at all
    "b\u200bob",  # a zero-width space
    "bob\u202e",  # a right-to-left override
    "bob\x00",
    "b\u043eb",  # a Cyrillic o
    "bob--x",
    "",
    "x" * 25,
]


@pytest.mark.parametrize("raw", LOOKALIKES)
def test_a_look_alike_of_a_name_is_the_same_account(live: LiveServer, raw: str) -> None:
    assert live.http.post("/api/accounts", json={"name": "bob"}).status_code == 201
    r = live.http.post("/api/accounts", json={"name": raw})
    assert r.status_code == 409 and "taken" in r.json()["detail"], r.text


@pytest.mark.parametrize("raw", REFUSED)
def test_a_name_outside_the_accepted_set_is_refused(live: LiveServer, raw: str) -> None:
    r = live.http.post("/api/accounts", json={"name": raw})
    assert r.status_code in (400, 422) and "\n" not in r.json()["detail"], r.text
    r = live.http.post("/api/auth/register", json={"name": raw, "password": PW})
    assert r.status_code in (400, 422), r.text


def test_a_name_is_trimmed_and_kept_as_written(live: LiveServer) -> None:
    r = live.http.post("/api/accounts", json={"name": "  Mary   Ann "})
    assert r.status_code == 201 and r.json()["name"] == "Mary Ann"
    assert live.http.post("/api/accounts", json={"name": "mary_ann"}).status_code == 409
    assert live.http.post("/api/accounts", json={"name": "mary-anne"}).status_code == 201


def test_login_attempts_are_limited_per_name(make_live: Any) -> None:
    live = make_live(replace(FAST, security=Security(login_burst=3, login_rate=0.01)))
    live.http.post("/api/auth/register", json={"name": "gus", "password": PW})
    codes = [
        live.http.post("/api/auth/login", json={"name": "gus", "password": f"guess-{i}"}).status_code
        for i in range(5)
    ]
    assert codes[:3] == [401, 401, 401] and codes[3:] == [429, 429]
    assert _client(live).post("/api/auth/login", json={"name": "GUS", "password": PW}).status_code == 429
    assert live.http.post("/api/auth/login", json={"name": "hal", "password": PW}).status_code == 401


def test_the_house_s_words_are_names_like_any_other(live: LiveServer) -> None:
    """Ruling 32: a person named house or kitty is a person; his money never merges with the house's."""
    tid = live.table(preset="mbs", seed=6)
    toks = {n: live.account(n) for n in ("house", "Kitty", "layout")}
    seats = [live.join(tid, toks[n], box=i + 1, buy_in="100") for i, n in enumerate(toks)]
    money = live.total_money()
    cs = [live.ws(tid, s) for s in seats]
    for c in cs:
        c.wait_state(lambda m: m["you"] is not None)
        c.send({"type": "bet", "amount": "10"})
    for _ in range(300):
        if cs[0].state.get("phase") == "betting" and cs[0].state.get("history"):
            break
        for c in cs:
            pick = casino_choice(c.state)
            if pick:
                c.send({"type": "act", "action": pick})
            c.drain(0.1)
    net = cs[0].state["history"][-1]["net"]
    assert set(net) == {"house", "Kitty", "layout"}  # three people, each with his own result
    assert live.total_money() == money + sum(Decimal(v["total"]) for v in net.values())
    for n, tok in toks.items():
        got = live.balance(n, tok)
        assert Decimal(got["balance"]) + Decimal(got["at_tables"]) == 1000 + Decimal(net[n]["total"])
    for c in cs:
        c.close()
