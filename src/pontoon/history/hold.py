"""What a table held per wager kind, from its ledger (``pontoon history --hold``, issue 23 item 5).

Per wager kind (the Super Bonus counted with the main wager it is paid on): the rounds, the
initial stakes (transfers with reason ``stake``: a double's or split's further stake is not an
initial wager), the sum of their squares (per round and player, for the variance of the hold),
every stake, and the players' net (returned + paid - staked). Rounds that were voided (a reversal
in the ledger) are left out.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from pontoon.history.store import Store

ZERO = Decimal(0)
LAYOUT = {"system": "layout"}


def recorded_hold(store: Store, table_id: int) -> dict[str, dict[str, Any]]:
    """{kind: {rounds, initial, initial_sq, wagered, net}} for one table (money as Decimal)."""
    rows = store.ledger_(table_id)
    void = {r["round_id"] for r in rows if str(r["reason"]).startswith("void")}
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "rounds": set(),
            "initial": ZERO,
            "wagered": ZERO,
            "net": ZERO,
            "by_round": defaultdict(lambda: ZERO),
        }
    )
    for r in rows:
        if r["round_id"] is None or r["round_id"] in void:
            continue
        kind = "main" if r["kind"] == "super_bonus" else r["kind"]
        if kind in ("deposit", "withdrawal", "cashier"):
            continue
        src, dst, amt = r["source"], r["dest"], Decimal(r["amount"])
        person_src, person_dst = not isinstance(src, dict), not isinstance(dst, dict)
        d = per[kind]
        if person_src and dst == LAYOUT:
            d["wagered"] += amt
            d["net"] -= amt
            d["rounds"].add(r["round_id"])
            if r["reason"] == "stake":
                d["initial"] += amt
                d["by_round"][(r["round_id"], r["player"])] += amt
        elif person_dst and not person_src:
            d["net"] += amt  # returned from the layout, or paid by the house, kitty or a bank
    out: dict[str, dict[str, Any]] = {}
    for kind, d in per.items():
        if not d["rounds"]:
            continue
        out[kind] = {
            "rounds": len(d["rounds"]),
            "initial": d["initial"],
            "initial_sq": sum((v * v for v in d["by_round"].values()), ZERO),
            "wagered": d["wagered"],
            "net": d["net"],
        }
    return out
