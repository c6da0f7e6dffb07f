"""A session export's table-wide order (history/export.py ``number_events``, docs/export.md): each event's
``table_seq`` is its place in its table's log, across rounds and between them (``seq`` counts within a
round only), so that a reader can sort the joins, the shoes and the rounds' events into the order the
table logged them; the web's redacted export numbers only what it holds. ``pontoon verify`` and
``pontoon replay --export`` read version 1 files (without it) as before, and a ``table_seq`` that
contradicts the rounds is caught. On a real SQLite history written by real tables.

Before: events were numbered within their round only, and the events between rounds came in a list of
their own, with nothing to say where among the rounds each one was logged."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from pontoon.cli.app import run
from pontoon.history import open_store
from pontoon.history.export import replay_export, session_export, wagers_csv
from pontoon.history.verify_export import check_export, summary
from pontoon.web.store_reads import session_of
from tests.history.driver import new_table, play


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Table 1: casino (mbs), fair short shoes, 12 rounds (shoes retired and shuffled between rounds).
    Table 2: British, fair packs, 8 rounds and still open (the web withholds its pack in play's rounds).
    Their exports (the operator's, and the web's of table 2) and each table's log as the store holds it."""
    s = open_store(f"sqlite:///{tmp_path_factory.mktemp('order') / 'h.sqlite'}")
    try:
        for preset, seed, rounds in (("mbs", 3, 12), ("british", 6, 8)):
            t, rec = new_table(s, preset, seed, fair=True, short_shoe=preset == "mbs")
            play(t, seed, rounds)
            rec.close()
        return {
            1: session_export(s, [1]),
            2: session_export(s, [2]),
            "web": session_of(s, [2]),
            "logged": {
                tid: [(int(e["round_no"]), int(e["seq"]), e["kind"]) for e in s.events_(tid)]
                for tid in (1, 2)
            },
        }
    finally:
        s.close()


def _all(part: dict[str, Any]) -> list[dict[str, Any]]:
    """The table's exported events, each with its round (0: between rounds), in ``table_seq`` order."""
    evs = [dict(e, round=0) for e in part["between_rounds"]]
    evs += [dict(e, round=r["round"]) for r in part["rounds"] for e in r["events"]]
    return sorted(evs, key=lambda e: e["table_seq"])


def _write(tmp_path: Path, name: str, doc: Any) -> str:
    f = tmp_path / name
    f.write_text(json.dumps(doc))
    return str(f)


@pytest.mark.parametrize("tid", [1, 2])
def test_table_seq_is_the_tables_log_order(played: dict[Any, Any], tid: int) -> None:
    part = played[tid]["tables"][0]
    exported = {0} | {r["round"] for r in part["rounds"]}  # (a round in play is not exported)
    evs = _all(part)
    assert [e["table_seq"] for e in evs] == list(range(1, len(evs) + 1))
    assert [(e["round"], e["seq"], e["kind"]) for e in evs] == [
        x for x in played["logged"][tid] if x[0] in exported
    ]
    # the events between rounds stand among the rounds' (a shoe shuffled after round k comes after it)
    first_round = min(e["table_seq"] for e in evs if e["round"])
    assert any(e["table_seq"] > first_round for e in evs if e["round"] == 0)
    if tid == 1:
        rows = list(csv.DictReader(io.StringIO(wagers_csv({"tables": [part]}))))
        by_key = {(e["round"], e["seq"]): e["table_seq"] for e in evs}
        assert rows and all(int(r["table_seq"]) == by_key[(int(r["round"]), int(r["seq"]))] for r in rows)


def test_the_webs_redacted_export_numbers_only_what_it_holds(played: dict[Any, Any]) -> None:
    whole = _all(played[2]["tables"][0])
    part = played["web"]["tables"][0]
    assert any(r.get("withheld") for r in part["rounds"])  # (its draws left out)
    evs = _all(part)
    assert len(evs) < len(whole)
    assert [e["table_seq"] for e in evs] == list(range(1, len(evs) + 1))  # no gap where a draw was
    kept = {(e["round"], e["seq"]) for e in evs}
    assert [(e["round"], e["seq"]) for e in evs] == [
        (e["round"], e["seq"]) for e in whole if (e["round"], e["seq"]) in kept
    ]


def test_version_1_and_2_files_read_alike(
    played: dict[Any, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = played[1]
    assert new["version"] == 2
    old = json.loads(json.dumps(new))
    old["version"] = 1
    for t in old["tables"]:
        for e in t["between_rounds"] + [e for r in t["rounds"] for e in r["events"]]:
            del e["table_seq"]
    assert replay_export(old) == replay_export(new)
    assert summary(check_export(old)) == summary(check_export(new))
    assert check_export(new).checked > 0  # (a retired shoe's cards checked, in both)
    for name, doc in (("old", old), ("new", new)):
        f = _write(tmp_path, f"{name}.json", doc)
        assert run(["verify", f]) == 0
        assert run(["replay", "--export", f]) == 0
        assert "12 rounds replayed" in capsys.readouterr().out


def test_a_table_seq_that_contradicts_the_rounds_is_caught(
    played: dict[Any, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def changed(fn: Any) -> dict[str, Any]:
        d = json.loads(json.dumps(played[1]))
        fn(d["tables"][0])
        return d

    def swap(t: dict[str, Any]) -> None:  # round 2's first event logged before round 1's last
        a, b = t["rounds"][0]["events"][-1], t["rounds"][1]["events"][0]
        a["table_seq"], b["table_seq"] = b["table_seq"], a["table_seq"]

    f = _write(tmp_path, "swap.json", changed(swap))
    assert run(["verify", f]) == 1
    out = capsys.readouterr().out
    assert "table 1 round 1: event #" in out and "the table's order and the rounds' disagree" in out, out
    assert run(["replay", "--export", f]) == 1
    capsys.readouterr()
    bad = {
        "missing": lambda t: t["rounds"][3]["events"][2].pop("table_seq"),
        "twice": lambda t: t["rounds"][3]["events"][2].update(
            table_seq=t["rounds"][3]["events"][1]["table_seq"]
        ),
        "text": lambda t: t["between_rounds"][0].update(table_seq="1"),
    }
    for name, fn in bad.items():
        assert run(["verify", _write(tmp_path, f"{name}.json", changed(fn))]) == 2, name
        said = capsys.readouterr()
        lines = said.err.strip().splitlines()
        assert len(lines) == 1 and "table_seq" in lines[0], (name, said)
