"""Hostile clients against a real server on loopback (issue 28 "Also"), driven by hypothesis.

- **Acting for another seat**: at random points of random legal play (casino and British), a seat sends
  another seat's legal action as its own, over the WebSocket or over REST (and with its seat token
  on another table): every one is refused and the table's state (version, round, balances) is
  unchanged.
- **Hidden-card reads**: every frame a seat receives and every REST answer (the table, its history,
  the store's rounds) is diffed against the spectator's view at the same version: a seat sees nothing
  of another's hand, the hole card or the bank's cards that the spectator does not.
- **Money races**: joins and leaves of several accounts on several tables at once, buy-ins hostile
  (below the minimum, above the balance), on SQLite and on PostgreSQL: every account plus its money at
  the tables stays whole, nothing goes below zero, and the money audit of the store is clean.

The normal run keeps ``max_examples`` small; the ``slow`` variants run more.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.rules import find_rules
from pontoon.web.limits import minimum_buy_in
from pontoon.web.store_persistence import StorePersistence
from tests.history.pg import cluster, create_db, pg_bin
from tests.web.conftest import FAST, Client, LiveServer
from tests.web.play import strip

# the server's threads (uvicorn, websockets' frame masks) use the global random module while hypothesis
# draws; that is not the strategy's randomness, so hypothesis's warning about it is silenced here
pytestmark = pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
SERVER_VERBS = {"bet", "deal", "clear_bets", "kitty", "sell_bank", "buy_bank", "top_up"}
HSET = settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # no shrinking: each example is a live server run
)


@pytest.fixture(scope="module")
def store_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server on a SQLite store for the module (hypothesis makes a new table per example)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('hostile') / 'h.sqlite'}"
    live = LiveServer(FAST, StorePersistence(open_store(url, synchronous="OFF")))
    try:
        yield live
    finally:
        live.stop()


class Seat:
    def __init__(self, name: str, token: str, client: Client) -> None:
        self.name, self.token, self.client = name, token, client


_names = iter(f"h{i}" for i in range(10**6))


def _table(live: LiveServer, preset: str, n: int, seed: int) -> tuple[str, list[Seat], Client]:
    casino = preset not in ("british", "shoot")
    tid = live.table(preset=preset, seed=seed, **({} if casino else {"seats": n}))
    seats = []
    for i in range(n):
        name = next(_names)
        tok = live.join(tid, live.account(name), buy_in="500", **({"box": i + 1} if casino else {}))
        seats.append(Seat(name, tok, live.ws(tid, tok)))
    return tid, seats, live.ws(tid)


def _public(live: LiveServer, tid: str) -> dict[str, Any]:
    st_ = live.http.get(f"/api/tables/{tid}").json()["state"]
    return {k: v for k, v in st_.items() if k not in ("timer_s", "notice", "history")}


def _sync(live: LiveServer, tid: str, seats: list[Seat], spec: Client) -> dict[str, Any]:
    """The public state, with every client's state caught up to its version."""
    for _ in range(20):
        pub = _public(live, tid)
        v = pub["version"]
        for c in [s.client for s in seats] + [spec]:
            c.wait_state(lambda m, v=v: m["version"] >= v)
        if _public(live, tid)["version"] == v:
            return pub
    raise AssertionError("the table kept changing")


def _message(a: dict[str, Any]) -> dict[str, Any]:
    verb = a.get("verb")
    if verb == "bet":
        return {"type": "bet", "kind": a.get("kind", "main"), "amount": a["low"]}
    if verb in ("deal", "clear_bets"):
        return {"type": verb}
    if verb == "kitty":
        return {"type": "kitty", "amount": a["low"]}
    return {"type": "act", "action": strip(a)}


def _attack(
    live: LiveServer, tid: str, seats: list[Seat], others: dict[str, str], data: st.DataObject
) -> int:
    """One seat sends another seat's legal action as its own: refused, nothing changes. Answers 1 if
    an attack was made."""
    att = data.draw(st.sampled_from(seats))
    victims = [s for s in seats if s is not att]
    vic = data.draw(st.sampled_from(victims))
    own = {json.dumps(strip(a), sort_keys=True) for a in att.client.state.get("legal", [])}
    cands = [
        strip(a)
        for a in vic.client.state.get("legal", [])
        if a["verb"] not in SERVER_VERBS and json.dumps(strip(a), sort_keys=True) not in own
    ]
    if not cands:
        return 0
    action = data.draw(st.sampled_from(cands))
    before = _public(live, tid)
    how = data.draw(st.sampled_from(["ws", "rest", "other-table"]))
    msg = {"type": "act", "action": action}
    if how == "ws":
        att.client.send(msg)
        assert att.client.error()
    else:
        tok = att.token if how == "rest" else others["token"]  # "other-table": a seat token of another table
        r = live.http.post(f"/api/tables/{tid}/messages", json={"token": tok, "message": msg})
        assert r.status_code in (400, 401), (how, action, r.status_code, r.text)
    after = _public(live, tid)
    assert after == before, (att.name, vic.name, action)
    return 1


