"""The engine's shortcuts give exactly what the long way gives (issue 27's engine speed work).

- a round's ``net()`` without a kitty is read from the seats' running balances: it equals, amount for
  amount and digit for digit (``repr``: the same Decimal exponent), the sum of the round's transfers;
- the table adds a round's balances account by account: its balances equal the transfers applied one
  after another from the table's opening;
- a Pontoon's reshuffle shuffles the cards themselves: the same order as ``permutation`` of their indices
  with the same generator, and the generator left in the same state.

Random legal play with amounts in cents (2.50 and the like), several rule variations, with and without
stacks (bank cover cuts amounts, players sit out).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.events import TableRecord
from pontoon.money import fmt
from pontoon.rules.british import BRITISH, SHOOT
from pontoon.settlement import KITTY, System

CENTS = [Decimal("0.50"), Decimal("1.25"), Decimal("2.50"), Decimal("3"), Decimal("7.75")]


def net_by_transfers(rnd: BritishRound) -> dict[str, dict[str, Decimal]]:
    """The round's net worked out the long way: every transfer, one after another (the kitty is the
    banker's money; the table's own accounts are nobody's)."""
    zero = Decimal(0)
    kinds = ("stake", "shoot") if rnd.rules.shoot else ("stake",)
    out: dict[str, dict[str, Decimal]] = {s: dict.fromkeys(kinds, zero) for s in (*rnd.players, rnd.banker)}
    for t in rnd.ledger.transfers:
        for account, sign in ((t.source, -1), (t.dest, 1)):
            who = rnd.banker if account is KITTY else None if isinstance(account, System) else account
            if who is not None:
                d = out.setdefault(who, dict.fromkeys(kinds, zero))
                d[t.kind] = d.get(t.kind, zero) + sign * t.amount
    for d in out.values():
        d["total"] = sum((v for k, v in d.items() if k != "total"), zero)
    return out


def play(game: BritishGame, rounds: int, pick: np.random.Generator, check: Any) -> None:
    for _ in range(rounds):
        if game.needs_kitty:
            held = game.holdings()
            if held is not None and held[game.banker] < game.rules.kitty_min:
                return
            game.put_kitty(game.rules.kitty_min)
        rnd = game.new_round()
        while not rnd.is_over():
            who = rnd.to_act()
            assert isinstance(who, str)
            legal = rnd.legal_actions(who)
            a = legal[int(pick.integers(len(legal)))]
            if a.low is not None and a.high is not None:
                fits = [c for c in CENTS if a.low <= c <= a.high]
                a = a.with_amount(fits[int(pick.integers(len(fits)))] if fits else a.low)
            game.act(who, a)
        check(rnd)
        game.end_round()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    shoot=st.booleans(),
    stacks=st.booleans(),
    seats=st.integers(2, 5),
    double=st.booleans(),
    burn=st.sampled_from(["none", "hard13"]),
)
def test_nets_and_balances_equal_the_transfers(
    seed: int, shoot: bool, stacks: bool, seats: int, double: bool, burn: str
) -> None:
    rules = (SHOOT if shoot else BRITISH).with_(
        stake_min=Decimal("0.50"), banker_may_double=double, burn=burn, kitty_min=Decimal("12.50")
    )
    names = ["ann", "bob", "cat", "dan", "eve"][:seats]
    funds = {s: Decimal("40.25") for s in names} if stacks else None
    game = BritishGame(rules, names, banker=names[-1], rng=seed, stacks=funds)
    applied: dict[Any, Decimal] = {}

    def record(rec: TableRecord) -> None:  # the table's balances the long way: transfer after transfer
        for t in rec.transfers:
            applied[t.source] = applied.get(t.source, Decimal(0)) - t.amount
            applied[t.dest] = applied.get(t.dest, Decimal(0)) + t.amount

    game.subscribe(record)

    def check(rnd: BritishRound) -> None:
        assert repr(rnd.net()) == repr(net_by_transfers(rnd))
        long_way = net_by_transfers(rnd)
        assert rnd.net_json() == {s: {k: fmt(v) for k, v in d.items()} for s, d in long_way.items()}

    play(game, 40, np.random.default_rng(seed), check)
    for account in {*applied, *names}:
        if account in names or account is KITTY:
            assert repr(game.ledger.balances[account]) == repr(applied.get(account, Decimal(0))), account


@pytest.mark.parametrize("packs", [1, 2])
@pytest.mark.parametrize("seed", [0, 7, 2026])
def test_reshuffle_is_the_permutation_of_the_cards(packs: int, seed: int) -> None:
    pack = BritishPack.shuffled(packs, np.random.default_rng(seed))
    rng, twin = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    for n in range(30):
        used = [pack.draw() for _ in range(n % 9)]
        everything = pack.cards() + used
        want = [everything[i] for i in twin.permutation(len(everything)).tolist()]
        pack.reshuffle(used, rng)
        assert pack.cards() == want
        assert pack.drawn == 0
        assert rng.bit_generator.state == twin.bit_generator.state


def test_reshuffle_of_a_reduced_pack() -> None:
    rules = BRITISH.with_(pack_ranks="A27T", pack_suits=2)
    pack = BritishPack.shuffled(2, np.random.default_rng(3), one_pack(rules))
    rng, twin = np.random.default_rng(4), np.random.default_rng(4)
    everything = pack.cards()
    pack.reshuffle([], rng)
    assert pack.cards() == [everything[i] for i in twin.permutation(len(everything)).tolist()]
