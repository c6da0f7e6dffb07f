"""Recorded tables deal provably fair shoes by default, and `pontoon verify SHOE` checks a stored shoe
(issue 12); `pontoon train` keeps its session summary in the store (issue 14)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pontoon.cli.app import run
from pontoon.fair import commitment
from pontoon.history import open_store
from pontoon.history.audit import audit
from tests.history.conftest import ROOT
from tests.history.driver import new_table, play


def pontoon(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="200")
    env.pop("PONTOON_CRASH_AT", None)
    return subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def casino_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A recorded `pontoon play` session (casino, fair test mode from --seed) over three shoes."""
    path = tmp_path_factory.mktemp("fairplay") / "play.sqlite"
    db = f"sqlite:///{path}"
    p = pontoon("play", "--db", db, "--seed", "21", "--shoes", "2", "--rounds", "200", stdin="\ns\n" * 600)
    assert p.returncode == 0, p.stderr
    return db, p.stdout


def test_recorded_play_deals_fair_shoes_and_shows_commitments_and_reveals(casino_db: tuple[str, str]) -> None:
    db, out = casino_db
    s = open_store(db)
    evs = s.events_(1)
    news = [e["data"] for e in evs if e["kind"] == "new_shoe"]
    reveals = [e["data"] for e in evs if e["kind"] == "shoe_retired"]
    assert len(news) == len(reveals) == 2  # the cut card of shoe 2 ends the session; closing reveals it
    assert all(n["client_seed"] == "test-21" and n["secret"] is False for n in news)
    assert news[1]["commitment"] == news[0]["next_commitment"]
    for n, r in zip(news, reveals, strict=True):
        assert commitment(r["server_seed"]) == n["commitment"]
        assert f"commitment {n['commitment']}" in out  # shown when the shoe starts
        assert f"server seed {r['server_seed']}" in out  # shown when it is retired
    assert "NOT secret" in out
    ids = [int(sh["id"]) for sh in s.shoes_(1)]
    assert f"pontoon verify {ids[0]}" in out
    # the private snapshot holds the shuffler's seeds; no event holds a seed before its reveal
    for r in reveals:  # each seed appears first in its own reveal
        at = next(i for i, e in enumerate(evs) if e["kind"] == "shoe_retired" and e["data"] == r)
        assert not any(r["server_seed"] in json.dumps(e["data"]) for e in evs[:at])
    state = s.table(1)["state"]["fair"]  # the snapshot (private) holds the seeds of the shoes to come
    assert state["next_seed"] not in json.dumps([e["data"] for e in evs])
    assert commitment(state["next_seed"]) == news[-1]["next_commitment"]
    assert state["client_seed"] == "test-21"
    audit(s)
    s.close()


def test_verify_a_stored_shoe_by_its_id(
    casino_db: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = casino_db
    code, out, err = cli(capsys, "history", "--db", db, "--json", "--last", "500")
    rows = json.loads(out)
    shoe_ids = sorted({r["shoe"] for r in rows})
    assert code == 0 and shoe_ids == [1, 2]  # every round names its stored shoe id
    code, out, _ = cli(capsys, "history", "--db", db, str(rows[0]["id"]))
    assert code == 0 and f"dealt from shoe {rows[0]['shoe']}" in out
    for sid in shoe_ids:
        code, out, err = cli(capsys, "verify", str(sid), "--db", db)
        assert code == 0, err
        assert out.strip().endswith("verified") and "cards dealt are the first" in out


def _tampered(src: str, dst: Path, change: str) -> str:
    """A copy of the database with one stored event changed by hand (no hash fixed up)."""
    path = Path(src[len("sqlite:///") :])
    con = sqlite3.connect(dst)
    with sqlite3.connect(path) as old:
        old.backup(con)
    kind = "card" if change == "card" else "shoe_retired"
    rid, payload = con.execute(
        "SELECT id, payload FROM events WHERE kind = ? AND round_no >= ? ORDER BY id LIMIT 1 OFFSET ?",
        (kind, 1 if kind == "card" else 0, 4 if kind == "card" else 0),
    ).fetchone()
    data = json.loads(payload)
    if change == "card":
        data["card"] = "KS" if data["card"] != "KS" else "QH"
    else:
        data["server_seed"] = "0" * 64
    con.execute("UPDATE events SET payload = ? WHERE id = ?", (json.dumps(data), rid))
    con.commit()
    con.close()
    return f"sqlite:///{dst}"


def test_a_tampered_store_fails_with_the_first_difference(
    casino_db: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = casino_db
    card_db = _tampered(db, tmp_path / "card.sqlite", "card")
    code, out, _ = cli(capsys, "verify", "1", "--db", card_db)
    assert code == 1 and re.search(
        r"^mismatch: card 5 dealt was (KS|QH), the committed order has \w\w there$",
        out.strip().splitlines()[-1],
    ), out
    seed_db = _tampered(db, tmp_path / "seed.sqlite", "seed")
    code, out, _ = cli(capsys, "verify", "1", "--db", seed_db)
    assert code == 1 and "is not SHA-256 of the revealed server seed" in out.strip().splitlines()[-1]


def test_verify_refuses_a_live_shoe_unknown_ids_and_bad_urls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'live.sqlite'}"
    s = open_store(db)
    t, rec = new_table(s, "mbs", 3, fair=True)
    play(t, 3, 2)  # the shoe is still in use: its seed is secret
    rec.detach()
    s.close()
    code, _, err = cli(capsys, "verify", "1", "--db", db)
    assert code == 2 and "still in use" in err and len(err.strip().splitlines()) == 1
    code, _, err = cli(capsys, "verify", "99", "--db", db)
    assert code == 2 and "no shoe 99" in err
    for bad in ("mysql://x/y", "sqlite:///" + str(tmp_path / "missing.sqlite"), " "):
        code, _, err = cli(capsys, "verify", "1", "--db", bad)
        assert code == 2 and len(err.strip().splitlines()) == 1, (bad, err)
    assert not (tmp_path / "missing.sqlite").exists()  # a reader never creates a database


def test_a_table_without_the_fair_shuffle_has_nothing_to_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'plain.sqlite'}"
    s = open_store(db)
    t, rec = new_table(s, "mbs", 3, fair=False, short_shoe=True)
    play(t, 3, 8)
    t.close()
    rec.close()
    s.close()
    code, _, err = cli(capsys, "verify", "1", "--db", db)
    assert code == 2 and "not shuffled with the provably fair shuffle" in err


