"""Drill sessions (``pontoon train``) in the history store: table ``drills`` (Alembic revision 0002).

A session summary (``pontoon.cli.train.Session.summary``) is one row: the preset, the kind of spot
drilled, the seed, hands, decisions and correct answers, and accuracy, cost and cost per 100 hands as
decimal text fixed to 6 places (the costs are expected values in wagers, from the exact analyser: the
text never passes through a float again), with the worst spots as JSON.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select

from pontoon.history import schema as s
from pontoon.history.store import HistoryError, Store, now, stored_amount, stored_json

PLACES = Decimal("0.000001")
MAX_WORST = 20


def _fixed(value: object, what: str) -> str:
    """A number as decimal text with 6 places (a float is read through its shortest repr)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise HistoryError(f"drill summary: {what} must be a number, not {type(value).__name__}")
    d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if not d.is_finite():
        raise HistoryError(f"drill summary: {what} must be finite, not {value}")
    return str(d.quantize(PLACES))


def _count(summary: dict[str, Any], key: str) -> int:
    v = summary.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise HistoryError(f"drill summary: {key} must be a whole number from 0, not {v!r:.40}")
    return v


def save_drill(store: Store, summary: dict[str, Any], *, seed: int | None = None) -> int:
    """Write one session summary; returns its id."""
    worst = [
        {
            "spot": str(w["spot"]),
            "answer": str(w["answer"]),
            "best": str(w["best"]),
            "cost": _fixed(w["cost"], "cost"),
        }
        for w in list(summary.get("worst", []))[:MAX_WORST]
    ]
    row = {
        "created": now(),
        "rules": str(summary["rules"])[:200],
        "only": str(summary["only"])[:16],
        "seed": None if seed is None else str(seed),
        "hands": _count(summary, "hands"),
        "decisions": _count(summary, "decisions"),
        "correct": _count(summary, "correct"),
        "accuracy": _fixed(summary["accuracy"], "accuracy"),
        "cost": _fixed(summary["cost"], "cost"),
        "cost_per_100": _fixed(summary["cost_per_100_hands"], "cost_per_100_hands"),
        "worst": json.dumps(worst, separators=(",", ":")),
    }
    with store.engine.begin() as conn:
        res = conn.execute(insert(s.drills).values(**row))
        pk = res.inserted_primary_key
    assert pk is not None
    return int(pk[0])


SPOT = ("spot", "answer", "best")


def list_drills(store: Store, *, last: int | None = 10) -> list[dict[str, Any]]:
    """The newest ``last`` drill sessions, oldest first; numbers as Decimal, ``worst`` as a list."""
    q = select(s.drills).order_by(s.drills.c.id.desc())
    if last is not None:
        q = q.limit(last)
    with store.snapshot() as conn:
        rows = [dict(r) for r in conn.execute(q).mappings()]
    rows.reverse()
    for r in rows:
        where = f"the stored drills row {r['id']}"
        for k in ("accuracy", "cost", "cost_per_100"):
            r[k] = stored_amount(r[k], f"{where}: {k}")
        worst = stored_json(r["worst"], f"{where}: worst", list)
        if not all(isinstance(w, dict) and all(isinstance(w.get(k), str) for k in SPOT) for w in worst):
            raise HistoryError(f"{where}: worst is not a list of spots: the stored row is damaged")
        r["worst"] = [{**w, "cost": stored_amount(w.get("cost"), f"{where}: worst cost")} for w in worst]
    return rows


__all__ = ["save_drill", "list_drills"]
