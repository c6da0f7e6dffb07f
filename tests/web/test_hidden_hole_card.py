"""Ruling 35 in its indistinguishability form at a casino table with a face-down hole card (Blackjack,
rul 4): two rounds that differ only in the hole card give every seat, a standing bettor and a spectator
the same frames, byte for byte, until the dealer turns it over.

Two hosts play the same seeded table; when a round is dealt, the second host's hole card is exchanged
with a card still in the shoe, everywhere the server holds it (the dealer's hand, the shoe, the round's
log). Random legal play (hypothesis) then drives both alike, side bets included where the rules offer
them. While the hole card is face down in both, these must be the same: each view kind's state frame
as the socket sends it (web/frames.py: the shoe's cards left, the history in words), the lobby's row,
a refused message's error, and, for the seat to act, its hint inputs. Where the dealer's peek (a public
step) parts the two worlds, the comparison stops."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.errors import PontoonError
from pontoon.rules import find_rules
from pontoon.web.casino_host import CasinoHost
from pontoon.web.frames import Change, dumps
from pontoon.web.hosting import Settings
from pontoon.web.models import Envelope
from pontoon.web.persistence import MemoryPersistence

KINDS: tuple[str | None, ...] = ("ann", "bob", "cy", None)  # cy bets behind ann's box; None: a spectator


def _msg(data: dict[str, Any]) -> Any:
    return Envelope.model_validate({"msg": data}).msg


def _host(seed: int) -> CasinoHost:
    h = CasinoHost(
        "t1",
        "t",
        find_rules("blackjack"),
        seed,
        Settings(),
        MemoryPersistence(),
        lambda n, a: None,
        seeded=True,
    )
    h.join("ann", 1, None, Decimal(1000))
    h.join("bob", 2, None, Decimal(1000))
    h.join("cy", None, 1, Decimal(500))
    for n in ("ann", "bob", "cy"):
        h.connected(n)
    return h


def _hole_hidden(h: CasinoHost) -> bool:
    rnd = h.table.round
    return rnd is not None and h.table.in_round and "??" in rnd.view("ann").get("dealer", [])


def _swap(h: CasinoHost, y_from_end: int) -> tuple[str, str]:
    rnd = h.table.round
    assert rnd is not None
    shoe = rnd.shoe
    x = rnd.dealer[1]
    rest = [i for i in range(shoe._pos, len(shoe._cards)) if shoe._cards[i] != x]
    i = rest[-1 - y_from_end % len(rest)]
    y = shoe._cards[i]
    rnd.dealer[1], shoe._cards[i] = y, x
    n = 0
    for e in rnd.log.events:
        if e.kind == "card" and e.data.get("to") == "dealer":
            n += 1
            if n == 2:
                e.data["card"] = str(y)
    return str(x), str(y)


def _public(h: CasinoHost) -> list[tuple[Any, ...]]:
    rnd = h.table.round
    evs = [] if rnd is None else list(rnd.log.events)
    return [(e.kind, e.data.get("box"), e.data.get("seat")) for e in evs]


def _frame(h: CasinoHost, kind: str | None) -> str:
    v = dict(Change(h).view(kind))
    v.pop("timer_s")
    return dumps(v)


def _refusal(h: CasinoHost, name: str) -> str:
    try:
        h.handle(name, _msg({"type": "act", "action": {"verb": "hit", "box": 9}}))
    except PontoonError as err:
        return str(err)
    raise AssertionError(f"{name}'s hit on box 9 was taken")


def _options(h: CasinoHost, name: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for a in h.state_for(name, False)["legal"]:
        if a["verb"] == "bet":
            out.append({"type": "bet", "kind": a["kind"], "amount": a["low"]})
        elif a["verb"] in ("deal", "clear_bets"):
            out.append({"type": a["verb"]})
        else:
            act = {k: v for k, v in a.items() if k not in ("low", "high")}
            if "low" in a and "amount" not in act:
                act["amount"] = a["low"]
            out.append({"type": "act", "action": act})
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    y_from_end=st.integers(0, 20),
    picks=st.lists(st.integers(0, 1_000), min_size=20, max_size=50),
)
def test_the_hole_card_changes_nothing_anyone_receives_until_it_is_turned(
    seed: int, y_from_end: int, picks: list[int]
) -> None:
    a, b = _host(seed), _host(seed)
    swapped: tuple[str, str] | None = None
    for pick in picks:
        if swapped is None and _hole_hidden(a):
            swapped = _swap(b, y_from_end)
        if swapped is not None:
            if not (_hole_hidden(a) and _hole_hidden(b)) or _public(a) != _public(b):
                break  # the hole card turned over (or the peek told it, in public): the worlds part
            for k in KINDS:
                assert _frame(a, k) == _frame(b, k), (k, swapped)
                assert a.row() == b.row()
                rnd = a.table.round
                if k is not None and rnd is not None and rnd.to_act() == k and rnd.current is not None:
                    assert repr(a.hint_inputs(k)) == repr(b.hint_inputs(k)), (k, swapped)
                elif k is not None:
                    assert _refusal(a, k) == _refusal(b, k), (k, swapped)
        people = [n for n in ("ann", "bob", "cy") if _options(a, n)]
        if not people:
            break
        name = people[pick % len(people)]
        opts = _options(a, name)
        m = opts[pick % len(opts)]
        try:
            a.handle(name, _msg(m))
        except PontoonError:
            continue  # a refusal (a balance, the box's order) changes nothing shown
        try:
            b.handle(name, _msg(m))
        except PontoonError as err:
            raise AssertionError(f"the first world took {m} from {name}, the second refused: {err}") from None