def test_british_play_is_fair_and_its_packs_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'british.sqlite'}"
    p = pontoon(
        "play",
        "--rules",
        "british",
        "--db",
        db,
        "--rounds",
        "10",
        "--client-seed",
        "ann's [seed]",
        stdin="\n" * 400,
    )
    assert p.returncode == 0, p.stderr
    s = open_store(db)
    news = [e["data"] for e in s.events_(1) if e["kind"] == "new_shoe"]
    shoes = s.shoes_(1)
    s.close()
    assert news and all(n["client_seed"] == "ann's [seed]" and "secret" not in n for n in news)
    assert 'client seed "ann\'s [seed]"' in p.stdout  # shown as given (no markup eaten)
    assert len(shoes) == len(news)
    for sh in shoes:  # every pack is retired by the end (a reshuffle or the table closing)
        code, out, err = cli(capsys, "verify", str(sh["id"]), "--db", db)
        assert code == 0 and out.strip().endswith("verified"), err


def test_client_seed_is_validated_and_no_history_keeps_the_numpy_shoe(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.sqlite'}"
    for bad in ("", "x" * 65, "tab\there", "café"):
        p = pontoon("play", "--db", db, "--client-seed", bad, "--rounds", "1", stdin="\ns\n")
        assert (
            p.returncode == 2 and p.stderr.startswith("error: --client-seed") and p.stderr.count("\n") == 1
        ), p.stderr
    p = pontoon("play", "--no-history", "--client-seed", "abc", stdin="")
    assert p.returncode == 2 and "leave out --no-history" in p.stderr
    a = pontoon("play", "--no-history", "--seed", "5", "--rounds", "3", stdin="\ns\n" * 10)
    b = pontoon("play", "--no-history", "--seed", "5", "--rounds", "3", stdin="\ns\n" * 10)
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout and "commitment" not in a.stdout
    assert not (tmp_path / "x.sqlite").exists() or open_store(db).tables_() == []
    help_text = pontoon("play", "--help").stdout
    assert "NOT secret" in help_text and "--client-seed" in help_text


def test_train_saves_its_summary_and_history_lists_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'drills.sqlite'}"
    p = pontoon("train", "--rules", "mbs", "--seed", "3", "--db", db, stdin="h\ns\nd\ns\nh\ns\n")
    assert p.returncode == 0, p.stderr
    m = re.search(
        r"session: (\d+) hands, (\d+) decisions, (\d+) correct \(([\d.]+)%\); cost ([\d.]+) wagers, "
        r"([\d.]+) per 100 hands",
        p.stdout,
    )
    assert m and "saved as drill session 1" in p.stdout
    q = pontoon(
        "train",
        "--rules",
        "mbs",
        "--only",
        "pairs",
        "--hands",
        "2",
        "--seed",
        "1",
        "--db",
        db,
        stdin="s\ns\n",
    )
    assert q.returncode == 0, q.stderr
    nothing = pontoon("train", "--rules", "mbs", "--hands", "1", "--seed", "1", "--no-history", stdin="s\n")
    assert nothing.returncode == 0 and "saved as" not in nothing.stdout, nothing.stderr
    code, out, err = cli(capsys, "history", "--drills", "--json", "--db", db)
    assert code == 0, err
    rows = json.loads(out)
    assert [r["id"] for r in rows] == [1, 2] and [r["only"] for r in rows] == ["all", "pairs"]
    first = rows[0]
    assert (first["hands"], first["decisions"], first["correct"]) == tuple(int(m.group(i)) for i in (1, 2, 3))
    assert (
        abs(first["cost"] - float(m.group(5))) < 1e-4
        and abs(first["cost_per_100"] - float(m.group(6))) < 1e-3
    )
    assert first["seed"] == "3" and len(first["worst"]) == first["decisions"] - first["correct"]
    for w in first["worst"]:
        assert f"worst: {w['spot']}: you {w['answer']}, best {w['best']}" in p.stdout
    code, out, _ = cli(capsys, "history", "--drills", "--db", db, "--last", "1")
    assert code == 0 and "pairs" in out and "last 1 drill sessions" in out
    code, _, err = cli(capsys, "history", "--drills", "--db", db, "3")
    assert code == 2 and "--drills" in err
    r = pontoon("train", "--db", "nope://x", "--hands", "1", stdin="s\n")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "database URL" in r.stderr
