"""Provably fair shuffles (issue 12 item 5): the scheme against its document, exact unbiasedness of the
index, chi-square of card positions, tables that commit before dealing and reveal at retirement,
tampering found, and hostile records through ``pontoon verify``."""

from __future__ import annotations

import hashlib
import json
import math
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.bots import Bots, play_round
from pontoon.british.table import BritishGame
from pontoon.cards import PACKS, Card, parse_cards
from pontoon.casino.table import CasinoTable
from pontoon.cli.app import run
from pontoon.errors import IllegalAction
from pontoon.events import TableRecord
from pontoon.fair import (
    RECORD_KEYS,
    SCHEME,
    FairRecordError,
    FairShuffler,
    Trace,
    blocks,
    canonical_shoe,
    check_client_seed,
    commitment,
    deterministic_server_seed,
    fisher_yates,
    index_below,
    parse_record,
    records_from_events,
    rejection_limit,
    shuffle_cards,
    shuffled_shoe,
    stream_message,
    verify_record,
)
from pontoon.rules import find_rules
from pontoon.rules.british import BRITISH
from pontoon.rules.model import CasinoRules

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "fairness.md").read_text()
TIME_LIMIT = 10.0  # seconds for any one hostile record (they take milliseconds)


def _block_after(marker: str, lang: str) -> str:
    m = re.search(rf"<!-- {marker} -->\s*```{lang}\n(.*?)```", DOC, re.S)
    assert m, f"docs/fairness.md has no {marker} block"
    return m.group(1)


# ------------------------------------------------------------------------------------------
# the document cannot drift from the code
def test_worked_example_of_the_document() -> None:
    ex = json.loads(_block_after("worked-example", "json"))
    cards = parse_cards(ex["cards"])
    assert cards == list(canonical_shoe("pontoon48", 1)[:6])
    assert commitment(ex["server_seed"]) == ex["commitment"]
    assert stream_message(ex["client_seed"], ex["nonce"], 0).decode() == ex["block_0_message"]
    assert next(blocks(ex["server_seed"], ex["client_seed"], ex["nonce"])).hex() == ex["block_0"]
    trace = Trace()
    order = shuffle_cards(cards, ex["server_seed"], ex["client_seed"], ex["nonce"], trace)
    assert trace.words == ex["words"]
    assert [list(s) for s in trace.steps] == ex["swaps"]
    assert [rejection_limit(i + 1) for i, _ in trace.steps] == ex["limits"]
    assert [str(c) for c in order] == ex["order"]
    # the table of steps in the prose says the same
    rows = [r.split("|")[1:-1] for r in DOC.splitlines() if re.match(r"\| \d \| \d \|", r)]
    assert len(rows) == len(trace.steps)
    after = [str(c) for c in cards]
    for row, (i, j), w in zip(rows, trace.steps, trace.words, strict=True):
        cells = [c.strip() for c in row]
        after[i], after[j] = after[j], after[i]
        assert (int(cells[1]), int(cells[2]), int(cells[3]), int(cells[4].split()[0]), int(cells[5])) == (
            i,
            i + 1,
            w,
            rejection_limit(i + 1),
            j,
        )
        assert cells[6] == " ".join(after)
    assert f"shoe deals `{' '.join(ex['order'])}`" in DOC


def test_plain_reimplementation_of_the_document_agrees() -> None:
    ns: dict[str, Any] = {}
    exec(_block_after("reimplementation", "python"), ns)  # noqa: S102 - our own document
    fair_order: Callable[..., list[str]] = ns["fair_order"]
    for k in range(40):
        pack = "pontoon48" if k % 2 else "standard52"
        decks = 1 + k % 8
        seed = deterministic_server_seed(99, k)
        client = f"client {k}:x"
        assert fair_order(pack, decks, seed, client, k) == [
            str(c) for c in shuffled_shoe(pack, decks, seed, client, k)
        ]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment(seed)


