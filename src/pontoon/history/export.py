"""A session (one stored table) as a document: its ledger, its export as JSON and CSV, and the replay
of an exported file (docs/export.md).

- ``session_export(store, table_ids)``: every finished round's events with their ledger rows and the
  stored result, and the table's rules; each event numbered within its round (``seq``) and within its
  table (``table_seq``, ``number_events``: the order the table logged its events in, across rounds and
  between them, for a reader to sort by): ``pontoon replay --export FILE`` re-runs every round through
  the engine and checks cards, money and result. ``redact=True`` (the web server) leaves out what a
  player may never learn of a British round (ruling 35): the pack's ``draw`` log and every card field,
  as the REST round detail does; such a file is marked ``replayable: false``.
- ``session_ledger``: buy-ins, each round's result per person, leaves, and each person's total.
- ``wagers_csv``: one row per wager (a casino bet, double or insurance; a British stake, shoot or buy).
- ``replay_export``: the check of an exported file.

Money stays the exact text the store holds (never a float).
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal, InvalidOperation
from typing import Any

from pontoon.history.recover import rules_of
from pontoon.history.store import HistoryError, Store, canon, money_rows
from pontoon.replay import ReplayMismatch, replay

FORMAT = "pontoon-session"
VERSION = 2  # 2: each event's ``table_seq`` (version 1 files, without it, are read as before)
TABLE_KEYS = ("id", "game", "preset", "label", "created", "rules")
CSV_COLUMNS = (
    "table",
    "round",
    "seq",
    "player",
    "box",
    "hand",
    "kind",
    "amount",
    "round_net_of_kind",
    "table_seq",
)


def _table_part(store: Store, tid: int) -> dict[str, Any]:
    row = store.table(tid)
    return {k: row[k] for k in TABLE_KEYS if k in row}


def _events(store: Store, tid: int) -> dict[int, list[dict[str, Any]]]:
    """The table's events by round number (0: between rounds), each with its ledger rows and its place in
    the table's log (``table_seq``: the store's order, its hash chain's; ``number_events`` makes it count
    only what is exported)."""
    by_event: dict[int, list[dict[str, Any]]] = {}
    for r in store.ledger_(tid):
        by_event.setdefault(int(r["event_id"]), []).append(
            {k: r[k] for k in ("source", "dest", "amount", "kind", "player", "reason")}
        )
    out: dict[int, list[dict[str, Any]]] = {}
    for i, e in enumerate(store.events_(tid), 1):
        out.setdefault(int(e["round_no"]), []).append(
            {
                "table_seq": i,
                "seq": e["seq"],
                "kind": e["kind"],
                "data": e["data"],
                "clause": e["clause"],
                "transfers": by_event.get(int(e["id"]), []),
            }
        )
    return out


def _redacted(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A British round's events as anyone may read them while its pack is in play (ruling 35): no
    ``draw``, no card field, no chain ``hash`` (sha256 over the whole body, the card included: trying the
    52 cards finds it), and the banker's total only where his hand was turned up (british/view.py)."""
    shown = any(e["kind"] in ("banker_turn", "banker_pontoon") for e in events)
    out = []
    for e in events:
        if e["kind"] == "draw":
            continue
        data = {k: v for k, v in e["data"].items() if k not in ("card", "cards", "burned", "ace")}
        if e["kind"] == "settled" and not shown and data.get("banker_outcome") not in (None, "", "pontoon"):
            data["banker_outcome"] = ""  # every player bust: the banker's hand was never turned up
        out.append({k: v for k, v in e.items() if k != "hash"} | {"data": data})
    return out


def number_events(part: dict[str, Any]) -> None:
    """Number the exported events of a table ``part`` 1, 2, ... in the order the table logged them
    (``table_seq``, kept in that order): the events between rounds and those of its rounds in one order
    that a reader can sort by (``seq`` counts within a round only). Called once what is left out is left
    out (a round in play, a redacted round's draws: ruling 35), so the numbers count only what is in the
    file and say nothing of what is not."""
    evs = [*part.get("between_rounds", []), *(e for r in part.get("rounds", []) for e in r.get("events", []))]
    evs.sort(key=lambda e: e["table_seq"])
    for i, e in enumerate(evs, 1):
        e["table_seq"] = i


