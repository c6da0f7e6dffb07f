"""What a server's probe (bench/server_probe.py) measured, printed: ``report_probe`` (its handling time per
message, the commit's wait and its stages, the loop's lateness, the collections, the stalls), as the
benches show it beside their clients' figures; bench/server_probe.py re-exports it."""

from __future__ import annotations

from collections import Counter
from typing import Any


def _q(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


COMMIT_COLS = ("queued", "begin", "python", "statements", "commit", "commit CPU", "after", "total")
_COL_AT = {
    "queued": 2,
    "begin": 4,
    "python": 5,
    "statements": 6,
    "commit": 7,
    "commit CPU": 8,
    "after": 10,
    "total": 12,
}


def report_commits(rows: list[Any], wakes: list[float]) -> None:
    """The group commits' stages (``Probe._install_commits``): p50/p99/max of each, the checkpoints, and
    what the slowest 1% of the commits (by ``total``: the oldest call queued -> its commit done) spent."""
    if not rows:
        return
    items = sorted(int(r[1]) for r in rows)
    ck = [r for r in rows if r[9]]
    print(
        f"  group commits: {len(rows)}, calls each p50 {_q(items, 0.5)} p99 {_q(items, 0.99)} max {items[-1]}; "
        f"WAL checkpoints in COMMIT: {len(ck)}"
        + (
            f" (COMMIT ms p50 {_q(sorted(r[7] for r in ck), 0.5):.1f} max {max(r[7] for r in ck):.1f})"
            if ck
            else ""
        )
    )
    cells = []
    for k in COMMIT_COLS:
        v = sorted(r[_COL_AT[k]] for r in rows)
        cells.append(f"{k} {_q(v, 0.5):.2f}/{_q(v, 0.99):.2f}/{v[-1]:.1f}")
    print("  commit stages ms p50/p99/max: " + "; ".join(cells))
    for idle in (True, False):
        v = sorted(r[2] for r in rows if r[3] == idle)
        if v:
            print(
                f"    queued while the writer was {'idle (a hand-off)' if idle else 'busy (behind a commit)'}: "
                f"{len(v)} commits, ms p50 {_q(v, 0.5):.2f} p99 {_q(v, 0.99):.2f} max {v[-1]:.1f}"
            )
    if wakes:
        print(
            f"    the loop's wake-up after a commit, late ms p50 {_q(wakes, 0.5):.2f} p99 {_q(wakes, 0.99):.2f} max {wakes[-1]:.1f}"
        )
    top = sorted(rows, key=lambda r: r[12])[-max(1, len(rows) // 100) :]
    means = "; ".join(f"{k} {sum(r[_COL_AT[k]] for r in top) / len(top):.2f}" for k in COMMIT_COLS)
    print(
        f"    the slowest 1% ({len(top)} commits, total >= {top[0][12]:.1f} ms), means ms: {means}; "
        f"with a checkpoint {sum(1 for r in top if r[9])}, calls mean {sum(r[1] for r in top) / len(top):.0f}"
    )


WAIT_COLS = ("wait", "to taken", "commit", "after", "wake late", "resumed")


def report_waits(rows: list[Any]) -> None:
    """Each table call's wait for its commit (``StorePersistence.settle``), split: the call queued ->
    the writer took it (negative: taken before the wait began), the commit, its futures, the loop's
    lateness to run the wake-up, and the wake-up -> this coroutine running (behind the other callbacks
    queued, the other callers of that commit among them); for all waits and the slowest 1%."""
    if not rows:
        return
    cells = []
    for i, k in enumerate(WAIT_COLS, 1):
        v = sorted(r[i] for r in rows)
        cells.append(f"{k} {_q(v, 0.5):.2f}/{_q(v, 0.99):.2f}")
    print(f"  each call's commit wait ({len(rows)}), ms p50/p99: " + "; ".join(cells))
    top = sorted(rows, key=lambda r: r[1])[-max(1, len(rows) // 100) :]
    means = "; ".join(f"{k} {sum(r[i] for r in top) / len(top):.2f}" for i, k in enumerate(WAIT_COLS, 1))
    print(
        f"    the slowest 1% ({len(top)}, wait >= {top[0][1]:.1f} ms), means ms: {means}; "
        f"calls in their commit mean {sum(r[7] for r in top) / len(top):.0f}"
    )


def report_probe(pr: dict[str, Any], since: float = 0.0, until: float = float("inf")) -> None:
    """What the server measured (bench/server_probe.py) between ``since`` and ``until`` (``time.time()``:
    the play, not the set-up): its handling time per message beside the clients' end-to-end latency,
    the commit's wait, how late its event loop woke, its collections, and what held the loop in the
    stalls."""

    def cut(rows: list[Any]) -> list[Any]:
        return [r for r in rows if since <= r[0] <= until]

    hd = sorted(ms for _, ms in cut(pr["handle"]))
    sd = sorted(ms for _, ms in cut(pr["send"]))
    lag = sorted(ms for _, ms in cut(pr["lag"]))
    print(
        f"server side: handling ms p50 {_q(hd, 0.5):.1f} p99 {_q(hd, 0.99):.1f} max {_q(hd, 1):.1f} "
        f"({len(hd)} messages); queued to sent ms p50 {_q(sd, 0.5):.1f} p99 {_q(sd, 0.99):.1f}; "
        f"event loop late ms p50 {_q(lag, 0.5):.1f} p99 {_q(lag, 0.99):.1f} max {_q(lag, 1):.1f}"
    )
    st = sorted(ms for _, ms in cut(pr.get("settle", [])))
    if st and st[-1] > 0.05:
        print(
            f"  of it waiting for the commit (Server.settled) ms p50 {_q(st, 0.5):.1f} p99 {_q(st, 0.99):.1f} "
            f"max {st[-1]:.1f}, {sum(st):.0f} ms in all ({len(st)} waits)"
        )
    report_commits(cut(pr.get("commits", [])), sorted(ms for _, ms in cut(pr.get("wakes", []))))
    report_waits(cut(pr.get("waits", [])))
    ps = cut(pr.get("passes", []))
    if ps:
        ms = sorted(r[1] for r in ps)
        print(
            f"  checkpointer (history/checkpoints.py): {len(ps)} passes, ms p50 {_q(ms, 0.5):.1f} p99 "
            f"{_q(ms, 0.99):.1f} max {ms[-1]:.1f}; WAL frames at a pass max {int(max(r[2] for r in ps))}, "
            f"frames copied {int(sum(max(0, r[3]) for r in ps))}; CPU s over the whole run: passes "
            f"{pr.get('checkpoint_cpu', [0, 0])[0]:.2f}, the writer's ends {pr.get('checkpoint_cpu', [0, 0])[1]:.2f}"
        )
        fs = sorted(ms for _, ms in cut(pr.get("finishes", [])))
        if fs:
            print(
                f"    the idle writer's ends of a checkpoint: {len(fs)}, ms p50 {_q(fs, 0.5):.1f} p99 "
                f"{_q(fs, 0.99):.1f} max {fs[-1]:.1f}"
            )
    ticks = sorted(ms for _, ms in cut(pr["ticks"]))
    if ticks:  # (wall time of a pass over the tables, the loop let go between slices of them)
        print(
            f"  timer tick pass ms p50 {_q(ticks, 0.5):.1f} p99 {_q(ticks, 0.99):.1f} max {_q(ticks, 1):.1f}"
        )
    gcs = cut(pr["gcs"])
    for gen in (0, 1, 2):
        g = sorted(r[2] for r in gcs if r[1] == gen)
        c = sorted(r[3] for r in gcs if r[1] == gen)
        if g:
            print(
                f"  GC generation {gen}: {len(g)} collections, {sum(g):.0f} ms in all (CPU {sum(c):.0f}), "
                f"p99 {_q(g, 0.99):.1f} max {g[-1]:.1f} ms (CPU p99 {_q(c, 0.99):.1f} max {c[-1]:.1f})"
            )
        k = [r[4] for r in gcs if r[1] == gen and len(r) > 4]
        if g and k:
            print(f"    objects freed per collection: mean {sum(k) / len(k):,.0f}, max {int(max(k)):,}")
    for gen in (0, 1, 2):  # PROBE_GC_CENSUS=1: what the collections scanned, by type
        cs = [c for c in cut(pr.get("census", [])) if c[1] == gen]
        if cs:
            tot: Counter[str] = Counter()
            for c in cs:
                tot.update(c[3])
            top = ", ".join(f"{t} {n / len(cs):,.0f}" for t, n in tot.most_common(12))
            print(
                f"  census, generation {gen} ({len(cs)} collections): scanned mean "
                f"{sum(c[2] for c in cs) / len(cs):,.0f} objects; by type, mean: {top}"
            )
    o0, o1, frozen = pr.get("objects", [0, 0, 0])
    print(
        f"  objects the GC tracks: {o0:,} at start, {o1:,} at the exit besides {frozen:,} frozen (a full "
        f"collection there, freeing the closed server's garbage too, took {pr.get('full_ms', float('nan')):.0f} ms)"
    )
    if pr.get("traced"):  # PROBE_TRACEMALLOC
        print(
            "  traced MB / RSS MB at each snapshot: "
            + "  ".join(f"{at:.0f}s {mb:.0f}/{rss:.0f}" for at, mb, rss in pr["traced"])
        )
        for line in pr.get("growth", []):
            print("  grew " + line)
    if "rows_mb" in pr:
        print(f"  the probe's own rows at the exit: {pr['rows_mb']:.1f} MB (in the RSS above)")
    big = sorted((ms for _, ms in cut(pr["lag"]) if ms > 50), reverse=True)[:8]
    if big:
        print("  longest loop stalls ms: " + ", ".join(f"{m:.0f}" for m in big))
    where = Counter(k for _, k in cut(pr["stalls"]))
    for k, n in where.most_common(5):
        print(f"  loop held ({n} samples of 10 ms in stalls over {pr.get('stall_ms', 50):.0f} ms): {k}")
