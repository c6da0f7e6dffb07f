"""The REST endpoints' reads of the history store: a table's rounds, a round's every step, a retired
shoe's full record with its check. Only finished rounds and retired shoes: nothing here ever names a
card still to come. A British round of the pack still in play never names a card (ruling 35: the
``draw`` events are left out and every card field is removed, as in the WebSocket's history; it says
``withheld``); once its pack is retired (its seed revealed, its whole order public) it is given whole, as
a casino round (every card face up at its end, rul 4) always is."""

from __future__ import annotations

import importlib
import json
from typing import Any

from fastapi.responses import JSONResponse
from sqlalchemy import select

from pontoon.errors import PontoonError
from pontoon.history import HistoryError, Store, shoe_record
from pontoon.history import schema as hs
from pontoon.history.audit import list_rounds, round_detail
from pontoon.history.export import _redacted, number_events, session_export
from pontoon.history.words import stored_round_words
from pontoon.money import fmt


def _err(status: int, msg: str) -> JSONResponse:
    return JSONResponse({"detail": msg}, status_code=status)


def games_by_web_id(store: Store, label: str) -> dict[str, int]:
    """How many store tables each web table was recorded as (a British table: one per game, the one
    in play included), in one read: a restored British table goes on numbering its games from there."""
    out: dict[str, int] = {}
    q = select(hs.tables.c.meta).where(hs.tables.c.label == label)
    with store.reader.connect() as conn:
        for (text,) in conn.execute(q):
            try:
                wid = json.loads(text).get("web_id")
            except (ValueError, AttributeError):  # a row not written by the server: not a web game
                continue
            if isinstance(wid, str):
                out[wid] = out.get(wid, 0) + 1
    return out


def _dealt_from_retired(store: Store, table_id: int) -> set[int]:
    """The table's round numbers dealt from a pack already retired: a fair pack whose server seed is
    revealed (``shoe_retired``; its whole order is public then: ``GET /api/shoes/{sid}``). A round of the
    pack still in play, or of a pack never committed to, is not among them."""
    live: Any = None
    retired: set[Any] = set()
    shoe_of: dict[int, Any] = {}
    for e in store.events_(table_id):
        k, d, rno = e["kind"], e["data"], int(e["round_no"])
        if rno == 0 and k == "new_shoe" and "commitment" in d:
            live = d.get("shoe")
        elif rno == 0 and k == "shoe_retired" and "server_seed" in d:
            retired.add(d.get("shoe"))
        elif rno > 0:
            shoe_of.setdefault(rno, live)  # the pack in play when the round began
    return {rno for rno, shoe in shoe_of.items() if shoe is not None and shoe in retired}


def session_of(store: Store, table_ids: list[int]) -> dict[str, Any]:
    """A web table's session export (docs/export.md): a casino table whole; a British table's rounds
    whole (replayable) once their pack is retired, its seed revealed; a round of the pack still in play
    leaves out its ``draw`` events and card fields (ruling 35: its hidden cards tell what is left in
    the pack) and says ``withheld`` (``pontoon replay --export`` replays the others)."""
    doc = session_export(store, table_ids)
    for t in doc["tables"]:
        if t["game"] != "british":
            continue
        whole = _dealt_from_retired(store, int(t["id"]))  # read after the export: packs only ever retire
        withheld = False
        for r in t["rounds"]:
            if int(r["round"]) not in whole:
                r["events"] = _redacted(r["events"])
                r["withheld"] = True
                withheld = True
        t["between_rounds"] = _redacted(t["between_rounds"])
        t["replayable"] = not withheld
        number_events(t)  # (again: the draws left out are not counted)
    return doc


def rounds_of(store: Store, table_ids: list[int], last: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in table_ids:
        out += list_rounds(store, table_id=t, last=None)
    out.sort(key=lambda r: r["id"])
    return [dict(r, net={p: fmt(v) for p, v in r["net"].items()}) for r in out[-last:]]


def round_of(store: Store, rid: int) -> Any:
    try:
        d = round_detail(store, rid)
    except HistoryError:
        return _err(404, f"no round {rid} in the history store")
    if store.table(int(d["table"]))["label"] != "web":
        return _err(404, f"no round {rid} at this server's tables")
    if d["status"] == "open":
        return _err(409, f"round {rid} is still in play: its steps are shown when it is over")
    try:  # the round in words, as everyone saw it once it was over (ruling 35: only what was exposed)
        d["words"] = stored_round_words(store, rid)["words"]
    except PontoonError:
        d["words"] = []
    british = d["preset"] in ("british", "shoot") or any(e["kind"] == "draw" for e in d["events"])
    # a casino round ends with every card face up (rul 4): shown whole; a British round once its pack
    # is retired (its seed revealed, its order public: /api/shoes, the session export), else withheld
    if british and int(d["round"]) not in _dealt_from_retired(store, int(d["table"])):
        d["events"] = _redacted(d["events"])
        d["withheld"] = True
    return d


def shoe_of(store: Store, sid: int) -> Any:
    try:
        rec = shoe_record(store, sid)
    except HistoryError:
        return _err(404, f"no shoe {sid} in the history store")
    if store.table(int(rec["table"]))["label"] != "web":
        return _err(404, f"no shoe {sid} at this server's tables")
    if not rec.get("retired"):
        return _err(409, f"shoe {sid} is still in play: its record is shown once it is retired")
    try:
        fair = importlib.import_module("pontoon.fair")
    except ImportError:
        return dict(rec, verified=None)
    new = next(
        (e["data"] for e in rec["events"] if e["kind"] == "new_shoe" and "commitment" in e["data"]), None
    )
    rev = next(
        (e["data"] for e in rec["events"] if e["kind"] == "shoe_retired" and "server_seed" in e["data"]), None
    )
    if new is None or rev is None:
        return dict(rec, fair_record=None, verified=None)  # not a provably fair shoe
    record = {
        "scheme": new["scheme"],
        "server_seed": rev["server_seed"],
        "client_seed": new["client_seed"],
        "nonce": new["nonce"],
        "commitment": new["commitment"],
        "pack": new["pack"],
        "decks": new["decks"],
        "dealt": rec["dealt"],
    }  # docs/fairness.md: what /api/verify (and anyone) checks
    rec["fair_record"] = record
    try:
        res = fair.verify_record(record)
        rec["verified"] = {"ok": res.ok, "checked": list(res.checked), "difference": res.difference}
    except (PontoonError, KeyError, TypeError) as err:
        rec["verified"] = {"ok": None, "difference": f"the shoe's record does not parse: {err}"}
    return rec
