"""Recall, replay and audit over the store.

- ``list_rounds``: the rounds (newest last) as plain rows: id, time, preset, seats, status, result, net;
- ``round_detail``: a round's events in order, each with the ledger rows it wrote;
- ``replay_round``: re-run a stored round through ``pontoon.replay`` and check the cards, the money
  (ledger rows against the replayed transfers), the stored result (what the views showed at the end)
  and the hash chain; ``ReplayMismatch`` names the first difference;
- ``audit``: meters from the ledger (wagered, returned, collected, paid, per wager kind), checked
  against the account balances, every table's hash chain, and ledger conservation.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from pontoon.history.dbfile import meta_value
from pontoon.history.recover import rules_of, shoe_record_of
from pontoon.history.seal import NO_KEY
from pontoon.history.store import (
    CASHIER,
    HistoryError,
    Store,
    account_key,
    canon,
    chain_hash,
    event_body,
    money_rows,
    stored_amount,
)
from pontoon.replay import ReplayMismatch, replay

ZERO = Decimal(0)
# what reading a JSON value of the wrong shape raises (a stored row edited or damaged)
DAMAGE = (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError)
MONEY_KEYS = ("source", "dest", "amount", "kind", "player", "reason")


def _net(result: Any, where: str = "a round's result") -> dict[str, Decimal]:
    if not result:
        return {}
    net = result.get("net", {}) if isinstance(result, dict) else None
    if not isinstance(net, dict) or not all(isinstance(d, dict) for d in net.values()):
        raise HistoryError(f"{where}: net is not a map of each person's totals: the stored row is damaged")
    return {
        str(p): stored_amount(d.get("total", "0"), f"{where}: net of {str(p)[:64]!r}") for p, d in net.items()
    }


def shoe_ids(store: Store, table_id: int) -> dict[int, int]:
    """A table's shoe numbers -> their stored ids (what ``pontoon verify SHOE`` takes)."""
    return {int(sh["number"]): int(sh["id"]) for sh in store.shoes_(table_id)}


def list_rounds(store: Store, *, table_id: int | None = None, last: int | None = 10) -> list[dict[str, Any]]:
    """The newest ``last`` rounds (of ``table_id``), oldest first, read from one snapshot."""
    with store.snapshot():
        return _list_rounds(store, table_id, last)


def _list_rounds(store: Store, table_id: int | None, last: int | None) -> list[dict[str, Any]]:
    out = []
    ids: dict[int, dict[int, int]] = {}
    for r in store.rounds_(table_id=table_id, last=last):
        res = r["result"] or {}
        if not isinstance(res, dict):
            raise HistoryError(
                f"the stored rounds row {r['id']}: result is not a JSON object: the row is damaged"
            )
        tid = int(r["table_id"])
        if tid not in ids:
            ids[tid] = shoe_ids(store, tid)
        out.append(
            {
                "id": int(r["id"]),
                "table": tid,
                "round": int(r["number"]),
                "time": r["started"],
                "ended": r["ended"],
                "game": r["game"],
                "preset": r["preset"],
                "seats": res.get("seats", []),
                "status": r["status"],
                "void_reason": res.get("void_reason"),
                "net": _net(res, f"the stored rounds row {r['id']}: result"),
                "shoe": ids[tid].get(int(r["shoe"])) if r["shoe"] is not None else None,
            }
        )
    return out


def _with_transfers(store: Store, table_id: int, events: list[dict[str, Any]], round_id: int | None) -> None:
    by_event: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in store.ledger_(table_id, round_id=round_id):
        by_event[int(r["event_id"])].append({k: r[k] for k in MONEY_KEYS})
    for e in events:
        e["transfers"] = by_event.get(int(e["id"]), [])


