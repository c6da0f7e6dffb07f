"""A round's transfers and events do not depend on Python's string hash seed.

Several bettors surrendering one box (001 Surrenders: the others on the box choose for themselves)
were settled in the order of a ``set`` of names, so the order of their transfers, which the history
store hash-chains, changed with ``PYTHONHASHSEED``. The same random play in two interpreters with
different hash seeds must now write byte-identical logs.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import hashlib, sys
import numpy as np
from pontoon.casino.table import CasinoTable
from pontoon.rules import find_rules
names = ["ann", "bob", "cat", "dan"]
h = hashlib.sha256()
surrenders = 0
for preset in ("federal", "mbs"):
    rules = find_rules(preset)
    for seed in range(12):
        pick = np.random.default_rng(seed)
        table = CasinoTable(rules, rng=seed)
        for n in names:
            table.join(n, 10**6)
        for _ in range(40):
            rnd = table.new_round()
            table.place_bet(1, "ann", "main", rules.table_min)
            for q in names[1:rules.max_bettors_per_box]:
                table.place_bet(1, q, "main", rules.table_min)
            table.deal()
            while not rnd.is_over():
                options = [(s, a) for s in rnd.seats() for a in rnd.legal_actions(s)]
                sur = [o for o in options if o[1].verb == "surrender"]
                seat, a = sur[0] if sur and pick.random() < 0.7 else options[int(pick.integers(len(options)))]
                if a.low is not None:
                    a = a.with_amount(a.low)
                surrenders += a.verb == "surrender"
                table.act(seat, a)
            h.update(repr([(e.kind, e.data) for e in rnd.events()]).encode())
            h.update(repr(list(rnd.ledger.transfers)).encode())
            table.end_round()
print(h.hexdigest(), surrenders)
"""


def _digest(hash_seed: str) -> tuple[str, int]:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT / "src"))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300, check=True
    ).stdout.split()
    return out[0], int(out[1])


def test_logs_do_not_depend_on_the_hash_seed() -> None:
    a, n = _digest("1")
    b, _ = _digest("2")
    c, _ = _digest("12345")
    assert n > 20, f"the play took only {n} surrenders"
    assert a == b == c
    assert len(bytes.fromhex(a)) == hashlib.sha256().digest_size