def session_export(store: Store, table_ids: list[int], *, redact: bool = False) -> dict[str, Any]:
    """The finished rounds of ``table_ids`` (one session: a casino table, or a British table's games)."""
    with store.snapshot():
        tables = []
        for tid in table_ids:
            part = _table_part(store, tid)
            evs = _events(store, tid)
            british = part["game"] == "british"
            rounds = []
            for r in store.rounds_(table_id=tid):
                if r["status"] == "open":
                    continue  # a round in play is never exported: its cards to come
                events = evs.get(int(r["number"]), [])
                rounds.append(
                    {
                        "id": int(r["id"]),
                        "round": int(r["number"]),
                        "status": r["status"],
                        "started": r["started"],
                        "result": r["result"],
                        "events": _redacted(events) if redact and british else events,
                    }
                )
            between = evs.get(0, [])
            part["between_rounds"] = _redacted(between) if redact and british else between
            part["rounds"] = rounds
            part["replayable"] = not (redact and british)
            number_events(part)
            tables.append(part)
    return {"format": FORMAT, "version": VERSION, "tables": tables}


def session_ledger(doc: dict[str, Any]) -> dict[str, Any]:
    """Buy-ins, each round's result per person, leaves and totals, from an export (or its redaction)."""
    people: dict[str, dict[str, Any]] = {}

    def person(name: str) -> dict[str, Any]:
        return people.setdefault(name, {"buy_ins": [], "rounds": 0, "net": Decimal(0), "left": None})

    rows: list[dict[str, Any]] = []
    for t in doc["tables"]:
        for e in t.get("between_rounds", []):
            d = e["data"]
            if e["kind"] in ("join", "seat_joins"):
                who = str(d.get("player", d.get("seat")))
                if d.get("balance") is not None:  # a British seat brings no chips to the table's ledger
                    person(who)["buy_ins"].append(d["balance"])
                rows.append(
                    {
                        "table": t["id"],
                        "round": None,
                        "event": "joins",
                        "player": who,
                        "amount": d.get("balance"),
                    }
                )
            elif e["kind"] in ("leave", "seat_leaves"):
                who = str(d.get("player", d.get("seat")))
                person(who)["left"] = d.get("balance", d.get("net"))
                rows.append(
                    {
                        "table": t["id"],
                        "round": None,
                        "event": "leaves",
                        "player": who,
                        "amount": d.get("balance", d.get("net")),
                    }
                )
        for r in t["rounds"]:
            net = (r.get("result") or {}).get("net") or {}
            for who, kinds in net.items():
                total = str(kinds.get("total", "0")) if isinstance(kinds, dict) else str(kinds)
                p = person(str(who))
                p["rounds"] += 1
                p["net"] += Decimal(total)
                rows.append(
                    {
                        "table": t["id"],
                        "round": r["round"],
                        "event": r["status"],
                        "player": who,
                        "amount": total,
                    }
                )
    return {
        "people": {n: dict(p, net=str(p["net"])) for n, p in people.items()},
        "rows": rows,
    }


def _wager_rows(t: dict[str, Any], r: dict[str, Any]) -> list[dict[str, Any]]:
    net = (r.get("result") or {}).get("net") or {}

    def kind_net(player: str, kind: str) -> str:
        d = net.get(player) or {}
        return str(d.get(kind, "")) if isinstance(d, dict) else ""

    out = []
    for e in r["events"]:
        k, d = e["kind"], e["data"]
        base = {
            "table": t["id"],
            "round": r["round"],
            "seq": e["seq"],
            "table_seq": e.get("table_seq", ""),  # (absent from a version 1 file)
            "box": d.get("box", ""),
            "hand": d.get("hand", ""),
        }
        if k == "bet":
            out.append(
                dict(
                    base,
                    player=d["player"],
                    kind=d["kind"],
                    amount=d["amount"],
                    round_net_of_kind=kind_net(d["player"], d["kind"]),
                )
            )
        elif k == "double":
            for p, amt in (d.get("amounts") or {}).items():
                out.append(
                    dict(base, player=p, kind="double", amount=amt, round_net_of_kind=kind_net(p, "main"))
                )
        elif k == "action" and (d.get("act") or {}).get("verb") == "insure":
            a = d["act"]
            who = a.get("player") or d.get("seat")
            out.append(
                dict(
                    base,
                    box=a.get("box", ""),
                    player=who,
                    kind="insurance",
                    amount=a.get("amount"),
                    round_net_of_kind=kind_net(who, "insurance"),
                )
            )
        elif k in ("stake", "shoot", "buy"):
            kind = "shoot" if k == "shoot" else "stake"
            out.append(
                dict(
                    base,
                    player=d["seat"],
                    kind=k,
                    amount=d["amount"],
                    round_net_of_kind=kind_net(d["seat"], kind),
                )
            )
    return out