def round_events(store: Store, round_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rnd = store.round_(round_id)
    evs = store.events_(int(rnd["table_id"]), round_no=int(rnd["number"]))
    _with_transfers(store, int(rnd["table_id"]), evs, round_id)
    return rnd, evs


def round_detail(store: Store, round_id: int) -> dict[str, Any]:
    """Every event of a round with its ledger rows, read from one snapshot."""
    with store.snapshot():
        return _round_detail(store, round_id)


def _round_detail(store: Store, round_id: int) -> dict[str, Any]:
    rnd, evs = round_events(store, round_id)
    return {
        "id": round_id,
        "table": int(rnd["table_id"]),
        "round": int(rnd["number"]),
        "preset": rnd["preset"],
        "status": rnd["status"],
        "time": rnd["started"],
        "result": rnd["result"],
        "shoe": (
            shoe_ids(store, int(rnd["table_id"])).get(int(rnd["shoe"])) if rnd["shoe"] is not None else None
        ),
        "events": [
            {
                "seq": e["seq"],
                "kind": e["kind"],
                "data": e["data"],
                "clause": e["clause"],
                "transfers": e["transfers"],
                "hash": e["hash"],
            }
            for e in evs
        ],
    }


def replay_round(store: Store, round_id: int) -> dict[str, Any]:
    """Replay a stored round; raises ``ReplayMismatch`` at the first difference. Reads one snapshot;
    checks the table's whole hash chain and its seal, and the cards dealt against the shoe's
    committed order where the shoe was fair."""
    with store.snapshot():
        return _replay_round(store, round_id)


def _replay_round(store: Store, round_id: int) -> dict[str, Any]:
    rnd_row, evs = round_events(store, round_id)
    table = store.table(int(rnd_row["table_id"]))
    rules = rules_of(table)
    for e in evs:  # the hash chain: each event's hash is sha256(prev + its canonical body)
        body = event_body(e["round_no"], e["seq"], e["kind"], e["data"], e["clause"], e["transfers"])
        if chain_hash(e["prev_hash"], body) != e["hash"]:
            raise ReplayMismatch(
                f"round {round_id}: event #{e['seq']} {e['kind']} does not match its hash (altered)"
            )
    try:
        check_seals(store, [int(table["id"])])
    except HistoryError as err:
        raise ReplayMismatch(f"round {round_id}: {err}") from None
    dealt = check_cards(store, table, rnd_row)
    try:
        remade = replay(
            rules,
            [{"seq": e["seq"], "kind": e["kind"], "data": e["data"], "clause": e["clause"]} for e in evs],
        )
    except ReplayMismatch:
        raise
    except DAMAGE as err:  # an event whose data is JSON but not of the shape pontoon writes
        raise ReplayMismatch(
            f"round {round_id}: its stored events cannot be replayed ({type(err).__name__}: "
            f"{str(err)[:80]}): a stored events row is damaged"
        ) from None
    logged = [t for e in evs for t in e["transfers"]]
    moved = [t.to_json() for t in remade.ledger.transfers]
    for i, (a, b) in enumerate(zip(logged, moved, strict=False)):
        if money_rows([a]) != money_rows([b]):
            raise ReplayMismatch(
                f"round {round_id}: ledger row {i} differs: stored {canon(a)} / replayed {canon(b)}"
            )
    if len(logged) != len(moved):
        raise ReplayMismatch(
            f"round {round_id}: {len(logged)} ledger rows stored, {len(moved)} transfers replayed"
        )
    stored = rnd_row["result"]
    if remade.is_over() and stored is not None:
        from pontoon.history.recorder import result_of

        got = result_of(remade)
        again = got[1] if got else {}
        for key in ("status", "void_reason", "net", "dealer", "banker", "next_banker"):
            if key in stored and canon(stored[key]) != canon(again.get(key)):
                raise ReplayMismatch(
                    f"round {round_id}: result {key} differs: stored {canon(stored[key])} / "
                    f"replayed {canon(again.get(key))}"
                )
    elif remade.is_over() != (rnd_row["status"] != "open"):
        raise ReplayMismatch(
            f"round {round_id}: stored status {rnd_row['status']}, replayed over={remade.is_over()}"
        )
    views = _views(remade)
    return {
        "round": round_id,
        "events": len(evs),
        "transfers": len(moved),
        "status": rnd_row["status"],
        "views": views,
        "cards_checked": dealt,
    }


def check_cards(store: Store, table: dict[str, Any], rnd_row: dict[str, Any]) -> int | None:
    """The cards dealt from the round's shoe, checked against the shoe's committed order when the
    shoe was fair: a retired shoe by its revealed seed (as ``pontoon verify``), a live one by the seed
    in the table's private snapshot (checked against the commitment first; never shown). Returns how
    many cards were checked (``None``: not a fair shoe, nothing to check against)."""
    from pontoon.fair import FairRecordError, commitment, verify_record

    if rnd_row["shoe"] is None:
        return None
    rid = rnd_row["id"]
    got = shoe_record_of(store, int(table["id"]), int(rnd_row["shoe"]))
    record = got.get("record")
    if record is None:
        new = next((e["data"] for e in got["events"] if e["kind"] == "new_shoe"), None)
        fair = table["state"].get("fair") if isinstance(table["state"], dict) else None
        if not isinstance(fair, dict) or not isinstance(new, dict) or "commitment" not in new:
            return None
        live = fair.get("live")
        if not isinstance(live, dict):
            return None
        if live.get("nonce") != new.get("nonce") or not isinstance(fair.get("server_seed"), str):
            return None
        if commitment(fair["server_seed"]) != new.get("commitment"):
            raise ReplayMismatch(
                f"round {rid}: the live shoe's seed in the snapshot does not match the shoe's commitment"
            )
        record = {k: new.get(k) for k in ("scheme", "client_seed", "nonce", "commitment", "pack", "decks")}
        record.update(server_seed=fair["server_seed"], dealt=list(got["dealt"]))
    try:
        result = verify_record(record)
    except FairRecordError as err:
        raise ReplayMismatch(
            f"round {rid}: the shoe's stored commitment record is malformed: {err}"
        ) from None
    if not result.ok:
        raise ReplayMismatch(
            f"round {rid}: the cards dealt from its shoe are not the shoe's committed order: {result.difference}"
        )
    return len(got["dealt"])


def check_seals(store: Store, table_ids: list[int]) -> int:
    """Each table's seal (``seal.py``) against its stored chain head (the caller checks that the head is
    the last event's hash); raises HistoryError naming the first table whose seal does not verify."""
    if not store.sealed:
        raise HistoryError(
            f"the store predates sealed chains (schema revision {store.revision}): its chains are not "
            "evidence against an edit; a writer (pontoon play --db URL) seals it when it next opens it"
        )
    if store.key is None:
        raise HistoryError(NO_KEY)
    with store.snapshot() as conn:
        have = meta_value(conn, "seal_key")
    if have != store.key.key_id:
        raise HistoryError(
            f"the store is sealed with key {have}; the key here ({store.key.source[:120]}) is "
            f"{store.key.key_id}: give the key that sealed it (docs/history.md)"
        )
    for tid in table_ids:
        row = store.table(tid)
        if not store.key.verifies(tid, str(row["last_hash"]), str(row.get("seal", ""))):
            raise HistoryError(
                f"table {tid}: the seal of its chain head does not verify with the key: the records were "
                "changed by someone without the key (or the head was moved)"
            )
    return len(table_ids)


def _views(remade: Any) -> int:
    """Every seat's view and the spectator's, made from the replayed round (they must be)."""
    from pontoon.protocol import SPECTATOR

    seats = [SPECTATOR, *remade.seats()]
    for s in seats:
        remade.view(s)
    return len(seats)


def meters(store: Store, table_id: int | None = None) -> dict[str, Any]:
    """Totals from the ledger: per wager kind, wagered (person -> layout), returned (layout -> person),
    collected (layout -> house), paid (house or kitty or a banker -> person), and the house result."""
    per: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(lambda: ZERO))
    for r in store.ledger_(table_id):
        src, dst, kind = r["source"], r["dest"], r["kind"]
        amt = stored_amount(r["amount"], f"the stored ledger row {r['id']}: amount")
        if CASHIER in (src, dst):
            per["cashier"]["in" if src == CASHIER else "out"] += amt
            continue
        sysrc, sydst = isinstance(src, dict), isinstance(dst, dict)
        if not sysrc and dst == {"system": "layout"}:
            per[kind]["wagered"] += amt
        elif src == {"system": "layout"} and not sydst:
            per[kind]["returned"] += amt
        elif src == {"system": "layout"} and dst == {"system": "house"}:
            per[kind]["collected"] += amt
        elif not sydst:
            per[kind]["paid"] += amt
        else:
            per[kind]["other"] += amt
    out = {k: {m: v for m, v in d.items()} for k, d in per.items()}
    total: dict[str, Decimal] = defaultdict(lambda: ZERO)
    for k, d in out.items():
        if k != "cashier":
            for m, v in d.items():
                total[m] += v
    return {"kinds": out, "total": dict(total)}


