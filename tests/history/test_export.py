"""A session's ledger and export (history/export.py, docs/export.md): the JSON export replays with
`pontoon replay --export` to the same result, an altered file is caught, the CSV has one row per
wager, and the web's redacted British export names no card and says it cannot be replayed."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from pontoon.cli.app import run
from pontoon.history import open_store
from pontoon.history.export import replay_export, session_export, session_ledger, wagers_csv
from pontoon.replay import ReplayMismatch
from tests.history.driver import new_table, play

WAGER_EVENTS = ("bet", "double", "stake", "shoot", "buy")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('export') / 'h.sqlite'}"
    s = open_store(url)
    for preset, seed in (("rws-pandemonium", 3), ("shoot", 2), ("blackjack", 5)):
        t, rec = new_table(s, preset, seed)
        play(t, seed, 6)
        rec.close()
    s.close()
    return url


def test_export_then_replay_on_the_command_line(
    played: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for table in ("1", "2", "3"):
        assert run(["history", "--db", played, "--table", table, "--export", "json"]) == 0
        f = tmp_path / f"t{table}.json"
        f.write_text(capsys.readouterr().out)
        doc = json.loads(f.read_text())
        assert doc["format"] == "pontoon-session" and len(doc["tables"][0]["rounds"]) == 6
        assert run(["replay", "--export", str(f)]) == 0
        assert "6 rounds replayed" in capsys.readouterr().out
    # an altered payment is caught: exit 1, naming the round
    t = doc["tables"][0]
    ev = next(e for r in t["rounds"] for e in r["events"] if e["transfers"])
    ev["transfers"][0]["amount"] = str(Decimal(ev["transfers"][0]["amount"]) + 1)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert run(["replay", "--export", str(bad)]) == 1
    assert "replay differs" in capsys.readouterr().err
    # bad input: one line, exit 2
    (tmp_path / "junk.json").write_text("{not json")
    assert run(["replay", "--export", str(tmp_path / "junk.json")]) == 2
    assert run(["replay", "--export", str(tmp_path / "none.json")]) == 2
    assert run(["replay"]) == 2
    assert run(["history", "--db", played, "--export", "xml", "--table", "1"]) == 2
    assert "--export" in capsys.readouterr().err


def test_csv_has_one_row_per_wager_and_ledger_sums(played: str) -> None:
    s = open_store(played, readonly=True)
    try:
        for tid in (1, 2, 3):
            doc = session_export(s, [tid])
            rows = list(csv.DictReader(io.StringIO(wagers_csv(doc))))
            wagers = 0
            for r in doc["tables"][0]["rounds"]:
                for e in r["events"]:
                    if e["kind"] == "double":
                        wagers += len(e["data"]["amounts"])
                    elif e["kind"] in WAGER_EVENTS or (
                        e["kind"] == "action" and e["data"].get("act", {}).get("verb") == "insure"
                    ):
                        wagers += 1
            assert len(rows) == wagers > 0
            assert all(Decimal(r["amount"]) > 0 for r in rows)
            led = session_ledger(doc)
            for name, p in led["people"].items():
                from_rows = sum(
                    (Decimal(r["amount"]) for r in led["rows"] if r["player"] == name and r["round"]),
                    Decimal(0),
                )
                assert Decimal(p["net"]) == from_rows and p["rounds"] == 6
            if doc["tables"][0]["game"] == "casino":  # the driver sat ann and bob down with 1000 each
                assert led["people"]["ann"]["buy_ins"] == ["1000"]
    finally:
        s.close()


def test_redacted_british_export_names_no_card(played: str) -> None:
    s = open_store(played, readonly=True)
    try:
        doc = session_export(s, [2], redact=True)
        text = json.dumps(doc)
        assert '"draw"' not in text and '"card"' not in text and '"cards"' not in text
        assert doc["tables"][0]["replayable"] is False
        with pytest.raises(ReplayMismatch, match="ruling 35"):
            replay_export(doc)
        casino = session_export(s, [1], redact=True)  # a casino table deals face up: kept whole
        assert replay_export(casino)["rounds"] == 6
    finally:
        s.close()