def wagers_csv(doc: dict[str, Any]) -> str:
    """One row per wager of the export (columns ``CSV_COLUMNS``; docs/export.md)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    w.writeheader()
    for t in doc["tables"]:
        for r in t["rounds"]:
            for row in _wager_rows(t, r):
                w.writerow({k: row.get(k, "") for k in CSV_COLUMNS})
    return buf.getvalue()


def replay_export(doc: Any) -> dict[str, Any]:
    """Re-run every round of an exported session through the engine: the events, the ledger rows and
    the result must agree (``ReplayMismatch`` names the first difference)."""
    from pontoon.history.recorder import result_of

    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("tables"), list):
        raise ReplayMismatch(f"not a {FORMAT} export: an object with format {FORMAT!r} and a list of tables")
    n_rounds = n_events = n_rows = n_withheld = 0
    for t in doc["tables"]:
        try:
            rules = rules_of(t)
            rounds = list(t["rounds"])
        except (HistoryError, KeyError, TypeError) as err:
            raise ReplayMismatch(f"a table of the export does not load: {err}") from None
        # the web's British rounds of the pack still in play leave out its cards (web/store_reads.session_of)
        withheld = sum(1 for r in rounds if isinstance(r, dict) and r.get("withheld"))
        n_withheld += withheld
        if not t.get("replayable", True) and (not withheld or withheld == len(rounds)):
            raise ReplayMismatch(
                f"table {t.get('id')}: this export leaves out the cards nobody was shown (ruling 35), so it "
                + (
                    "cannot be replayed until its pack is retired (export it again after a reshuffle or "
                    "when the game closes)"
                    if withheld
                    else "cannot be replayed; the operator's `pontoon history --table ID --export json` can"
                )
            )
        for r in rounds:
            if isinstance(r, dict) and r.get("withheld"):
                continue
            where = f"table {t.get('id')} round {r.get('round')}"
            try:
                evs = [{k: e[k] for k in ("seq", "kind", "data", "clause")} for e in r["events"]]
                logged = [x for e in r["events"] for x in e.get("transfers", [])]
                remade = replay(rules, evs)
            except ReplayMismatch as err:
                raise ReplayMismatch(f"{where}: {err}") from None
            except (KeyError, TypeError, ValueError, InvalidOperation) as err:
                raise ReplayMismatch(
                    f"{where}: its events do not load ({type(err).__name__}: {err})"
                ) from None
            moved = [x.to_json() for x in remade.ledger.transfers]
            if money_rows(logged) != money_rows(moved):
                raise ReplayMismatch(
                    f"{where}: {len(logged)} ledger rows exported, they differ from the replay's"
                )
            got = result_of(remade)
            stored = r.get("result") or {}
            again = got[1] if got else {}
            for key in ("status", "net", "dealer", "banker", "next_banker"):
                if key in stored and canon(stored[key]) != canon(again.get(key)):
                    raise ReplayMismatch(
                        f"{where}: result {key} differs: exported {canon(stored[key])} / replayed {canon(again.get(key))}"
                    )
            n_rounds += 1
            n_events += len(evs)
            n_rows += len(moved)
    out = {"rounds": n_rounds, "events": n_events, "transfers": n_rows}
    return out | ({"withheld": n_withheld} if n_withheld else {})  # rounds left out (web: pack in play)
