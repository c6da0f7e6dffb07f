"""Every web message handler against hostile input, on a real server on loopback with a real SQLite
history (hypothesis): wrong types, hostile JSON shapes, huge and non-finite numbers, numbers as text
past every bound. Each is answered with a 4xx and a one-line ``detail`` (REST) or a one-line
``{"type": "error"}`` frame (the table's socket, which goes on answering in order); never a 5xx, a
traceback or a hang, and no round is left half-settled: a casino round over is booked, and at a
British table (the players bank against each other) the money of the accounts and the table is the
same after every example as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.history import open_store
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, LiveServer, bearer

pytestmark = pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
HSET = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))

huge = st.sampled_from(
    [2**64, -(2**63) - 1, 10**400, 1e308, -0.0, 5e-324, "1e999999999", "-1e-999999999", "NaN", "Infinity"]
    + ["-1", "0", "0.001", "1E+2", "١٢", " 10", "10 ", "0x10", "1_000", "9" * 40, "", "null", "\x00"]
)
keys = st.text(max_size=8) | st.sampled_from(["a\nb", "\u2028", "x\r", "\x85", "k" * 300, "type"])
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | huge
values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(keys, kids, max_size=3),
    max_leaves=8,
)
FIELDS = (
    "amount",
    "price",
    "buyer",
    "kind",
    "text",
    "action",
    "box",
    "verb",
    "hand",
    "player",
    "msg",
    "name",
)
TYPES = ["act", "bet", "deal", "clear_bets", "kitty", "top_up", "sell_bank", "buy_bank", "chat", "hints"]
ws_messages = st.one_of(
    values,
    st.fixed_dictionaries(
        {"type": st.sampled_from([*TYPES, "resync", "ping", "", "ACT", 7])},
        optional={k: values for k in FIELDS},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("act"),
            "action": st.fixed_dictionaries(
                {
                    "verb": st.sampled_from(
                        ["stake", "twist", "buy", "stick", "split", "burn", "hit", "stand"]
                    )
                },
                optional={"amount": values, "hand": values, "box": values, "players": values},
            ),
        }
    ),
)


def _text(msg: Any) -> str:
    """The message's JSON text; Python's own for what JSON has no words for (NaN, Infinity)."""
    return json.dumps(msg)


raw_texts = st.sampled_from(
    ['{"type": "bet", "amount": NaN}', '{"type": "kitty", "amount": 1e999}', '{"type": "act", "action": []}']
    + [
        '{"msg": {"action": "settings", "turn_timeout_s": NaN}}',
        '{"msg": {"action": "settings", "result_pause_s": -Infinity}}',
    ]
    + [
        '{"buy_in": "10", "box": 1e999}',
        '{"name": "x", "password": NaN}',
        '{"message": {"type": "bet", "amount": 1e999}}',
    ]
    + ['{"type": "bet", "amount": "10", "amount": 1}', '{"type"', "[" * 200 + "]" * 200, '"act"', "1e999"]
)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A casino table (ann) and a British table (bob and a bot), each with its person's socket."""
    url = f"sqlite:///{tmp_path_factory.mktemp('handlers') / 'h.sqlite'}"
    live = LiveServer(FAST, StorePersistence(open_store(url, synchronous="OFF")))
    ann, bob = live.account("ann"), live.account("bob")
    casino = live.table(preset="mbs", seed=3)
    a = live.ws(casino, live.join(casino, ann, box=1, buy_in="300"))
    british = live.table(preset="british", seats=2, seed=4)
    b = live.ws(british, live.join(british, bob, buy_in="300"))
    r = live.http.post(
        f"/api/tables/{british}/host", json={"msg": {"action": "add_bot"}}, headers=bearer(bob)
    )
    assert r.status_code == 200, r.text
    for c in (a, b):
        c.until(lambda m: m.get("type") == "state")
    a.send({"type": "bet", "amount": "10"})  # a casino round in play
    try:
        yield {"live": live, "ann": ann, "bob": bob, "casino": casino, "british": british, "a": a, "b": b}
    finally:
        live.stop()


def _money(live: LiveServer, tid: str) -> Decimal:
    """The British table's people's money: their accounts and what they hold at the table."""
    host = live.srv.lobby.tables[tid]
    return sum((live.srv.lobby.accounts[n] + host.balance(n) for n in host.members), Decimal(0))


def _one_line(text: Any) -> None:
    assert isinstance(text, str) and len(text.splitlines()) == 1 and "Traceback" not in text, text
    assert len(text) <= 500, text


def _consistent(live: LiveServer, casino: str) -> None:
    host = live.srv.lobby.tables[casino]
    rnd = host.table.round
    assert not (host.table.in_round and rnd.is_over())  # never a finished round left unbooked
    assert host.table.rounds_played <= len(host.history)
    assert live.http.get("/healthz").json()["ok"] is True


