"""A round in words (history/words.py): every event kind of every preset has words, no dict or repr
text ever shows, and no card a seat could not see is named (ruling 35), live or after settlement."""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.bots import Bots
from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.british.view import card_visible
from pontoon.casino.round import CasinoRound
from pontoon.casino.table import CasinoTable
from pontoon.history.words import card_text, event_words, fallback, round_words
from pontoon.protocol import SPECTATOR, Action
from pontoon.rules import find_rules, resolve_rules
from pontoon.shoe import Shoe
from tests.history.driver import BRITISH, CASINO, british_round, casino_round
from tests.test_engine_random import random_bets, random_variant

SRC = Path(__file__).resolve().parents[2] / "src" / "pontoon"
# what must never reach a player: Python's dict/list/repr text, key=value debugging, None
RAW = re.compile(r"[{}\[\]]|\w=|\bNone\b|Decimal\(|'\w+':|<\w+>")
SYMBOL = re.compile(r"(?:10|[A2-9JQK])[♠♥♦♣]")


def logged_kinds() -> dict[str, set[str]]:
    """Every event kind the engines and tables can log, read from their source."""
    pat = re.compile(r'(?:log\.add|_table_event)\(\s*"([a-z_]+)"')
    out: dict[str, set[str]] = {"casino": set(), "british": set()}
    for game in out:
        for f in (SRC / game).glob("*.py"):
            out[game] |= set(pat.findall(f.read_text()))
    return out


def test_every_logged_kind_has_words() -> None:
    kinds = logged_kinds()
    assert {"bet", "card", "double", "void", "join", "new_shoe"} <= kinds["casino"]
    assert {"buy", "twist", "settled", "burn", "bank_passes", "kitty"} <= kinds["british"]
    for game, ks in kinds.items():
        for k in sorted(ks):
            line = event_words(k, {}, game=game)
            if k in ("draw", "deal_second", "split_deal", "action", "round_over"):
                continue  # said by the event that follows (or, for the pack's order, never)
            assert line is not None and line != fallback(k), f"{game} {k} has no words"


def test_card_symbols() -> None:
    assert [card_text(c) for c in ("TS", "JC", "AH", "7D", "??")] == [
        "10♠",
        "J♣",
        "A♥",
        "7♦",
        "a face-down card",
    ]


def _records(preset: str, seed: int, rounds: int) -> list:
    rules = resolve_rules(preset)
    recs: list = []
    if preset in BRITISH:
        g = BritishGame(rules, ["ann", "bob", "cat"], banker="ann", rng=seed)
        g.subscribe(recs.append)
        bots = Bots()
        for _ in range(rounds):
            british_round(g, bots)
    else:
        t = CasinoTable(rules, rng=seed)
        t.subscribe(recs.append)
        t.join("ann", 1000)
        t.join("bob", 1000)
        for _ in range(rounds):
            casino_round(t, seed)
    return recs


@pytest.mark.parametrize("preset", CASINO + BRITISH)
def test_every_preset_in_words(preset: str) -> None:
    """Several seeds of scripted play per preset: every logged step renders as plain words."""
    game = "british" if preset in BRITISH else "casino"
    kinds: Counter[str] = Counter()
    for seed in range(6):
        recs = _records(preset, seed, 3)
        by_round: dict[int, list] = {}
        for r in recs:
            by_round.setdefault(r.round_no, []).append(r.event)
            kinds[r.event.kind] += 1
        for evs in by_round.values():
            for line in round_words(evs, None, game=game):
                assert line and not RAW.search(line), line
                assert not line.startswith("step: "), line
    expected = {"bet", "card", "action"} if game == "casino" else {"stake", "settled", "banker_turn"}
    assert expected <= set(kinds)


def test_casino_words_read_like_a_table() -> None:
    recs = _records("mbs", 4, 2)
    evs = [r.event for r in recs if r.round_no == 2]
    words = round_words(evs, None, game="casino", net={"ann": {"total": "-10"}, "bob": {"total": "40"}})
    assert "ann bets 10 on box 1" in words
    assert any(re.fullmatch(r"dealer shows " + SYMBOL.pattern, w) for w in words), words
    assert any(re.fullmatch(r"\w+ (hits|doubles \d+ on) box \d: " + SYMBOL.pattern, w) for w in words), words
    assert words[-1] == "result: ann loses 10, bob wins 40"


def test_british_settlement_in_words() -> None:
    """Was ``settled banker_outcome=17 exposed=True ... net=carol: {'stake': '1', 'total': '1'}``."""
    data = {
        "banker_outcome": "17",
        "exposed": True,
        "next_banker": "ann",
        "net": {"carol": {"stake": "1", "total": "1"}, "ann": {"stake": "-1", "total": "-1"}},
    }
    view = {"game": "british", "banker": "ann", "banker_outcome": "17", "hands": [], "banker_cards": []}
    line = event_words("settled", data, game="british", reader=None)
    assert line == "banker has 17: carol wins 1, ann loses 1"
    from pontoon.history.words import Reader

    assert event_words("settled", data, game="british", reader=Reader(view)) == (
        "banker has 17: carol wins 1, ann (banker) loses 1"
    )
    hidden = dict(view, banker_outcome="")  # the banker's hand was never turned up to this seat
    assert event_words("settled", data, game="british", reader=Reader(hidden)).startswith("settled: ")


