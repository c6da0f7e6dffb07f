"""Rulings 33 (bank cover): with small bank balances, random legal play never takes a balance below 0.

Each seat brings a stack (``BritishGame(stacks=...)``); before a stake, a buy, a split or a shoot bet is
accepted the bank's worst case (every live stake paid at the highest multiple the rules pay) and the
player's own (every stake lost at the highest multiple the banker collects) must fit in what each holds.
Checked after every step of random legal play over random variations: no holding below 0, money
conserved, and an amount one cent over what the listing offers is refused naming the cover.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.table import BritishGame
from pontoon.errors import IllegalAction
from pontoon.money import CENT
from pontoon.rules.british import BRITISH, SHOOT
from pontoon.settlement import KITTY

ZERO = Decimal(0)

VARIATIONS = st.fixed_dictionaries(
    {
        "banker_may_double": st.booleans(),
        "pontoon_pays": st.sampled_from([1, 2, 3]),
        "banker_pontoon_collects": st.sampled_from([1, 2, 3]),
        "five_card_trick_pays": st.sampled_from([1, 2, 3]),
        "royal_pontoon": st.booleans(),
        "max_split_hands": st.integers(1, 4),
    }
)
STACK = st.integers(0, 4000).map(lambda c: Decimal(c) / 100)  # 0.00 to 40.00


def _holdings(g: BritishGame) -> dict[str, Decimal]:
    held = g.holdings()
    assert held is not None
    if g.round is not None:
        for s in held:
            held[s] += g.round.ledger.balances[s]
    return held


def _check(g: BritishGame, total: Decimal) -> None:
    held = _holdings(g)
    assert all(v >= 0 for v in held.values()), held  # rul 33: no balance below 0
    on_layout, kitty = g.kitty * 0, g.kitty
    if g.round is not None:
        on_layout = g.round.ledger.on_layout()
        kitty += g.round.ledger.balances[KITTY]
    assert sum(held.values(), ZERO) + kitty + on_layout == total  # money conserved


def _amount(data: Any, low: Decimal, high: Decimal) -> Decimal:
    cents = data.draw(st.integers(int(low / CENT), int(high / CENT)))
    return Decimal(cents) * CENT


def _play(data: Any, g: BritishGame, total: Decimal, rounds: int) -> int:
    refused = 0
    for _ in range(rounds):
        if g.needs_kitty:
            held = _holdings(g)[g.banker]
            r = g.rules
            if held < r.kitty_min:
                return refused  # the banker cannot put up a kitty: the game stops here
            g.put_kitty(_amount(data, r.kitty_min, min(r.kitty_max, held)))
            _check(g, total)
        rnd = g.new_round()
        _check(g, total)
        for _step in range(200):
            if rnd.is_over():
                break
            who = rnd.to_act()
            assert who is not None
            legal = rnd.legal_actions(who)
            a = data.draw(st.sampled_from(legal))
            if a.low is not None and a.high is not None:
                if a.verb in rnd._cover_notes and data.draw(st.booleans()):
                    over = a.high + CENT  # one cent more than the cover: refused, the round unchanged
                    n = len(rnd.log)
                    with pytest.raises(IllegalAction, match="covers only"):
                        g.act(who, a.verb, over)
                    assert len(rnd.log) == n
                    refused += 1
                g.act(who, a.verb, _amount(data, a.low, a.high))
            else:
                g.act(who, a.verb)
            _check(g, total)
        assert rnd.is_over()
        g.end_round()
        _check(g, total)
    return refused


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shoot=st.booleans(),
    variations=VARIATIONS,
    stacks=st.lists(STACK, min_size=2, max_size=5),
    seed=st.integers(0, 2**31),
    data=st.data(),
)
def test_random_play_with_small_banks_never_goes_below_zero(
    shoot: bool, variations: dict[str, Any], stacks: list[Decimal], seed: int, data: Any
) -> None:
    base = SHOOT if shoot else BRITISH
    rules = base.model_copy(
        update={k: Decimal(v) if "pays" in k or "collects" in k else v for k, v in variations.items()}
    )
    seats = [f"s{i}" for i in range(len(stacks))]
    g = BritishGame(rules, seats, rng=seed, stacks=dict(zip(seats, stacks, strict=True)))
    total = sum(stacks, ZERO)
    _check(g, total)
    _play(data, g, total, rounds=6)


def test_a_bank_of_1_refuses_a_stake_of_100_naming_the_cover() -> None:
    """The issue's case: a banker who bought in for 1 faced stakes of 100 and ended at -100."""
    g = BritishGame(
        BRITISH, ["bank", "ann"], banker="bank", rng=3, stacks={"bank": Decimal(1), "ann": Decimal(500)}
    )
    rnd = g.new_round()
    assert [a.verb for a in rnd.legal_actions("ann")] == ["pass"]  # no stake is covered: she sits out
    with pytest.raises(IllegalAction, match=r"the bank \(bank\) covers only 0\.50? more \(rulings 33"):
        g.act("ann", "stake", Decimal(100))
    g.act("ann", "pass")
    while not rnd.is_over():
        who = rnd.to_act()
        assert who is not None
        g.act(who, rnd.legal_actions(who)[-1].verb)
    g.end_round()
    assert g.holdings() == {"bank": Decimal(1), "ann": Decimal(500)}


def test_stakes_are_offered_within_the_cover() -> None:
    """A bank of 30 covers 15 of stakes at double: the first player is offered 1 to 15, and after
    his 10 the next is offered 1 to 5."""
    g = BritishGame(
        BRITISH,
        ["bank", "ann", "bob"],
        banker="bank",
        rng=4,
        stacks={"bank": Decimal(30), "ann": Decimal(500), "bob": Decimal(500)},
    )
    rnd = g.new_round()
    (a,) = rnd.legal_actions("ann")
    assert (a.verb, a.low, a.high) == ("stake", Decimal(1), Decimal(15))
    g.act("ann", "stake", Decimal(10))
    (b,) = rnd.legal_actions("bob")
    assert (b.verb, b.high) == ("stake", Decimal(5))
    with pytest.raises(IllegalAction, match="covers only 5"):
        g.act("bob", "stake", Decimal(6))


def test_terminal_play_refuses_a_stake_the_bank_cannot_cover() -> None:
    """``pontoon play --rules british --balance 3``: each seat brings 3; the bank covers 1.5 of stakes."""
    import os
    import re
    import subprocess
    import sys

    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "pontoon.cli.app",
            "play",
            "--rules",
            "british",
            "--balance",
            "3",
            "--seed",
            "4",
        ]
        + ["--rounds", "2", "--no-history"],
        input="stake 100\n" + "\n" * 60,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert p.returncode == 0, p.stderr
    assert "you stake 100 refused: the bank (ann) covers only 1.5 more (rulings 33: bank cover)" in p.stdout
    held = [Decimal(x) for x in re.findall(r"\(holds (-?[\d.]+)\)", p.stdout)]
    assert len(held) == 4 and all(h >= 0 for h in held) and sum(held) == 12
