"""``pontoon verify`` of a session export and ``pontoon replay --export`` checking the cards themselves
(history/verify_export.py, docs/fairness.md, docs/export.md), on a real SQLite history written by real
tables with the fair shuffle (a casino table whose short shoes retire every few rounds; a British game
whose packs retire after a Pontoon and when it closes).

Before: ``pontoon verify`` read one shoe record only (an export was ``unknown key 'format'``, exit 2), and
``pontoon replay --export`` re-ran the exported cards through the engine without asking whether they were
the committed shoe's: a card changed to another of the same rank (no outcome changes) replayed clean."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.cli.app import run
from pontoon.history import open_store
from pontoon.history.export import replay_export, session_export
from pontoon.web.store_reads import session_of
from tests.history.driver import finish, new_table, play

SUITS = "SHDC"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Table 1: casino (mbs), fair short shoes, 14 rounds (two shoes retired, the third in play).
    Table 2: British, fair packs, closed after 10 rounds (every pack retired). Table 3: British, fair
    packs, 8 rounds and still open (its last pack in play). Table 4: casino, shoes not fair, 12 rounds."""
    url = f"sqlite:///{tmp_path_factory.mktemp('verify') / 'h.sqlite'}"
    s = open_store(url)
    t, rec = new_table(s, "mbs", 3, fair=True, short_shoe=True)
    play(t, 3, 14)
    rec.close()
    t, rec = new_table(s, "british", 4, fair=True)
    play(t, 4, 10)
    finish(t, rec)
    t, rec = new_table(s, "british", 6, fair=True)
    play(t, 6, 8)
    rec.close()
    t, rec = new_table(s, "mbs", 5, short_shoe=True)  # table 4: shoes without the fair shuffle
    play(t, 5, 12)
    finish(t, rec)
    docs = {
        "url": url,
        "plain": session_export(s, [4]),
        "casino": session_export(s, [1]),
        "british": session_export(s, [2]),
        "web_open": session_of(s, [3]),  # the web's export: the pack in play's rounds withheld
    }
    s.close()
    yield docs


def _write(tmp_path: Path, name: str, doc: Any) -> Path:
    f = tmp_path / name
    f.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return f


def _suit_swaps(doc: dict[str, Any], kind: str) -> Iterator[tuple[dict[str, Any], int]]:
    """Copies of ``doc`` with one dealt card changed to another suit of the same rank, and its round."""
    for r in doc["tables"][0]["rounds"]:
        for i, e in enumerate(r["events"]):
            if e["kind"] != kind:
                continue
            card = e["data"]["card"]
            other = card[:-1] + SUITS[(SUITS.index(card[-1]) + 1) % 4]
            bad = json.loads(json.dumps(doc))
            bad_r = next(x for x in bad["tables"][0]["rounds"] if x["round"] == r["round"])
            bad_r["events"][i]["data"]["card"] = other
            yield bad, r["round"]