def _play_one(seats: list[Seat], pub: dict[str, Any], data: st.DataObject) -> bool:
    """Someone whose move it is makes a random legal move (hypothesis chooses); False: nobody can."""
    movers = [s for s in seats if s.client.state.get("legal")]
    if pub["game"] == "casino" and pub["phase"] == "betting":  # those without a main wager bet first
        movers = [
            s for s in movers if any(a.get("kind") == "main" for a in s.client.state["legal"])
        ] or movers
    if pub.get("to_act"):
        movers = [s for s in movers if s.name == pub["to_act"]] or movers
    if not movers:
        return False
    s = data.draw(st.sampled_from(movers))
    legal = [a for a in s.client.state["legal"] if a["verb"] not in ("sell_bank", "buy_bank", "top_up")]
    if pub["game"] == "casino" and pub["phase"] == "betting":
        legal = [a for a in legal if a["verb"] == "bet" and a.get("kind") == "main"] or legal
    if not legal:
        return False
    s.client.send(_message(data.draw(st.sampled_from(legal))))
    s.client.until(lambda m: m.get("type") in ("state", "error"))
    return True


def _check_views(tid: str, seats: list[Seat], spec: Client, game: str) -> int:
    """Every state frame a seat received, against the spectator's frame of the same version."""
    by_version = {m["version"]: m for m in spec.received if m.get("type") == "state"}
    checked = 0
    for s in seats:
        for m in s.client.received:
            if m.get("type") != "state" or m["version"] not in by_version:
                continue
            pub = by_version[m["version"]]
            assert '"draw"' not in json.dumps(m.get("history", []))  # no draw event (words may say "draws")
            mine, theirs = m.get("round") or {}, pub.get("round") or {}
            if game == "casino":
                drop = ("seat", "spectator", "legal_actions")
                assert {k: v for k, v in mine.items() if k not in drop} == {
                    k: v for k, v in theirs.items() if k not in drop
                }, (s.name, m["version"])
            else:
                hands = {(h["owner"], h["hand"]): h["cards"] for h in theirs.get("hands", [])}
                for h in mine.get("hands", []):
                    if h["owner"] != s.name:
                        assert h["cards"] == hands[(h["owner"], h["hand"])], (s.name, h)
                if mine.get("banker") != s.name and mine.get("banker_cards") is not None:
                    assert mine["banker_cards"] == theirs.get("banker_cards")
            assert m["members"] == pub["members"] and m.get("to_act") == pub.get("to_act")
            checked += 1
    return checked


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def _check_store_reads(live: LiveServer, tid: str, british: bool) -> None:
    """The store's REST reads anyone may make: an open round is refused (409); a finished British
    round of the pack still in play never names a card (no ``card`` field, no ``draw`` event): it is
    withheld until its pack is retired (its seed revealed, its order public)."""
    rows = live.http.get(f"/api/tables/{tid}/rounds").json()
    assert rows
    for row in rows:
        r = live.http.get(f"/api/rounds/{row['id']}")
        assert r.status_code in (200, 409), r.text
        if r.status_code == 200 and british and r.json().get("withheld"):
            assert "card" not in _keys(r.json()) and '"draw"' not in r.text
        elif r.status_code == 200 and british:  # whole: its pack is retired, its seed revealed
            shoe = live.http.get(f"/api/shoes/{r.json()['shoe']}")
            assert shoe.status_code == 200 and shoe.json()["verified"]["ok"] is True, shoe.text


def _run(live: LiveServer, preset: str, n: int, data: st.DataObject, rounds: int, steps: int) -> None:
    seed = data.draw(st.integers(0, 2**31), label="seed")
    other = live.table(preset="mbs")
    others = {"tid": other, "token": live.join(other, live.account(next(_names)), box=1, buy_in="50")}
    tid, seats, spec = _table(live, preset, n, seed)
    attacks = 0
    for _ in range(steps):
        pub = _sync(live, tid, seats, spec)
        rest = live.http.get(f"/api/tables/{tid}").json()["state"]  # REST: what anyone may read
        frame = next(m for m in reversed(spec.received) if m.get("type") == "state")
        if frame["version"] == rest["version"]:
            assert rest["round"] == frame["round"] and rest["members"] == frame["members"]
        assert all(Decimal(m["balance"]) >= 0 for m in pub["members"])
        for _ in seats:  # as many tries as seats, each by a seat hypothesis picks
            attacks += _attack(live, tid, seats, others, data)
        if pub["round_no"] > rounds and pub["phase"] != "play":
            break
        if not _play_one(seats, pub, data):
            continue
    end = _sync(live, tid, seats, spec)
    assert end["round_no"] >= 2 and attacks > 0  # rounds were played and seats were attacked
    assert _check_views(tid, seats, spec, "casino" if preset not in ("british", "shoot") else "british") > 0
    hist = live.http.get(f"/api/tables/{tid}/history").json()  # as the spectator's frames carry it
    assert hist == next(m for m in reversed(spec.received) if m.get("type") == "state")["history"]
    _check_store_reads(live, tid, preset in ("british", "shoot"))
    for s in seats:
        live.http.post(f"/api/tables/{tid}/leave", json={"token": s.token})
        s.client.close()
    spec.close()
    # the store's audit: every round's postings sum to zero, balances equal the ledger, chain unbroken
    assert audit(live.srv.lobby.store.store)["integrity"] == "ok"