@HSET
@given(msgs=st.lists(st.one_of(ws_messages.map(_text), raw_texts), min_size=1, max_size=5))
def test_hostile_frames_at_a_casino_and_a_british_table(tables: dict[str, Any], msgs: list[str]) -> None:
    live = tables["live"]
    before = _money(live, tables["british"])
    for c in (tables["a"], tables["b"]):
        c.received.clear()
        for m in msgs:
            c.send(m)
        c.send({"type": "ping"})
        c.until(lambda m: m.get("type") == "pong", timeout=20)  # still served, in order
        for m in c.received:
            assert m.get("type") in ("state", "delta", "error", "pong", "hints", "chat"), m
            if m.get("type") == "error":
                _one_line(m["error"])
    _consistent(live, tables["casino"])
    assert _money(live, tables["british"]) == before  # the players' money only moves between them


ROUTES = [
    ("POST", "/api/accounts"),
    ("POST", "/api/auth/register"),
    ("POST", "/api/auth/login"),
    ("POST", "/api/auth/claim"),
    ("POST", "/api/tables"),
    ("POST", "/api/verify"),
    ("POST", "/api/tables/{casino}/join"),
    ("POST", "/api/tables/{british}/join"),
    ("POST", "/api/tables/{casino}/messages"),
    ("POST", "/api/tables/{british}/messages"),
    ("POST", "/api/tables/{british}/host"),
]


@HSET
@given(
    route=st.sampled_from(ROUTES),
    body=st.one_of(
        values.map(_text),
        raw_texts,
        st.fixed_dictionaries(
            {}, optional={k: values for k in ("name", "password", "buy_in", "box", "token")}
        ).map(_text),
        st.fixed_dictionaries({"message": ws_messages}, optional={"token": values}).map(_text),
        st.fixed_dictionaries(
            {"name": st.text(max_size=20) | values, "password": st.text(max_size=20) | values}
        ).map(_text),
        st.fixed_dictionaries({"buy_in": huge | values}, optional={"box": st.integers() | huge}).map(_text),
        st.fixed_dictionaries(
            {
                "message": st.fixed_dictionaries(
                    {"type": st.sampled_from(TYPES), "amount": huge, "price": huge}
                )
            }
        ).map(_text),
        st.fixed_dictionaries(
            {"msg": st.fixed_dictionaries({"action": values}, optional={"name": values})}
        ).map(_text),
    ),
    as_person=st.booleans(),
)
def test_hostile_rest_bodies_get_a_4xx_in_one_line(
    tables: dict[str, Any], route: tuple[str, str], body: str, as_person: bool
) -> None:
    live = tables["live"]
    before = _money(live, tables["british"])
    path = route[1].format(casino=tables["casino"], british=tables["british"])
    headers = {"Content-Type": "application/json"}
    if as_person:
        headers |= bearer(tables["bob"] if "british" in path or tables["british"] in path else tables["ann"])
    r = live.http.request(route[0], path, content=body, headers=headers)
    live.http.cookies.clear()  # (an account made here: its cookie is not the next example's)
    assert r.status_code < 500, (path, body, r.status_code, r.text)
    if r.status_code >= 400:
        _one_line(r.json()["detail"])
    _consistent(live, tables["casino"])
    if not (r.status_code < 300 and path.endswith(("/join", "/leave", "/host"))):  # (a join brings money)
        assert _money(live, tables["british"]) == before


@HSET
@given(
    path=st.sampled_from(
        ["/api/tables/{t}/rounds?last={v}", "/api/rounds/{v}", "/api/shoes/{v}", "/api/tables/{v}"]
        + ["/api/tables/{t}/history?x={v}", "/api/accounts/{v}", "/api/tables/{v}/qr.svg", "/t/{v}"]
    ),
    v=st.one_of(huge.map(str), st.integers().map(str), st.text(max_size=12)),
)
def test_hostile_paths_and_queries_get_a_4xx_in_one_line(tables: dict[str, Any], path: str, v: str) -> None:
    live = tables["live"]
    from urllib.parse import quote

    r = live.http.get(path.format(t=tables["casino"], v=quote(v, safe="")))
    assert r.status_code < 500, (path, v, r.status_code, r.text)
    if r.status_code >= 400 and r.headers.get("content-type", "").startswith("application/json"):
        _one_line(r.json()["detail"])
    _consistent(live, tables["casino"])


@pytest.mark.parametrize("key", ["a\nb", "\u2028", "x\ry", "\x85", "k" * 3000])
def test_a_hostile_key_is_named_on_one_short_line(tables: dict[str, Any], key: str) -> None:
    """A key the server refuses is named in the error quoted and cut (it was said as it came: a key
    holding a line break made a two-line error, REST and socket alike)."""
    live = tables["live"]
    r = live.http.post(
        "/api/accounts",
        content=json.dumps({"name": "x", key: 1}),
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 422
    _one_line(r.json()["detail"])
    assert len(r.json()["detail"]) < 120 and "Extra inputs are not permitted" in r.json()["detail"]
    c = tables["b"]
    # errors of the tests before (REST messages posted as this person reach his socket too) are read
    # first, so the error below is this message's: it comes before the pong, in order
    c.drain()
    c.received.clear()
    c.send(json.dumps({"type": "chat", "text": "hi", key: 1}))
    c.send({"type": "ping"})
    c.until(lambda m: m.get("type") == "pong", timeout=20)
    errors = [str(m["error"]) for m in c.received if m.get("type") == "error"]
    for err in errors:
        _one_line(err)
    assert [e for e in errors if "Extra inputs are not permitted" in e and len(e) < 200], errors