@pytest.mark.parametrize(("game", "kind", "rounds"), [("casino", "card", 14), ("british", "draw", 10)])
def test_verify_reads_a_session_export(
    played: dict[str, Any], game: str, kind: str, rounds: int, tmp_path: Path, capsys: Any
) -> None:
    f = _write(tmp_path, f"{game}.json", played[game])
    assert run(["verify", str(f)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"session export {game}.json: {rounds} rounds"
    assert out[-1].startswith("verified: the cards of ") and out[-1].count("shoes verified") == 1
    verified = [x for x in out if x.startswith("checked: ") and x.endswith(": verified")]
    assert len(verified) >= 2, out
    if game == "casino":  # its last shoe is in play: said, not checked
        assert "still in play in this export" in out[-2] and "13 of 14 rounds" in out[-1]
    else:
        assert "10 of 10 rounds" in out[-1]
    # standard input takes it as well
    with f.open("rb") as fh, pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdin", type("In", (), {"buffer": fh})())
        assert run(["verify", "-"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == out[-1]


@pytest.mark.parametrize(("game", "kind"), [("casino", "card"), ("british", "draw")])
def test_a_changed_card_that_changes_no_outcome_is_caught(
    played: dict[str, Any], game: str, kind: str, tmp_path: Path, capsys: Any
) -> None:
    doc = played[game]
    found = None
    for bad, rno in _suit_swaps(doc, kind):
        try:
            replay_export(bad)  # the engine alone: the same rank, every outcome and payment the same
        except Exception:
            continue
        found = bad, rno
        break
    assert found is not None, "no card of the export could change suit without changing an outcome"
    bad, rno = found
    tid = doc["tables"][0]["id"]
    f = _write(tmp_path, "bad.json", bad)
    assert run(["replay", "--export", str(f)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"replay differs: table {tid} round {rno}: card ") and "committed order" in err, err
    assert run(["verify", str(f)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"mismatch: table {tid} round {rno}: card "), out
    # the untouched export replays, and says its cards are checked
    assert run(["replay", "--export", str(_write(tmp_path, "good.json", doc))]) == 0
    out = capsys.readouterr().out
    assert "\ncards: the cards of " in out and "shoes' committed cards" in out


def test_a_changed_seed_is_caught_naming_its_rounds(
    played: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    doc = json.loads(json.dumps(played["casino"]))
    t = doc["tables"][0]
    ret = next(e for e in t["between_rounds"] if e["kind"] == "shoe_retired")
    ret["data"]["server_seed"] = "0" * 64
    f = _write(tmp_path, "seed.json", doc)
    assert run(["verify", str(f)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"mismatch: table {t['id']} shoe 1 (rounds 1-") and "not SHA-256" in out, out
    assert run(["replay", "--export", str(f)]) == 1
    assert "not SHA-256 of the revealed server seed" in capsys.readouterr().err


def test_withheld_rounds_are_reported_as_withheld(
    played: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    doc = played["web_open"]
    rounds = doc["tables"][0]["rounds"]
    held = [r["round"] for r in rounds if r.get("withheld")]
    whole = [r["round"] for r in rounds if not r.get("withheld")]
    assert held and whole, [(r["round"], r.get("withheld")) for r in rounds]  # the fixture's seed: both kinds
    f = _write(tmp_path, "web.json", doc)
    assert run(["verify", str(f)]) == 0
    out = capsys.readouterr().out.splitlines()
    tid = doc["tables"][0]["id"]
    assert out[0] == f"session export web.json: {len(whole)} rounds and {len(held)} withheld"
    assert f"withheld: table {tid} rounds {', '.join(map(str, held))} (their pack still in play" in "\n".join(
        out
    )
    assert f"the cards of {len(whole)} of {len(whole)} rounds" in out[-1]
    # a round of a retired pack marked withheld (its cards left out) is not a server's export
    bad = json.loads(json.dumps(doc))
    r = next(x for x in bad["tables"][0]["rounds"] if x["round"] == whole[-1])
    r["withheld"] = True
    r["events"] = [e for e in r["events"] if e["kind"] != "draw"]
    assert run(["verify", str(_write(tmp_path, "hid.json", bad))]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"mismatch: table {tid} round {whole[-1]}: withheld, yet its shoe"), out


def _first_card(doc: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in doc["tables"][0]["rounds"][0]["events"] if e["kind"] == "card")


def test_bad_files_are_one_line_and_exit_2(played: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    good = played["casino"]
    big_junk = {"format": "something-else", "pad": "x" * 300_000}

    def broken(fn: Any) -> dict[str, Any]:
        d = json.loads(json.dumps(good))
        fn(d)
        return d

    bad = {
        "tables": {"format": "pontoon-session", "version": 1, "tables": "all of them"},
        "table": {"format": "pontoon-session", "version": 1, "tables": [7]},
        "rounds": broken(lambda d: d["tables"][0].update(rounds={"1": []})),
        "event": broken(lambda d: d["tables"][0]["rounds"][0]["events"][3].pop("seq")),
        "retired": broken(lambda d: [e["data"].pop("dealt", 0) for e in d["tables"][0]["between_rounds"]]),
        "card": broken(lambda d: _first_card(d)["data"].update(card="ZZ")),
        "big": big_junk,
        "notjson": "{not json" + " " * 300_000,
    }
    for name, doc in bad.items():
        assert run(["verify", str(_write(tmp_path, f"{name}.json", doc))]) == 2, name
        said = capsys.readouterr()
        lines = said.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and said.out == "", (name, said)
    assert run(["verify", str(_write(tmp_path, "none.json", played["web_open"] | {"tables": []}))]) == 2
    assert "nothing to verify" in capsys.readouterr().err


def test_shoes_without_a_commitment_or_reveal(played: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    """A table without the fair shuffle has nothing to verify (exit 2) and replays, saying its cards are
    not checked; a fair shoe followed by the next without its seed revealed is not a server's export."""
    f = _write(tmp_path, "plain.json", played["plain"])
    assert run(["verify", str(f)]) == 2
    assert "not shuffled with the provably fair shuffle" in capsys.readouterr().err
    assert run(["replay", "--export", str(f)]) == 0
    assert "cards: its shoes were not shuffled with the provably fair shuffle" in capsys.readouterr().out
    doc = json.loads(json.dumps(played["casino"]))
    t = doc["tables"][0]
    t["between_rounds"] = [e for e in t["between_rounds"] if e["kind"] != "shoe_retired"]
    assert run(["verify", str(_write(tmp_path, "gone.json", doc))]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"mismatch: table {t['id']}: shoe 1 is followed by shoe 2 without its seed"), out


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _paths(doc: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*at, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*at, i))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_hostile_export_is_one_line_and_never_a_traceback(
    played: dict[str, Any], tmp_path: Path, capsys: Any, data: st.DataObject
) -> None:
    """Any value anywhere in an export (a card, a seed, a seq, a table, a round): exit 0, 1 (``mismatch:``,
    one line) or 2 (``error:``, one line), never an internal error."""
    doc = json.loads(json.dumps(played[data.draw(st.sampled_from(["casino", "british", "web_open"]))]))
    paths = [p for p in _paths(doc) if p]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for k in path[:-1]:  # (an earlier draw may have replaced a step of the path: then no parent)
            try:
                parent = parent[k] if isinstance(parent, (dict, list)) else None
            except (IndexError, KeyError, TypeError):
                parent = None
            if parent is None:
                break
        if isinstance(parent, (dict, list)):
            try:
                parent[path[-1]] = data.draw(JSON)
            except (IndexError, KeyError, TypeError):
                pass
    rc = run(["verify", str(_write(tmp_path, "x.json", doc))])
    said = capsys.readouterr()
    assert rc in (0, 1, 2) and "internal error" not in said.err, said
    if rc == 1:
        assert said.out.startswith("mismatch: ") and said.out.count("\n") == 1 and said.err == "", said
    if rc == 2:
        assert said.err.startswith("error: ") and said.err.count("\n") == 1, said


def test_replay_of_a_stored_round_says_its_cards_were_checked(played: dict[str, Any], capsys: Any) -> None:
    """``pontoon replay ROUND``: its shoe's cards against the commitment, said (a shoe without one, too)."""
    assert run(["replay", "3", "--db", played["url"]]) == 0  # table 1's round 3: its shoe retired
    out = capsys.readouterr().out.strip()
    assert out.startswith("round 3 replayed: ") and out.endswith(
        "the 53 cards dealt from its shoe are its committed order (checked against its commitment)"
    ), out
    plain = played["plain"]["tables"][0]["rounds"][0]["id"]
    assert run(["replay", str(plain), "--db", played["url"]]) == 0
    out = capsys.readouterr().out
    assert "its shoe is not a provably fair one: its cards are not checked against a commitment" in out, out


def test_a_file_that_is_neither_names_both_accepted_forms(
    played: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    """A JSON list (an export wrapped in a list, an empty one), a string, a number, an object of another
    format: exit 2, one line naming what the file holds and both forms verify reads. Before, such a file
    was told only "a record is a JSON object with keys ...", never that a session export is read too."""
    bad = {
        "list": [played["casino"]],
        "empty": [],
        "text": json.dumps("pontoon-session"),  # (_write writes a str as it is)
        "number": 7,
        "other": {"format": "something-else", "tables": []},
    }
    holds = {
        "list": "a JSON list",
        "empty": "a JSON list",
        "text": "a JSON string",
        "number": "a JSON number",
    }
    for name, doc in bad.items():
        assert run(["verify", str(_write(tmp_path, f"{name}.json", doc))]) == 2, name
        said = capsys.readouterr()
        lines = said.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and said.out == "", (name, said)
        line = lines[0]
        assert "session export" in line and "'pontoon-session'" in line and "shoe's record" in line, line
        assert holds.get(name, "format 'something-else'") in line, line