# ---------------------------------------------------------------------------- random legal rounds
def _check(lines: list[str], hidden: Counter[str], shown: Counter[str] | None) -> None:
    text = "\n".join(lines)
    assert not RAW.search(text), text
    named = Counter(SYMBOL.findall(text))
    if shown is not None:  # a casino shoe holds duplicates: no card named more often than the view shows it
        assert named - shown == Counter(), f"named beyond the view {named - shown}:\n{text}"
        return
    for c in hidden:  # one British pack: every card is unique
        assert card_text(c) not in named, f"hidden {c} named:\n{text}"


def _casino_hidden(rnd: CasinoRound, view: dict) -> tuple[Counter[str], Counter[str]]:
    dealt = [str(c) for c in rnd.dealer]
    hidden = Counter(c for c, v in zip(dealt, view["dealer"], strict=False) if v == "??")
    shown = Counter(card_text(c) for c in view["dealer"] if c != "??")
    for b in view["boxes"]:
        for h in b["hands"]:
            shown.update(card_text(c) for c in h["cards"])
    return hidden, shown


@pytest.mark.parametrize("preset", CASINO)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_casino_rounds_never_name_a_hidden_card(data: st.DataObject, preset: str) -> None:
    rules = find_rules(preset)
    seed = data.draw(st.integers(0, 2**32 - 1))
    rnd = CasinoRound(rules, Shoe.shuffled(rules.decks, seed, pack=rules.pack), rng=seed)
    random_bets(data.draw, rnd)
    if not any(b.has_main for b in rnd.boxes.values()):
        rnd.place_bet(1, "ann", "main", rules.table_min)
    rnd.close_bets()
    while True:
        for who in ("ann", SPECTATOR):
            view = rnd.view(who)
            hidden, shown = _casino_hidden(rnd, view)
            words = round_words(rnd.events(), view, game="casino", net=view.get("net"))
            _check(words, hidden, shown)  # every symbol named is a card the view shows
        if rnd.is_over():
            break
        rnd.act(random_variant(data.draw, data.draw(st.sampled_from(rnd.legal_actions())), rnd))


def _british_hidden(rnd: BritishRound, seat: object) -> Counter[str]:
    view = rnd.view(seat)  # type: ignore[arg-type]
    hidden: Counter[str] = Counter()
    for h in rnd.hands:
        for i, c in enumerate(h.cards):
            if not card_visible(rnd, seat, h, i):  # type: ignore[arg-type]
                hidden[str(c)] += 1
    if "??" in view["banker_cards"]:
        hidden.update(str(c) for c in rnd.banker_cards)
    return hidden


@pytest.mark.parametrize("preset", BRITISH)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), players=st.integers(1, 3))
def test_random_british_rounds_never_name_a_hidden_card(
    data: st.DataObject, preset: str, players: int
) -> None:
    rules = resolve_rules(preset)
    seed = data.draw(st.integers(0, 2**32 - 1))
    seats = ["bob", "cat", "dan"][:players]
    kitty = Decimal(100) if rules.shoot else Decimal(0)
    rnd = BritishRound(rules, seats, "ann", BritishPack.shuffled(1, seed), kitty=kitty)
    steps = 0
    while True:
        for who in (*seats, "ann", SPECTATOR):
            words = round_words(rnd.events(), rnd.view(who), game="british")
            _check(words, _british_hidden(rnd, who), None)
        if rnd.is_over():
            break
        steps += 1
        assert steps < 100
        seat = rnd.to_act()
        a = data.draw(st.sampled_from(rnd.legal_actions(seat)))
        amount = None
        if a.low is not None:
            amount = data.draw(st.sampled_from(sorted({a.low, a.high if a.high is not None else a.low})))
        rnd.act(seat, Action(a.verb, amount=amount))


def test_history_words_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pontoon.cli.app import run
    from pontoon.history import open_store
    from tests.history.driver import new_table, play

    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    s = open_store(url)
    for preset, seed in (("mbs", 4), ("british", 3)):
        t, rec = new_table(s, preset, seed)
        play(t, seed, 2)
        rec.close()
    s.close()
    assert run(["history", "1", "--words", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "ann bets 10 on box 1" in out and re.search("dealer shows " + SYMBOL.pattern, out), out
    assert not RAW.search(out.split("\n", 1)[1]), out
    assert run(["history", "3", "--words", "--as", "bob", "--db", url, "--json"]) == 0
    got = __import__("json").loads(capsys.readouterr().out)
    assert got["seat"] == "bob" and got["words"][0].startswith("new deal: ann holds the bank")
    assert run(["history", "3", "--words", "--as", "nobody", "--db", url]) == 2
    assert "not a seat of round 3" in capsys.readouterr().err
    assert run(["history", "--words", "--db", url]) == 2
    assert "give ROUND" in capsys.readouterr().err