def test_deterministic_and_seed_sensitive() -> None:
    a = FairShuffler(test_seed=4)
    b = FairShuffler(test_seed=4)
    cards_a, com_a = a.new_shoe("pontoon48", 6)
    cards_b, com_b = b.new_shoe("pontoon48", 6)
    assert com_a["nonce"] == 1 and (cards_a, com_a) == (cards_b, com_b) and com_b["secret"] is False
    assert com_b["commitment"] == commitment(deterministic_server_seed(4, 1))
    base = shuffled_shoe("pontoon48", 6, deterministic_server_seed(4, 1), "test-4", 1)
    assert cards_b == base and sorted(c.code for c in base) == sorted(
        c.code for c in canonical_shoe("pontoon48", 6)
    )
    # every input changes the order
    assert shuffled_shoe("pontoon48", 6, deterministic_server_seed(4, 2), "test-4", 1) != base
    assert shuffled_shoe("pontoon48", 6, deterministic_server_seed(4, 1), "test-5", 1) != base
    assert shuffled_shoe("pontoon48", 6, deterministic_server_seed(4, 1), "test-4", 2) != base
    # a real shuffler: fresh secrets, a random client seed, the next commitment shown ahead
    real = FairShuffler()
    shown = real.next_commitment
    _, com = real.new_shoe("standard52", 1)
    assert com["commitment"] == shown and "secret" not in com and len(com["client_seed"]) == 32
    with pytest.raises(RuntimeError, match="retire"):
        real.new_shoe("standard52", 1)
    reveal = real.retire()
    assert reveal is not None and commitment(reveal["server_seed"]) == shown and real.retire() is None
    real.set_client_seed("my own seed")
    assert real.new_shoe("standard52", 1)[1]["client_seed"] == "my own seed"
    for bad in ("", "x" * 65, "caf\u00e9", "tab\there", 7):
        with pytest.raises(FairRecordError, match="printable ASCII"):
            check_client_seed(bad)