def audit(store: Store) -> dict[str, Any]:
    """Check every table; returns the meters and the checks made. Raises HistoryError at the first
    discrepancy (a balance that is not its ledger sum, a broken hash chain or seal, money not
    conserved). Every read is of one snapshot (``Store.snapshot``): writers beside it never make it
    see half a transaction."""
    with store.snapshot():
        return _audit(store)


def _check_links(
    tid: int, evs: list[dict[str, Any]], ledger: list[dict[str, Any]], rounds: list[dict[str, Any]]
) -> None:
    """Every ledger row of the table belongs to one of its events (so the hash chain covers it) and
    every event and ledger row names the round of its own number: what the foreign keys of ``events``
    and ``ledger`` left unchecked (a row of another table), and on PostgreSQL, where revision 0008
    drops those keys from the write path, all of it."""
    round_ids = {int(r["number"]): int(r["id"]) for r in rounds}
    event_ids = {int(e["id"]): e for e in evs}
    for e in evs:
        want = round_ids.get(int(e["round_no"])) if e["round_no"] > 0 else None
        if e["round_id"] != want:
            raise HistoryError(
                f"table {tid}: event {e['id']} (round {e['round_no']} #{e['seq']}) names round row "
                f"{e['round_id']}, not its round's row {want}"
            )
    for r in ledger:
        ev = event_ids.get(int(r["event_id"]))
        if ev is None:
            raise HistoryError(
                f"table {tid}: ledger row {r['id']} ({str(r['idem'])[:40]}) belongs to no event of the table "
                f"(event {r['event_id']}): the hash chain does not cover it"
            )
        if r["round_id"] != ev["round_id"]:
            raise HistoryError(
                f"table {tid}: ledger row {r['id']} names round row {r['round_id']}, its event's is {ev['round_id']}"
            )


