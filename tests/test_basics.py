"""Cards, shoe, hands and the rules model (presets, aliases, TOML tables, clear errors)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pontoon.cards import PACKS, RANKS, SUITS, Card, parse_cards
from pontoon.errors import CardError, RulesError, ShoeExhausted
from pontoon.hands import hand_total, is_natural, three_card_class
from pontoon.rules import apply_overrides, find_rules, load_rules_file, parse_set_options, resolve_rules
from pontoon.shoe import Shoe


@given(st.sampled_from(RANKS), st.sampled_from(SUITS))
def test_card_round_trip(rank: str, suit: str) -> None:
    c = Card(rank, suit)
    assert Card.parse(str(c)) == c
    assert Card.parse(str(c).lower()) == c
    assert Card.from_code(c.code) == c


@pytest.mark.parametrize("bad", ["", "1S", "AX", "10S", "A", "7SS"])
def test_bad_card_names_what_is_accepted(bad: str) -> None:
    with pytest.raises(CardError, match="rank"):
        Card.parse(bad)


def test_packs() -> None:
    assert len(PACKS["pontoon48"]) == 48  # 000 2.1: the four tens removed
    assert not any(c.rank == "T" for c in PACKS["pontoon48"])
    assert len(set(PACKS["standard52"])) == 52


def test_shoe_is_reproducible_and_counts() -> None:
    a = Shoe.shuffled(6, 42)
    b = Shoe.shuffled(6, 42)
    assert str(a) == str(b) and len(a) == 288
    assert a.remaining_counts()["A"] == 24 and "T" not in a.remaining_counts()
    assert a.cut_index == 216
    for _ in range(216):
        a.draw()
    assert a.needs_shuffle


def test_stacked_shoe_runs_out() -> None:
    s = Shoe.stacked_from("AS 7H")
    assert [str(s.draw()), str(s.draw())] == ["AS", "7H"]
    with pytest.raises(ShoeExhausted):
        s.draw()


def test_hand_totals() -> None:
    assert hand_total(parse_cards("AS 6H")) == (17, True)
    assert hand_total(parse_cards("AS 6H KD")) == (17, False)
    assert hand_total(parse_cards("AS AH 9D")) == (21, True)
    # 004 3.25.2: the Ace in the first two cards of a doubled hand counts 1 (A-5 then 4 is 10)
    assert hand_total(parse_cards("AS 5H 4D"), aces_fixed_one=2) == (10, False)
    # ... but an Ace drawn as the double card may count 11
    assert hand_total(parse_cards("5S 4H AD"), aces_fixed_one=2) == (20, True)
    assert is_natural(parse_cards("AS KD")) and not is_natural(parse_cards("AS 9D"))


def test_three_card_classes() -> None:
    assert three_card_class(parse_cards("6S 7S 8S")) == ("678", "spades")
    assert three_card_class(parse_cards("7H 7H 7H")) == ("777", "suited")
    assert three_card_class(parse_cards("6H 8D 7H")) == ("678", "mixed")
    assert three_card_class(parse_cards("7H 7D 7S 7C")) is None


@pytest.mark.parametrize(
    ("alias", "preset"),
    [
        ("mbs", "mbs"),
        ("Marina", "mbs"),
        ("fed", "federal"),
        ("plus", "rws-plus"),
        ("pan", "rws-pandemonium"),
        ("bj", "blackjack"),
    ],
)
def test_find_rules_by_alias(alias: str, preset: str) -> None:
    assert find_rules(alias).preset == preset


def test_unknown_preset_lists_presets() -> None:
    with pytest.raises(RulesError, match="accepted presets are mbs"):
        find_rules("baccarat")


def test_preset_facts() -> None:
    fed = find_rules("federal")
    assert fed.max_split_hands == 3 and fed.double_on == "any" and fed.forced_draw_below == 12
    assert fed.super_bonus_amount(Decimal(24)) == 1000 and fed.super_bonus_amount(Decimal(25)) == 5000
    mbs = find_rules("mbs")
    assert mbs.super_bonus_amount(Decimal(9)) == 0 and mbs.super_bonus_amount(Decimal(99)) == 1000
    assert mbs.decks == 6 and mbs.side_bets == ("pair",)
    assert find_rules("rws-plus").side_bets == ("pair", "bonus")
    assert find_rules("rws-pandemonium").side_bets == ("pair", "pandemonium")


def test_overrides_are_validated_with_one_line_messages() -> None:
    mbs = find_rules("mbs")
    assert apply_overrides(mbs, {"decks": 8}).decks == 8
    with pytest.raises(RulesError, match=r"decks=9 is not allowed"):
        apply_overrides(mbs, {"decks": 9})
    with pytest.raises(RulesError, match=r"decks=3 is out of range"):
        apply_overrides(mbs, {"decks": 3})
    with pytest.raises(RulesError, match="unknown rule field 'colour'"):
        apply_overrides(mbs, {"colour": "red"})
    with pytest.raises(RulesError, match="table_min=20000 is above table_max"):
        apply_overrides(mbs, {"table_min": 20000})


def test_set_options_and_blackjack_names() -> None:
    opts = parse_set_options(["decks=2", "hits_soft_17=true", "dealer_peeks=false"])
    bj = resolve_rules("blackjack", opts)
    assert bj.decks == 2 and bj.dealer_hits_soft_17 and not bj.dealer_hole_card
    with pytest.raises(RulesError, match="NAME=VALUE"):
        parse_set_options(["decks"])


def test_toml_table(tmp_path) -> None:  # noqa: ANN001
    f = tmp_path / "my-table.toml"
    f.write_text('preset = "plus"\ndecks = 8\ntable_min = 25\ntable_max = 5000\n')
    r = load_rules_file(f)
    assert (r.preset, r.decks, r.table_min, r.table_max) == ("rws-plus", 8, Decimal(25), Decimal(5000))
    assert resolve_rules(str(f)).decks == 8
    f.write_text('preset = "plus"\ndeck = 8\n')
    with pytest.raises(RulesError, match="my-table.toml: unknown rule field 'deck'"):
        load_rules_file(f)
    f.write_text("decks = 8\n")
    with pytest.raises(RulesError, match="missing 'preset"):
        load_rules_file(f)
    f.write_text("decks = = 8\n")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules_file(f)
