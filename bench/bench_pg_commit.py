"""PostgreSQL's group commit: the client's AND the server's CPU per event, old tree against new.

``python bench/bench_pg_commit.py [ROUNDS] [--tables 1,100] [--root DIR,DIR] [--repeat N]``: for each
tree in ``--root`` (this checkout by default; e.g. ``/tmp/base,.`` for old then new, each a checkout
with its built ``.so`` files), in turn and ``--repeat`` times (alternating), a fresh throwaway
PostgreSQL cluster (fsync on, a unix socket) and ``bench/bench_history.py``'s loop driver
(``run_loop``: the server's ``StorePersistence``, every table on one asyncio loop, each table call
awaiting its commit) for ROUNDS rounds of mbs split over the tables. Each run is a child process (one
tree's modules a process). Prints events/s (wall: the VM's fsync is in it), this process's CPU per
event (``os.times``, every thread), the writer thread's CPU per event and the PostgreSQL server's CPU
per event (user + system of every process of its cluster, ``/proc``: the backends, the WAL writer,
the checkpointer; between ``run_loop``'s own two readings of the CPU), and their sum: the CPU an event costs the machine, steadier than the wall time
when other jobs share the cores. Not a timed test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def _cluster_cpu(datadir: str) -> float:
    """CPU seconds (user + system) of the cluster's postmaster and its children so far."""
    pm = int(Path(datadir, "postmaster.pid").read_text().split()[0])
    tck = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            f = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(d.name) == pm or int(f[1]) == pm:  # (f[1]: the parent's pid)
            total += (int(f[11]) + int(f[12])) / tck
    return total


def child(root: str, rounds: int, tables: int) -> None:
    """One run in this process, the modules of ``root`` (its src first on sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bh", Path(root) / "bench" / "bench_history.py")
    assert spec is not None and spec.loader is not None
    bh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bh)  # (puts ``root``/src and ``root`` first on sys.path)
    from tests.history.pg import cluster, create_db

    from pontoon.history import open_store
    from pontoon.history.seal import history_key

    history_key(create=True)
    with cluster() as base:
        datadir = os.path.join(base.split("host=")[1].split("&")[0], "data")
        store = open_store(create_db(base, "bench"))
        store.start_group()
        marks: list[float] = []
        own = bh.cpu

        def cpu_and_server() -> float:  # ``run_loop`` reads ``cpu()`` as it starts and as it ends
            marks.append(_cluster_cpu(datadir))
            return float(own())

        bh.cpu = cpu_and_server
        events, wall, cpu, note = bh.run_loop(
            store, max(1, rounds // tables) if tables > 1 else rounds, tables
        )
        server = marks[-1] - marks[0]
        store.close()
    import pontoon

    print(
        json.dumps(
            {
                "src": str(Path(pontoon.__file__).parent),
                "events": events,
                "wall": wall,
                "cpu": cpu,
                "server": server,
                "note": note,
            }
        )
    )


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] == "--child":
        child(argv[1], int(argv[2]), int(argv[3]))
        return
    opts = {"--tables": "1,100", "--root": str(HERE), "--repeat": "1"}
    args: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in opts and i + 1 < len(argv):
            opts[argv[i]] = argv[i + 1]
            i += 2
            continue
        if argv[i].startswith("-"):
            print(
                f"error: unknown option {argv[i]}: accepted are --tables, --root, --repeat", file=sys.stderr
            )
            sys.exit(2)
        args.append(argv[i])
        i += 1
    rounds = int(args[0]) if args else 200
    roots = [str(Path(r).resolve()) for r in opts["--root"].split(",")]
    print(f"{rounds} rounds of mbs a run, load average {os.getloadavg()[0]:.2f} at the start")
    print(
        f"{'tree':<28} {'tables':>6} {'events':>7} {'events/s':>9} {'proc CPU us/ev':>14} "
        f"{'server CPU us/ev':>16} {'sum':>7}  note"
    )
    for _ in range(int(opts["--repeat"])):
        for tables in [int(x) for x in opts["--tables"].split(",")]:
            for root in roots:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", root, str(rounds), str(tables)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if out.returncode != 0:
                    print(out.stderr[-2000:], file=sys.stderr)
                    sys.exit(1)
                r = json.loads(out.stdout.strip().splitlines()[-1])
                ev = r["events"]
                proc, server = r["cpu"] / ev * 1e6, r["server"] / ev * 1e6
                print(
                    f"{root[-28:]:<28} {tables:>6} {ev:>7} {ev / r['wall']:>9.0f} {proc:>14.1f} "
                    f"{server:>16.1f} {proc + server:>7.1f}  {r['note']}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
