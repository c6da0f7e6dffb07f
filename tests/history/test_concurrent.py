"""Two tables in two processes writing one SQLite file at once: neither corrupts nor blocks the other
beyond a bounded wait (BEGIN IMMEDIATE queues writers on the lock with a busy timeout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from pontoon.history import open_store
from pontoon.history.audit import audit
from tests.history.conftest import DRIVER, ROOT, dump
from tests.history.driver import new_table, play


def test_two_writers_on_one_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    open_store(url).close()  # migrate once before the race
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    jobs = [("mbs", 1), ("british", 2)]
    t0 = time.monotonic()
    procs = [
        subprocess.Popen(
            [sys.executable, str(DRIVER), "--db", url, "--preset", p, "--seed", str(s), "--rounds", "15"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p, s in jobs
    ]
    outs = [p.communicate(timeout=180) for p in procs]
    wall = time.monotonic() - t0
    for p, (_out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-2000:]
    ids = sorted(json.loads(o)["table"] for o, _ in outs)
    assert ids == [1, 2]
    assert wall < 120  # bounded: the busy timeout is 30 s per write, and the writes are short
    s = open_store(url)
    assert s.integrity() == "ok"
    audit(s)
    # each table's record equals the same table played alone
    for (preset, seed), (o, _) in zip(jobs, outs, strict=True):
        tid = json.loads(o)["table"]
        solo = open_store(f"sqlite:///{tmp_path / f'solo-{preset}.sqlite'}")
        t, rec = new_table(solo, preset, seed)
        play(t, seed, 15)
        rec.close()
        a, b = dump(solo), dump(s, tid)
        assert a["events"] == b["events"] and a["balances"] == b["balances"] and a["rounds"] == b["rounds"]
        assert [r[1:] for r in a["ledger"]] == [r[1:] for r in b["ledger"]]  # type: ignore[index]
        solo.close()
    s.close()