@pytest.mark.parametrize("preset,n", [("blackjack", 3), ("mbs", 2), ("british", 3)])
@HSET
@given(data=st.data())
def test_hostile_seats_and_hidden_cards(
    store_live: LiveServer, preset: str, n: int, data: st.DataObject
) -> None:
    _run(store_live, preset, n, data, rounds=2, steps=40)


@pytest.mark.slow
@pytest.mark.parametrize("preset,n", [("blackjack", 3), ("rws-plus", 3), ("british", 3), ("shoot", 3)])
@settings(HSET, max_examples=20)
@given(data=st.data())
def test_hostile_seats_and_hidden_cards_many(
    store_live: LiveServer, preset: str, n: int, data: st.DataObject
) -> None:
    _run(store_live, preset, n, data, rounds=4, steps=150)


# ------------------------------------------------------------------ money races
AMOUNTS = ["0.01", "1", "5", "250", "600", "1000", "1000.01"]


def _race(live: LiveServer, data: st.DataObject, ops_max: int) -> None:
    names = [next(_names) for _ in range(3)]
    toks = {n: live.account(n) for n in names}
    tables = [live.table(preset="mbs"), live.table(preset="mbs"), live.table(preset="british", seats=4)]
    # (4 seats for 3 accounts: the game never starts, so no round moves money and every leave is at once)
    ops = data.draw(
        st.lists(
            st.tuples(st.sampled_from(names), st.sampled_from(tables), st.sampled_from(AMOUNTS)),
            min_size=4,
            max_size=ops_max,
        ),
        label="joins",
    )
    lows = {t: minimum_buy_in(find_rules("british" if t == tables[2] else "mbs")) for t in tables}
    go = threading.Barrier(len(ops))
    seats: dict[tuple[str, str], str] = {}
    lock = threading.Lock()

    def join(i: int, op: tuple[str, str, str]) -> None:
        name, tid, amount = op
        box = {"box": i % 7 + 1} if tid != tables[2] else {}
        with httpx.Client(base_url=live.url, timeout=20) as http:
            go.wait()
            r = http.post(
                f"/api/tables/{tid}/join",
                json=dict(box, buy_in=amount),
                headers={"Authorization": f"Bearer {toks[name]}"},
            )
        assert r.status_code in (200, 400), r.text
        if Decimal(amount) < lows[tid]:  # below the table's minimum wager: never a seat (item 5)
            assert r.status_code == 400, (amount, r.text)
        if r.status_code == 200:
            with lock:
                seats[(name, tid)] = r.json()["token"]

    with ThreadPoolExecutor(len(ops)) as pool:
        list(pool.map(lambda a: join(*a), enumerate(ops)))
    for name in names:
        acct = live.balance(name, toks[name])  # as its owner (a balance is shown to its owner only)
        assert Decimal(acct["balance"]) >= 0
        assert Decimal(acct["balance"]) + Decimal(acct["at_tables"]) == Decimal(1000), acct
    leaves = list(seats.items())
    go2 = threading.Barrier(len(leaves)) if leaves else None

    def leave(item: tuple[tuple[str, str], str]) -> None:
        (_, tid), tok = item
        with httpx.Client(base_url=live.url, timeout=20) as http:
            assert go2 is not None
            go2.wait()
            r = http.post(f"/api/tables/{tid}/leave", json={"token": tok})
        assert r.status_code == 200 and r.json()["left"], r.text

    if leaves:
        with ThreadPoolExecutor(len(leaves)) as pool:
            list(pool.map(leave, leaves))
    ends = {name: live.balance(name, toks[name])["balance"] for name in names}
    assert set(ends.values()) == {"1000"}, (ends, sorted(seats), ops)
    assert audit(live.srv.lobby.store.store)["integrity"] == "ok"


@HSET
@given(data=st.data())
def test_money_races_sqlite(store_live: LiveServer, data: st.DataObject) -> None:
    _race(store_live, data, 10)


@pytest.fixture(scope="module")
def pg_live() -> Iterator[LiveServer]:
    if pg_bin() is None:
        pytest.skip("no PostgreSQL binaries (/usr/lib/postgresql/*/bin); run make sysdeps")
    try:
        with cluster() as base:
            live = LiveServer(FAST, StorePersistence(open_store(create_db(base, "t_hostile"))))
            try:
                yield live
            finally:
                live.stop()
    except (RuntimeError, OSError) as err:
        pytest.skip(f"cannot start a PostgreSQL cluster: {err}")


@pytest.mark.postgres
@HSET
@given(data=st.data())
def test_money_races_postgres(pg_live: LiveServer, data: st.DataObject) -> None:
    _race(pg_live, data, 10)


@pytest.mark.slow
@pytest.mark.postgres
@settings(HSET, max_examples=15)
@given(data=st.data())
def test_money_races_postgres_many(pg_live: LiveServer, data: st.DataObject) -> None:
    _race(pg_live, data, 24)