# ------------------------------------------------------------------------------------------
# the index is exactly unbiased
@pytest.mark.parametrize("bits", [8, 12])
def test_rejection_sampling_exhaustive_for_small_words(bits: int) -> None:
    span = 1 << bits
    for n in [*range(1, 301), 416]:
        if n > span:
            continue
        counts = [0] * n
        rejected = 0
        for w in range(span):
            try:
                counts[index_below(n, iter([w]), bits)] += 1
            except ValueError:  # the word was rejected and the one-word stream ended
                rejected += 1
        assert rejected == span % n
        assert counts == [span // n] * n, n


def test_rejection_boundary_for_32_bit_words_in_the_shuffle() -> None:
    top = 2**32 - 1
    for n in range(2, 420):
        limit = rejection_limit(n)
        assert limit % n == 0 and 0 <= 2**32 - limit < n
        # the first step of a shuffle of n cards draws an index in [0, n): rejected words are skipped
        rejected = list(range(limit, 2**32))[:3]
        stream = [*rejected, limit - 1] + [0] * n
        trace = Trace()
        fisher_yates(list(range(n)), iter(stream), trace)  # type: ignore[arg-type]
        assert trace.steps[0] == (n - 1, (limit - 1) % n)
        assert trace.words[: len(rejected) + 1] == stream[: len(rejected) + 1]
        assert (top >= limit) == (2**32 % n != 0)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_fisher_yates_maps_index_choices_onto_every_permutation_once(n: int) -> None:
    import itertools

    seen = set()
    for choice in itertools.product(*[range(i + 1) for i in range(n - 1, 0, -1)]):
        seen.add(tuple(fisher_yates(list(range(n)), iter(choice))))  # type: ignore[arg-type]
    assert len(seen) == math.factorial(n)


# ------------------------------------------------------------------------------------------
# chi-square of each card's position
def chi2_sf(x: float, df: float) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom (regularised upper gamma)."""
    a, z = df / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    front = math.exp(-z + a * math.log(z) - math.lgamma(a))
    if z < a + 1:  # the series for P, then Q = 1 - P
        term = total = 1.0 / a
        ap = a
        while term > total * 1e-16:
            ap += 1
            term *= z / ap
            total += term
        return max(0.0, 1.0 - total * front)
    tiny = 1e-300  # Lentz's continued fraction for Q
    b, c = z + 1 - a, 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return front * h


def test_chi2_sf_against_closed_forms() -> None:
    for x in (0.01, 0.5, 2.0, 7.0, 30.0, 80.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10)
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9)
    assert chi2_sf(2209.0, 2209) == pytest.approx(
        0.4943, abs=2e-3
    )  # just under a half (median below the mean)
    assert chi2_sf(2209 + 6 * math.sqrt(2 * 2209), 2209) < 1e-8


def position_counts(shoes: int, pack: str, decks: int, shuffle: Callable[[int], list[Card]]) -> np.ndarray:
    """counts[position, card] over ``shoes`` shoes; a card is its index in the pack (copies pooled)."""
    kinds = {c.code: i for i, c in enumerate(PACKS[pack])}
    size = len(PACKS[pack]) * decks
    counts = np.zeros((size, len(kinds)), dtype=np.int64)
    rows = np.arange(size)
    for s in range(shoes):
        counts[rows, [kinds[c.code] for c in shuffle(s)]] += 1  # one card per position: no repeated cells
    return counts


def position_p_values(counts: np.ndarray) -> tuple[float, float]:
    """(p of the whole position x card table, smallest p of one card's positions).

    Position p holds card i with probability 1/k in every shoe. One shoe is a 0/1 matrix with one card
    per position and ``decks`` of each card, whose covariance is size/(k (size - 1)) times the projection
    of rank (size - 1)(k - 1); so the table's statistic times (size - 1)/size is chi-square with
    (size - 1)(k - 1) degrees of freedom, and one card's, times (size - 1)/(size (1 - 1/k)), with size - 1.
    """
    size, k = counts.shape
    shoes = counts.sum() // size
    expect = shoes / k
    dev = (counts - expect) ** 2 / expect
    table_p = chi2_sf(float(dev.sum()) * (size - 1) / size, (size - 1) * (k - 1))
    scale = (size - 1) / (size * (1 - 1 / k))
    card_p = min(chi2_sf(float(dev[:, i].sum()) * scale, size - 1) for i in range(k))
    return table_p, card_p


def fair_shuffle(pack: str, decks: int, tag: int) -> Callable[[int], list[Card]]:
    return lambda s: shuffled_shoe(pack, decks, deterministic_server_seed(tag, s), f"chi-{tag}", s)


def test_chi_square_of_positions_small() -> None:
    counts = position_counts(6000, "pontoon48", 1, fair_shuffle("pontoon48", 1, 1))
    table_p, card_p = position_p_values(counts)
    assert table_p > 1e-6 and card_p > 1e-6, (table_p, card_p)


def test_chi_square_detects_the_classic_biased_shuffle() -> None:
    """The same test rejects the naive shuffle (swap each position with ANY position): it can fail."""
    rng = np.random.default_rng(5)

    def naive(_: int) -> list[Card]:
        a = list(PACKS["pontoon48"])
        for i in range(len(a)):
            j = int(rng.integers(len(a)))
            a[i], a[j] = a[j], a[i]
        return a

    table_p, card_p = position_p_values(position_counts(6000, "pontoon48", 1, naive))
    assert table_p < 1e-6 and card_p < 1e-6


@pytest.mark.slow
@pytest.mark.parametrize(("pack", "decks", "shoes"), [("pontoon48", 1, 200_000), ("standard52", 2, 50_000)])
def test_chi_square_of_positions_large(pack: str, decks: int, shoes: int) -> None:
    table_p, card_p = position_p_values(position_counts(shoes, pack, decks, fair_shuffle(pack, decks, 2)))
    assert table_p > 1e-6 and card_p > 1e-6, (table_p, card_p)


# ------------------------------------------------------------------------------------------
# tables: the commitment before the first card, the reveal at retirement, records that verify
def _pairs(records: list[TableRecord]) -> list[tuple[str, dict[str, Any]]]:
    return [(r.event.kind, dict(r.event.data)) for r in records]


def check_fair_stream(pairs: list[tuple[str, dict[str, Any]]], card_kind: str) -> list[dict[str, Any]]:
    """Every card comes after its shoe's commitment and before its reveal; each record verifies."""
    revealed = {d["server_seed"]: i for i, (k, d) in enumerate(pairs) if k == "shoe_retired"}
    for i, (_, data) in enumerate(pairs):  # no server seed is published before its shoe is retired
        assert not any(isinstance(v, str) and revealed.get(v, i) < i for v in data.values())
        assert not any(isinstance(v, str) and revealed.get(v, -1) > i for v in data.values())
    live: dict[str, Any] | None = None
    previous_next = None
    for kind, data in pairs:
        if kind == "new_shoe":
            assert live is None and data["scheme"] == SCHEME
            assert previous_next is None or data["commitment"] == previous_next  # shown a shoe ahead
            previous_next = data["next_commitment"]
            live = data
        elif kind == card_kind:
            assert live is not None, "a card dealt from a shoe without a published commitment"
        elif kind == "shoe_retired":
            assert live is not None and data["nonce"] == live["nonce"]
            assert commitment(data["server_seed"]) == live["commitment"]
            live = None
    assert live is None, "the table closed without revealing its last shoe"
    records = records_from_events(pairs)
    assert len(records) == len([k for k, _ in pairs if k == "new_shoe"])
    for rec in records:
        result = verify_record(rec)
        assert result.ok, result.difference
    return records


def play_casino(test_seed: int, rounds: int) -> tuple[CasinoTable, list[TableRecord]]:
    rules = find_rules("mbs")
    assert isinstance(rules, CasinoRules)
    table = CasinoTable(rules, rng=test_seed, fair=FairShuffler(test_seed=test_seed))
    records: list[TableRecord] = []
    table.subscribe(records.append)
    names = ["ann", "bob", "cat"]
    for n in names:
        table.join(n, 1_000_000)
    pick = np.random.default_rng(test_seed)
    for _ in range(rounds):
        rnd = table.new_round()
        for box, n in enumerate(names, start=1):
            table.place_bet(box, n, "main", rules.table_min)
        table.deal()
        while not rnd.is_over():
            who = rnd.to_act()
            assert isinstance(who, str)
            legal = rnd.legal_actions(who)
            a = legal[int(pick.integers(len(legal)))]
            table.act(who, a.with_amount(a.low) if a.low is not None else a)
        table.end_round()
    table.close()
    return table, records


def test_casino_table_commits_before_dealing_and_reveals_at_retirement() -> None:
    table, records = play_casino(3, 40)
    pairs = _pairs(records)
    assert pairs[0][0] == "join" and [k for k, _ in pairs].index("new_shoe") < [k for k, _ in pairs].index(
        "card"
    )
    recs = check_fair_stream(pairs, "card")
    assert len(recs) >= 3 and table.shoes_used == len(recs)  # the cut card came out at least twice
    retired = [d for k, d in pairs if k == "shoe_retired"]
    assert [r["dealt"] for r in retired] == [len(r["dealt"]) for r in recs]
    new = [d for k, d in pairs if k == "new_shoe"]
    assert all(d["cards"] == 288 and d["cut"] == 216 and d["secret"] is False for d in new)  # 6 x 48, 0.75
    assert all(r["dealt"] >= 216 for r in retired[:-1])  # replaced only once the cut card was out
    # the last shoe was retired by close(): no more rounds
    with pytest.raises(IllegalAction, match="closed"):
        table.new_round()
    # the same seeds reproduce the table exactly (kill tests rely on this)
    _, again = play_casino(3, 40)
    assert _pairs(again) == pairs
    # a tampered log is caught: the first wrong card is named
    rec = dict(recs[0])
    rec["dealt"] = list(rec["dealt"])
    rec["dealt"][7] = "AS" if rec["dealt"][7] != "AS" else "KC"
    bad = verify_record(rec)
    assert not bad.ok and bad.difference is not None and bad.difference.startswith("card 8 dealt was")


@pytest.mark.parametrize("through_table", [True, False])
def test_british_game_fair_pack_and_reshuffles_after_a_pontoon(through_table: bool) -> None:
    """Driven through ``game.act`` (published as it happens) or on the round itself (``bots.play_round``:
    published at ``end_round``): either way the draws come before the reveal and the next commitment."""
    fair = FairShuffler(test_seed=11)
    game = BritishGame(BRITISH, ["dan", "ann", "bob", "cat"], banker="dan", rng=11, fair=fair)
    records: list[TableRecord] = []
    game.subscribe(records.append)
    assert not records and fair.nonce == 0  # nothing is shuffled before the first round needs it
    bots = Bots()
    shuffles = 0
    for _ in range(40):
        if not through_table:
            shuffles += play_round(game, bots)["shuffled"]
            continue
        r = game.new_round()
        while not r.over:
            seat, verb, amt = bots.decide(r)
            game.act(seat, verb, amt)
        shuffles += game.end_round()["shuffled"]
    game.close()
    with pytest.raises(IllegalAction, match="closed"):
        game.new_round()
    pairs = _pairs(records)
    recs = check_fair_stream(pairs, "draw")
    assert shuffles >= 2 and len(recs) == shuffles + 1  # the first pack, one per Pontoon (003 The New Deal)
    new = [d for k, d in pairs if k == "new_shoe"]
    assert all(
        d["pack"] == "standard52" and d["decks"] == 1 and d["cards"] == 52 and d["cut"] is None for d in new
    )
    retired = [d for k, d in pairs if k == "shoe_retired"]
    assert [min(d["dealt"], 52) for d in retired] == [len(r["dealt"]) for r in recs]
    assert sorted(c.code for c in game.cards_accounted()) == sorted(c.code for c in PACKS["standard52"])


def test_tables_refuse_a_fair_shuffler_beside_a_given_shoe_and_close_only_between_rounds() -> None:
    from pontoon.british.pack import BritishPack
    from pontoon.shoe import Shoe

    rules = find_rules("mbs")
    assert isinstance(rules, CasinoRules)
    with pytest.raises(IllegalAction, match="fair"):
        CasinoTable(rules, shoe=Shoe.shuffled(6, 1), fair=FairShuffler())
    with pytest.raises(IllegalAction, match="fair"):
        BritishGame(BRITISH, ["a", "b"], banker="a", pack=BritishPack.shuffled(1, 1), fair=FairShuffler())
    table = CasinoTable(rules, rng=1, fair=FairShuffler(test_seed=1))
    table.join("ann", 100)
    table.new_round()
    with pytest.raises(IllegalAction, match="between rounds"):
        table.close()
    # a table without a fair shuffler keeps its seeded numpy shoe and logs no commitment
    plain = CasinoTable(rules, rng=5)
    assert [str(c) for c in plain.shoe.remaining_cards()] == [
        str(c) for c in Shoe.shuffled(6, 5).remaining_cards()
    ]
    assert "commitment" not in plain.log.events[0].data
    plain.close()
    assert [e.kind for e in plain.log.events] == ["new_shoe"]


def test_records_from_events_keeps_only_the_shuffled_part_of_a_british_pack() -> None:
    seed = deterministic_server_seed(1, 1)
    order = [str(c) for c in shuffled_shoe("standard52", 1, seed, "c", 1)]
    head = {
        "scheme": SCHEME,
        "commitment": commitment(seed),
        "client_seed": "c",
        "nonce": 1,
        "pack": "standard52",
        "decks": 1,
        "cards": 52,
    }
    events = [("new_shoe", head)] + [("draw", {"card": c}) for c in order + order[:5]]
    events.append(("shoe_retired", {"nonce": 1, "server_seed": seed, "dealt": 57}))
    [rec] = records_from_events(events)
    assert rec["dealt"] == order and verify_record(rec).ok


# ------------------------------------------------------------------------------------------
# verify: tampering, malformed records, the command line
def good_record(dealt: int = 20) -> dict[str, Any]:
    seed = deterministic_server_seed(8, 3)
    order = shuffled_shoe("pontoon48", 6, seed, "ann's seed", 3)
    return {
        "scheme": SCHEME,
        "server_seed": seed,
        "client_seed": "ann's seed",
        "nonce": 3,
        "commitment": commitment(seed),
        "pack": "pontoon48",
        "decks": 6,
        "dealt": [str(c) for c in order[:dealt]],
    }


def test_verify_finds_the_first_difference() -> None:
    ok = verify_record(good_record())
    assert ok.ok and len(ok.checked) == 4 and len(ok.order) == 288
    rec = good_record()
    rec["commitment"] = rec["commitment"][:-1] + ("0" if rec["commitment"][-1] != "0" else "1")
    res = verify_record(rec)
    assert (
        not res.ok
        and res.difference is not None
        and "is not SHA-256 of the revealed server seed" in res.difference
    )
    rec = good_record()
    rec["server_seed"] = deterministic_server_seed(8, 4)  # another seed: its hash is not the commitment
    assert "not SHA-256" in (verify_record(rec).difference or "")
    rec = good_record()
    rec["client_seed"] = "bob's seed"  # the same server seed with another client seed: another order
    assert (verify_record(rec).difference or "").startswith("card ")
    rec = good_record()
    rec["dealt"][0], rec["dealt"][1] = rec["dealt"][1], rec["dealt"][0]
    if rec["dealt"][0] != rec["dealt"][1]:
        assert (verify_record(rec).difference or "").startswith("card 1 dealt was")
    assert (
        verify_record({**good_record(), "shoe": 17}).ok
        and verify_record({**good_record(), "shoe": "t1-17"}).ok
    )
    with pytest.raises(FairRecordError, match="shoe must be"):
        parse_record({**good_record(), "shoe": [1]})
    rec = good_record(288)
    assert verify_record(rec).ok
    rec["dealt"].append("AS")
    with pytest.raises(FairRecordError, match="at most 288"):
        parse_record(rec)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str, float]:
    capsys.readouterr()
    t0 = time.perf_counter()
    code = run(list(args))
    seconds = time.perf_counter() - t0
    out, err = capsys.readouterr()
    return code, out, err, seconds


def test_cli_verified_mismatch_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "shoe.json"
    good.write_text(json.dumps(good_record()))
    code, out, err, _ = cli(capsys, "verify", str(good))
    assert code == 0 and out.strip().splitlines()[-1] == "verified" and "commitment" in out and not err
    rec = good_record()
    rec["dealt"][4] = "KS" if rec["dealt"][4] != "KS" else "QS"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    code, out, err, _ = cli(capsys, "verify", str(bad))
    assert (
        code == 1
        and out.strip().splitlines() == [out.strip()]
        and out.startswith("mismatch: card 5 dealt was")
    )
    # a number is a stored shoe id (tests/history/test_fair_store.py covers stored shoes): no database here
    code, out, err, _ = cli(capsys, "verify", "17", "--db", f"sqlite:///{tmp_path / 'none.sqlite'}")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no history database" in err
    code, out, err, _ = cli(capsys, "verify", str(tmp_path / "missing.json"))
    assert code == 2 and "is not a file" in err


def test_cli_stdin_huge_junk_and_deep_nesting_in_a_subprocess(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "pontoon.cli.app", "verify", "-"]
    env_path = {"PYTHONPATH": str(ROOT / "src")}
    import os

    env = {**os.environ, **env_path}
    cases = [
        (json.dumps(good_record()).encode(), 0),
        (np.random.default_rng(1).bytes(10 * 1024 * 1024), 2),  # 10 MB of junk
        (b"[" * 200_000, 2),
        (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, 2),
        (b'{"nonce": ' + b"9" * 100_000 + b"}", 2),
    ]
    for data, want in cases:
        p = subprocess.run(cmd, input=data, capture_output=True, timeout=60, env=env)
        assert p.returncode == want, p.stderr
        if want == 2:
            assert len(p.stderr.decode().strip().splitlines()) == 1 and p.stderr.startswith(b"error: "), (
                p.stderr
            )
            assert b"Traceback" not in p.stderr


def _valid(key: str, v: object) -> bool:
    try:
        parse_record({**good_record(), key: v})
    except FairRecordError:
        return False
    return True


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=80),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)


