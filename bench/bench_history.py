"""History write throughput: events per second recorded with ``synchronous=FULL`` (the store's
setting: every event its own fsynced transaction), beside ``synchronous=OFF`` and no recording at all
in the same run, on SQLite and (when Debian's PostgreSQL is installed) on a throwaway PostgreSQL
cluster on a unix socket (fsync on).

Usage: ``python bench/bench_history.py [ROUNDS] [--no-pg]``. Each run plays ROUNDS rounds of ``mbs``
with two players (the scripted, deterministic policy of tests/history/driver.py).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.history.driver import new_table, play  # noqa: E402

from pontoon.history import open_store  # noqa: E402
from pontoon.history.store import Store  # noqa: E402


def run(store: Store | None, rounds: int) -> tuple[int, float]:
    """(events, seconds) for ``rounds`` rounds, recorded into ``store`` (None: not recorded)."""
    if store is None:
        from pontoon.casino.table import CasinoTable
        from pontoon.rules import resolve_rules

        t = CasinoTable(resolve_rules("mbs"), rng=1)
        n = [0]
        t.subscribe(lambda _r: n.__setitem__(0, n[0] + 1))
        t.join("ann", 10**6)
        t.join("bob", 10**6)
        t0 = time.perf_counter()
        play(t, 1, rounds)
        return n[0], time.perf_counter() - t0
    t0 = time.perf_counter()
    tab, rec = new_table(store, "mbs", 1, balance=10**6)
    play(tab, 1, rounds)
    rec.close()
    dt = time.perf_counter() - t0
    return len(store.events_(rec.table_id)), dt


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(args[0]) if args else 200
    rows = []
    ev, dt = run(None, rounds)
    rows.append(("engine only (no history)", ev, dt))
    with tempfile.TemporaryDirectory() as d:
        for sync in ("FULL", "OFF"):
            s = open_store(f"sqlite:///{d}/bench-{sync}.sqlite", synchronous=sync)
            ev, dt = run(s, rounds)
            rows.append((f"SQLite WAL synchronous={sync}", ev, dt))
            s.close()
    if "--no-pg" not in sys.argv:
        from tests.history.pg import cluster, create_db, pg_bin

        if pg_bin() is None:
            print("PostgreSQL: not installed (make sysdeps), skipped")
        else:
            with cluster() as base:
                s = open_store(create_db(base, "bench"))
                ev, dt = run(s, rounds)
                rows.append(("PostgreSQL (fsync on, unix socket)", ev, dt))
                s.close()
    full = next(r for r in rows if "FULL" in r[0])
    print(f"{rounds} rounds of mbs, two players, every event its own transaction")
    print(f"{'store':<38} {'events':>7} {'seconds':>8} {'events/s':>10} {'vs FULL':>8}")
    for name, ev, dt in rows:
        rate = ev / dt
        print(f"{name:<38} {ev:>7} {dt:>8.2f} {rate:>10.0f} {rate / (full[1] / full[2]):>7.2f}x")


if __name__ == "__main__":
    main()
