"""`pontoon history`, `pontoon replay`, `pontoon history --audit` on a database made by `pontoon play`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pontoon.cli.app import run
from pontoon.history import open_store
from tests.history.driver import new_table, play


@pytest.fixture
def played(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    s = open_store(url)
    for preset, seed in (("mbs", 1), ("shoot", 2)):
        t, rec = new_table(s, preset, seed)
        play(t, seed, 8)
        rec.close()
    s.close()
    return url


def test_list_json_detail_replay_audit(played: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["history", "--db", played, "--json", "--last", "5"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 5 and all({"id", "time", "preset", "status", "net"} <= set(r) for r in rows)
    assert rows[-1]["preset"] == "shoot" and rows[0]["id"] < rows[-1]["id"]
    assert run(["history", "--db", played, "--table", "1", "--last", "100", "--json"]) == 0
    rows1 = json.loads(capsys.readouterr().out)
    assert len(rows1) == 8 and {r["preset"] for r in rows1} == {"mbs"}
    # the list as a table
    assert run(["history", "--db", played]) == 0
    out = capsys.readouterr().out
    assert "preset" in out and "shoot" in out
    # one round in full: every card, decision and payment in order
    rid = str(rows1[0]["id"])
    assert run(["history", rid, "--db", played]) == 0
    out = capsys.readouterr().out
    assert "round_start" in out and " card " in out and "<layout>" in out
    # in words, not Python's dict text: an action's fields and the net per player
    assert "{'" not in out and "['" not in out, out
    net_line = next(line for line in out.splitlines() if line.startswith("result:"))
    assert " net: " in net_line and "{" not in net_line, net_line
    for shoot_row in (r for r in rows if r["preset"] == "shoot"):
        assert run(["history", str(shoot_row["id"]), "--db", played]) == 0
        text = capsys.readouterr().out
        assert "{'" not in text and "['" not in text, text
    assert run(["replay", rid, "--db", played]) == 0
    assert "agree" in capsys.readouterr().out
    assert run(["history", "--audit", "--db", played]) == 0
    out = capsys.readouterr().out
    assert "audit ok" in out and "wagered" in out


def test_replay_finds_a_difference_and_exits_1(played: str, capsys: pytest.CaptureFixture[str]) -> None:
    from sqlalchemy import text

    s = open_store(played)
    with s.engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE events SET payload=replace(payload,'\"stand\"','\"hit\"') WHERE kind='action' "
                "AND round_no=1 AND table_id=1"
            )
        )
    s.close()
    assert run(["replay", "1", "--db", played]) == 1
    assert "replay differs" in capsys.readouterr().err
    assert run(["history", "--audit", "--db", played]) == 1
    assert "hash chain breaks" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args,msg",
    [
        (["history", "abc"], "a round is given by its id"),
        (["history", "9999"], "no round 9999"),
        (["replay", "-1"], ""),
        (["history", "--table", "77"], "no table 77"),
        (["history", "--last", "0"], "--last 0"),
    ],
)
def test_bad_ids_are_one_line_errors(
    played: str, args: list[str], msg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([*args, "--db", played]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and msg in err


def test_missing_bad_and_corrupt_databases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "junk.sqlite"
    bad.write_text("not sqlite at all\n" * 50)
    for db, msg in (
        (f"sqlite:///{tmp_path / 'none.sqlite'}", "no history database"),
        ("bogus", "give sqlite"),
        (f"sqlite:///{bad}", "not a database"),
        ("oracle://x", "accepted are"),
    ):
        assert run(["history", "--db", db]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and msg in err, err


def test_play_records_by_default_and_not_with_no_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    url = f"sqlite:///{tmp_path / 'default.sqlite'}"
    monkeypatch.setenv("PONTOON_DB", url)
    monkeypatch.setattr("sys.stdin", io.StringIO("\ns\n" * 20))
    assert run(["play", "--seed", "1", "--rounds", "2"]) == 0
    s = open_store(url)
    assert len(s.rounds_()) == 2 and s.tables_()[0]["status"] == "closed"
    monkeypatch.setattr("sys.stdin", io.StringIO("\ns\n" * 20))
    assert run(["play", "--seed", "1", "--rounds", "2", "--no-history"]) == 0
    assert len(s.rounds_()) == 2
    s.close()