@st.composite
def hostile_records(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["bytes", "json", "field", "missing", "extra", "card"]))
    if kind == "bytes":
        return draw(st.binary(max_size=2000))
    if kind == "json":
        return json.dumps(draw(JSON)).encode()
    rec = good_record()
    if kind == "field":
        key = draw(st.sampled_from(RECORD_KEYS))
        value = draw(JSON | st.text(alphabet="0123456789abcdefABCDEF", min_size=60, max_size=70))
        if _valid(key, value):
            value = None
        rec[key] = value
    elif kind == "missing":
        del rec[draw(st.sampled_from(RECORD_KEYS))]
    elif kind == "extra":
        rec[draw(st.text(min_size=1, max_size=12).filter(lambda k: k not in rec and k != "shoe"))] = draw(
            JSON
        )
    else:
        rec["dealt"][draw(st.integers(0, 19))] = draw(st.text(max_size=4).filter(lambda t: not _card(t)))
    return json.dumps(rec).encode()


def _card(text: str) -> bool:
    try:
        Card.parse(text)
    except ValueError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=hostile_records())
def test_cli_hostile_records_one_line_exit_2(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "hostile.json"
    f.write_bytes(data)
    code, out, err, seconds = cli(capsys, "verify", str(f))
    assert code == 2, (data[:200], out, err)
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ") and not out
    assert seconds < TIME_LIMIT


def test_bench_fair_runs() -> None:
    """bench/bench_fair.py still runs (tiny size); it prints figures, not assertions about speed."""
    import os

    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_fair.py"), "20"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ratio fair/numpy" in out.stdout


@pytest.mark.parametrize("test_seed,client", [(None, None), (None, "my own seed"), (11, None)])
def test_shuffler_state_round_trips_through_json(test_seed: int | None, client: str | None) -> None:
    """The recovery snapshot's shuffler state (through JSON, as the store keeps it): the restored
    shuffler reveals the live seed and makes the same next shoes, commitments and reveals."""
    from pontoon.fair import FairShuffler

    a = FairShuffler(client, test_seed=test_seed)
    a.new_shoe("pontoon48", 2)
    for live in (True, False):
        b = FairShuffler.from_state(json.loads(json.dumps(a.state())))
        assert (
            b.next_commitment == a.next_commitment
            and b.client_seed == a.client_seed
            and b.live == a.live == live
        )
        assert b.retire() == a.retire()
        # the next shoe, with its next commitment, is the same; in secret mode the shoes after it
        # have fresh seeds (never shown before the snapshot), in test mode they are the same too
        for k in range(3 if test_seed is not None else 1):
            assert b.next_commitment == a.next_commitment, k
            assert b.new_shoe("standard52", 1) == a.new_shoe("standard52", 1)
            assert b.retire() == a.retire()
        a.new_shoe("pontoon48", 1)
        a.retire()  # the second pass: a state with no live shoe
    c = FairShuffler.from_state(json.loads(json.dumps(a.state())))
    c.set_client_seed("changed")
    assert c.new_shoe("pontoon48", 1)[1]["client_seed"] == "changed"


def test_shuffler_state_that_is_inconsistent_is_refused() -> None:
    from pontoon.fair import FairRecordError, FairShuffler

    st_ = FairShuffler(test_seed=1).state()
    with pytest.raises(FairRecordError):
        FairShuffler.from_state({**st_, "server_seed": "ab" * 32})  # a seed without a live shoe
    with pytest.raises(FairRecordError):
        FairShuffler.from_state({**st_, "scheme": "other"})
