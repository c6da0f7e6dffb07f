"""One change's view kinds share what every kind sees alike (web/frames.py builds them with one memo):
each state is still exactly what ``state_for`` makes for that person alone, and its round is the
engine's own view for his seat (casino/seats.py ``view``; ruling 35: a spectator's is the public one),
through random play with seated and standing bettors, an absent one and one joined mid-round."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.errors import PontoonError
from pontoon.protocol import SPECTATOR
from pontoon.rules import find_rules
from pontoon.web.casino_host import CasinoHost
from pontoon.web.hosting import Settings
from pontoon.web.models import Envelope
from pontoon.web.persistence import MemoryPersistence


def _msg(data: dict[str, Any]) -> Any:
    return Envelope.model_validate({"msg": data}).msg


def _check(h: CasinoHost) -> None:
    names: list[str | None] = [*h.members, None, "nobody"]
    memo: dict[str, Any] = {}
    shared = {n: h.state_for(n, False, memo) for n in names}
    rnd = h.table.round
    for n in names:
        alone = h.state_for(n, False)
        for s in (shared[n], alone):
            s.pop("timer_s")
        assert json.dumps(shared[n]) == json.dumps(alone)  # the same keys, in the same order
        m = h.members.get(n or "")
        me = n if m is not None and not m.pending else None
        if rnd is not None:
            assert shared[n]["round"] == rnd.view(me if me is not None else SPECTATOR)
        if m is not None and h.table.in_round and rnd is not None:
            want = [] if m.absent else [a.to_json() for a in rnd.legal_actions(n)]
            assert shared[n]["legal"] == want
        elif m is None:
            assert shared[n]["legal"] == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), picks=st.lists(st.integers(0, 1_000), min_size=30, max_size=60))
def test_shared_views_are_each_persons_own(seed: int, picks: list[int]) -> None:
    h = CasinoHost("t1", "t", find_rules("mbs"), seed, Settings(), MemoryPersistence(), lambda n, a: None)
    h.join("ann", 1, None, Decimal(1000))
    h.join("bob", 2, None, Decimal(1000))
    h.join("cy", None, 1, Decimal(500))  # a standing bettor behind ann's box
    for name in ("ann", "bob", "cy"):
        h.connected(name)
    late = gone = False
    for i, pick in enumerate(picks):
        _check(h)
        if h.table.in_round and not late:  # joined mid-round: sits down when it ends
            h.join("dee", 3, None, Decimal(300))
            late = True
        if i >= 10 and h.table.in_round and not gone:
            gone = True
            h.disconnected("bob", now=0.0)
            h.check_grace(10_000.0)  # bob absent: the House plays his hand (004 5.3)
        people = [n for n in h.members if not h.members[n].absent]
        if not people:
            break
        name = people[pick % len(people)]
        st_ = h.state_for(name, False)
        options: list[dict[str, Any]] = []
        for a in st_["legal"]:
            if a["verb"] == "bet":
                options.append({"type": "bet", "kind": a["kind"], "amount": a["low"]})
            elif a["verb"] in ("deal", "clear_bets"):
                options.append({"type": a["verb"]})
            else:
                act = {k: v for k, v in a.items() if k not in ("low", "high")}
                if "low" in a and "amount" not in act:
                    act["amount"] = a["low"]
                options.append({"type": "act", "action": act})
        if not options:
            continue
        try:
            h.handle(name, _msg(options[pick % len(options)]))
        except PontoonError:
            pass  # a refusal (the balance, the box's order) changes nothing shown
    _check(h)
