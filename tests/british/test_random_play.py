"""Random legal play with random variations, checking invariants after every step.

- money conserved: seats + kitty + layout always sum to 0, and the layout holds exactly the
  stakes and shoot bets of hands still in play;
- every card accounted for: the pack plus the cards on the table is the full pack;
- views: no seat's view shows a card that seat may not see (checked against the public events:
  twisted, split, burned, busted, declared Ace, banker's cards once turned up, exposure);
- illegal actions are refused and leave the state unchanged.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import ROUND_DOWN, Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.cards import PACKS
from pontoon.errors import IllegalAction
from pontoon.rules.british import BRITISH, SHOOT
from pontoon.settlement import LAYOUT

VARIATIONS = st.fixed_dictionaries(
    {
        "stick_minimum": st.sampled_from([15, 16]),
        "split_only_aces": st.booleans(),
        "banker_may_double": st.booleans(),
        "pontoon_pays": st.sampled_from([1, 2, 3]),
        "banker_pontoon_collects": st.sampled_from([1, 2, 3]),
        "no_buy_fifth_at_11_or_less": st.booleans(),
        "royal_pontoon": st.booleans(),
        "natural_beats_plain": st.booleans(),
        "burn": st.sampled_from(["none", "hard13", "hard14"]),
        "max_split_hands": st.integers(1, 4),
        "pontoon_kind": st.sampled_from(["plain", "ace_ten_not_pontoon", "ace_picture_beats_ace_ten"]),
    }
)
CARD_RE = re.compile(r'"([A2-9TJQK][SHDC])"')


def snapshot(r: BritishRound) -> Any:
    return (
        r.phase,
        r.to_act(),
        len(r.ledger.transfers),
        len(r.pack),
        r.cur,
        r.pending_split,
        [
            (h.owner, list(h.cards), list(h.up), h.stake, h.shoot, h.status, h.twisted, h.last_buy)
            for h in r.hands
        ],
        list(r.banker_cards),
        len(r.log),
        dict(r.ledger.balances),
        r.mult,
    )


def public_cards(r: BritishRound, start: int) -> set[str]:
    """Card strings made public by the events of this round (003 face-up cards)."""
    out: set[str] = set()
    exposed = False
    for ev in r.log.events[start:]:
        d = ev.data
        if ev.kind in ("twist", "banker_twist"):
            out.add(d["card"])
        elif ev.kind in ("split", "bust", "banker_pontoon", "banker_turn"):
            out.update(d["cards"])
        elif ev.kind == "burn":
            out.update(d["burned"])
        elif ev.kind == "pontoon":
            out.add(d["ace"])
        elif ev.kind == "settled" and d["exposed"]:
            exposed = True
    if exposed:
        for h in r.hands:
            out.update(str(c) for c in h.cards)
    return out


def check_views(r: BritishRound, start: int) -> None:
    public = public_cards(r, start)
    for seat in [*r.players, r.banker]:
        view = r.view(seat)
        own = {str(c) for h in r.hands if h.owner == seat for c in h.cards}
        if seat == r.banker and (r.banker_looked or r.banker_up):
            own |= {str(c) for c in r.banker_cards}
        private = {str(c) for h in r.hands if h.owner != seat for c in h.cards}
        private |= {str(c) for c in r.banker_cards}
        private -= public | own
        shown = set(CARD_RE.findall(json.dumps(view)))
        leaked = shown & private
        assert not leaked, f"{seat} sees {leaked} in {view}"
        assert "pack" not in view
        # the seat's own cards are all shown to it
        for hv, h in zip(view["hands"], r.hands, strict=True):
            if h.owner == seat:
                assert hv["cards"] == [str(c) for c in h.cards]
            assert len(hv["cards"]) == len(h.cards)


def check_money(game: BritishGame, r: BritishRound) -> None:
    assert game.total_money() == 0
    assert r.ledger.total() == 0
    on_layout = sum((h.stake for h in r.hands if h.live and not h.result), Decimal(0))
    on_layout += r.shoot_outstanding()
    if r.over:
        on_layout = Decimal(0)
    assert r.ledger.balances[LAYOUT] == on_layout
    if game.rules.shoot:
        assert r.kitty() >= r.shoot_outstanding() >= 0


def check_cards(game: BritishGame, people: int) -> None:
    full = Counter(PACKS["standard52"] * game.rules.packs_for(people))
    assert Counter(game.cards_accounted()) == full


ILLEGAL_TRIES = [
    ("stake", "1000"),
    ("stake", "0"),
    ("buy", "0"),
    ("twist", None),
    ("stick", None),
    ("split", None),
    ("burn", None),
    ("shoot", "100000"),
    ("double", None),
    ("pass", None),
    ("bogus", None),
    ("buy", None),
    ("shoot", "1"),
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variations=VARIATIONS,
    shoot=st.booleans(),
    n_players=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_random_legal_play(
    variations: dict[str, Any], shoot: bool, n_players: int, seed: int, data: st.DataObject
) -> None:
    variations = dict(variations)
    kind = variations.pop("pontoon_kind")
    if kind != "plain":
        variations[kind] = True
    rules = (SHOOT if shoot else BRITISH).with_(**variations)
    seats = [f"s{i}" for i in range(n_players + 1)]
    game = BritishGame(rules, seats, rng=seed)
    for _ in range(data.draw(st.integers(1, 3), label="rounds")):
        # between rounds: sometimes the bank is sold (003), or the kitty topped up (003 Shoot)
        between = data.draw(st.sampled_from(["none", "none", "sell", "top_up"]), label="between")
        if between == "sell":
            buyer = data.draw(st.sampled_from([s for s in seats if s != game.banker]), label="buyer")
            old, kitty = game.banker, game.kitty
            before = game.balance(old)
            game.sell_bank(buyer, "3.5")
            assert game.banker == buyer and game.kitty == 0
            assert game.balance(old) == before + Decimal("3.5") + kitty
        elif between == "top_up" and game.rules.shoot and game.kitty > 0:
            k = game.kitty
            game.top_up_kitty(2)
            assert game.kitty == k + 2
        assert game.total_money() == 0
        if game.needs_kitty:
            game.put_kitty(data.draw(st.sampled_from(["1", "7.5", "100"]), label="kitty"))
        start = 0  # each round has its own log
        r = game.new_round()
        check_cards(game, len(seats))
        steps = 0
        while not r.over:
            steps += 1
            assert steps < 300
            who = r.to_act()
            legal = r.legal_actions()
            assert who is not None and legal and all(r.legal_actions(s) == [] for s in seats if s != who)
            # an illegal try: refused, nothing changes
            verb, amt = data.draw(st.sampled_from(ILLEGAL_TRIES), label="illegal")
            seat = data.draw(st.sampled_from(seats), label="seat")
            if not r.can(seat, verb, amt):
                before = snapshot(r)
                try:
                    r.act(seat, verb, amt)
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"{seat} {verb} {amt} was accepted although can() said no")
                assert snapshot(r) == before
            a = data.draw(st.sampled_from(legal), label="action")
            amount = None
            if a.low is not None:
                assert a.high is not None
                pick = data.draw(st.sampled_from(["low", "high", "mid"]), label="amount")
                amount = (
                    a.low
                    if pick == "low"
                    else a.high
                    if pick == "high"
                    else ((a.low + a.high) / 2).quantize(Decimal("0.01"), ROUND_DOWN)
                )
            assert r.can(who, a.verb, amount)
            evs = r.act(who, a.verb, amount)
            assert evs and evs[0].kind == "action"
            check_money(game, r)
            check_cards(game, len(seats))
            check_views(r, start)
        assert r.to_act() is None and r.legal_actions() == []
        net = r.net()
        assert sum(d["total"] for d in net.values()) == 0
        summary = game.end_round()
        assert game.total_money() == 0
        check_cards(game, len(seats))
        # 003 The New Deal: the bank passes only on an unsplit Pontoon when the banker had none
        if summary["next_banker"] != summary["banker"]:
            assert not r.banker_pontoon
            p = summary["next_banker"]
            assert any(h.owner == p and h.status == "pontoon" and not h.split for h in r.hands)
            first = next(x for x in r.players if any(h.owner == x and h.status == "pontoon" for h in r.hands))
            assert first == p
        if r.phase == "settled" and not r.had_pontoon:
            assert summary["shuffled"] is False