def _audit(store: Store) -> dict[str, Any]:
    checked = {"tables": 0, "events": 0, "ledger_rows": 0, "accounts": 0, "sealed": 0}
    for r in store.ledger_strays()[:1]:  # a table's ledger is its rows of its events (``Store.ledger_``)
        raise HistoryError(
            f"table {r['table_id']}: ledger row {r['id']} ({str(r['idem'])[:40]}) belongs to no event of the "
            f"table (event {r['event_id']}): the hash chain does not cover it"
        )
    for e in store.event_strays()[:1]:  # a table's events are those of its round rows (revision 0011)
        raise HistoryError(
            f"table {e['table_id']}: event {e['id']} (round {e['round_no']} #{e['seq']}) names round row "
            f"{e['round_id']}, which is not its table's round {e['round_no']} (or not one its table's read "
            "finds: numbered over the table's newest, heads.rounds): the table's chain does not cover it"
        )
    for t in store.tables_():
        tid = int(t["id"])
        checked["tables"] += 1
        ledger = store.ledger_(tid)
        sums: dict[str, Decimal] = defaultdict(lambda: ZERO)
        for r in ledger:
            a = stored_amount(r["amount"], f"the stored ledger row {r['id']}: amount")
            sums[account_key(r["source"])] -= a
            sums[account_key(r["dest"])] += a
        checked["ledger_rows"] += len(ledger)
        if sum(sums.values(), ZERO) != 0:
            raise HistoryError(
                f"table {tid}: the ledger does not conserve money (sum {sum(sums.values(), ZERO)})"
            )
        bal = store.balances(tid)
        for acct in sorted(set(sums) | set(bal)):
            checked["accounts"] += 1
            if bal.get(acct, ZERO) != sums.get(acct, ZERO):
                raise HistoryError(
                    f"table {tid}: account {acct} holds {bal.get(acct, ZERO)} but its ledger rows sum "
                    f"to {sums.get(acct, ZERO)}"
                )
        evs = store.events_(tid)
        _with_transfers(store, tid, evs, None)
        _check_links(tid, evs, ledger, store.rounds_(table_id=tid))
        prev = ""
        for e in evs:
            checked["events"] += 1
            body = event_body(e["round_no"], e["seq"], e["kind"], e["data"], e["clause"], e["transfers"])
            if e["prev_hash"] != prev or chain_hash(prev, body) != e["hash"]:
                raise HistoryError(
                    f"table {tid}: the hash chain breaks at event {e['id']} (round {e['round_no']} "
                    f"#{e['seq']} {e['kind']})"
                )
            prev = e["hash"]
        head = store.table(tid)["last_hash"]
        if head != prev:
            raise HistoryError(f"table {tid}: the stored chain head is not the last event's hash")
        checked["sealed"] += check_seals(store, [tid])
        open_rounds = [r for r in store.rounds_(table_id=tid) if r["status"] == "open"]
        if not open_rounds and bal.get(account_key({"system": "layout"}), ZERO) != 0:
            raise HistoryError(
                f"table {tid}: no round is open but the layout holds {bal[account_key({'system': 'layout'})]}"
            )
    integrity = store.integrity()
    if integrity != "ok":
        raise HistoryError(f"the database fails its integrity check: {integrity}")
    return {"meters": meters(store), "checked": checked, "integrity": integrity}


__all__ = ["audit", "list_rounds", "meters", "replay_round", "round_detail", "ReplayMismatch"]
