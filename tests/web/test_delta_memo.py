"""``diff``'s memo (web/delta.py): the view kinds of one change share most of their values, and so did the
kinds of the change before, so a change's deltas compare each pair of shared containers once. The
operations found through the memo are exactly those found without it, for every kind of a change, in
random values that share parts and in the real play of a casino table with seats and a spectator."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.web import frames
from pontoon.web.delta import apply, diff
from pontoon.web.models import Envelope
from tests.web.conftest import LiveServer
from tests.web.play import casino_choice
from tests.web.test_delta import keys, values


def _dump(v: Any) -> str:
    return json.dumps(v, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(keys, values, max_size=5),
    st.dictionaries(keys, values, max_size=5),
    st.lists(st.tuples(values, values), min_size=1, max_size=3),
    st.integers(0, 3),
)
def test_the_memo_finds_the_same_operations_for_every_kind(
    shared_old: dict[str, Any], shared_new: dict[str, Any], own: list[tuple[Any, Any]], depth: int
) -> None:
    """Kinds whose views hold the very same shared objects (as ``state_for``'s memo makes them) and each
    its own part: one memo for all of them, and each kind's operations as without it."""
    memo: dict[tuple[Any, ...], list[Any]] = {}
    for i, (mine_old, mine_new) in enumerate(own):
        a = dict(shared_old, own=mine_old, you=i)
        b = dict(shared_new, own=mine_new, you=i)
        before = copy.deepcopy(a)
        alone = diff(a, b, depth=depth)
        ops = diff(a, b, depth=depth, memo=memo)
        assert ops == alone
        assert _dump(apply(json.loads(_dump(ops)), a)) == _dump(b)
        assert _dump(a) == _dump(before)


def test_one_object_under_two_paths_gets_each_paths_operations() -> None:
    """The same pair of lists under two keys (a casino state's ``legal`` is its round's
    ``legal_actions``): each path its own operations, not the other's."""
    old, new = [{"verb": "hit"}], [{"verb": "stand"}]
    a = {"round": {"legal_actions": old}, "legal": old}
    b = {"round": {"legal_actions": new}, "legal": new}
    memo: dict[tuple[Any, ...], list[Any]] = {}
    assert diff(a, b, memo=memo) == diff(a, b)
    assert diff(a, b, memo=memo) == [[["round", "legal_actions"], new], [["legal", 0], {"verb": "stand"}]]


def test_a_tables_changes_have_the_same_deltas_with_the_memo(live: LiveServer) -> None:
    """Ten rounds at a casino table with two seats and a spectator: every change's delta of every kind
    (made by ``frames.Change`` with its memo) is the diff of that kind's views without a memo."""
    tid = live.table(preset="mbs", seed=5)
    for i, n in enumerate(("ann", "bob")):
        live.join(tid, live.account(n), box=i + 1, buy_in="1000")
    host = live.srv.lobby.tables[tid]
    names = list(host.members)

    class Conn:
        def __init__(self, name: str | None) -> None:
            self.name, self.deltas, self.kind, self.seq, self.history_mark = name, True, None, -1, -1
            self.texts: list[str] = []

        def push(self, text: str) -> None:
            self.texts.append(text)

    conns = [Conn(names[0]), Conn(names[1]), Conn(None)]
    frames.broadcast(host, conns)  # every kind's first (full) state
    checked = 0
    while host.table.rounds_played < 10:
        if host.table.round is None or not host.table.in_round:
            msgs = [(0, {"type": "bet", "amount": "10"}), (1, {"type": "bet", "amount": "10"})]
        else:
            msgs = []
            for i, n in enumerate(names):
                pick = casino_choice(host.state_for(n))
                if pick is not None:
                    msgs = [(i, {"type": "act", "action": pick})]
                    break
        assert msgs, "no one can act"
        for i, msg in msgs:
            host.handle(names[i], Envelope.model_validate({"msg": msg}).msg)
            before = {k: s.view for k, s in frames.frames_of(host).last.items()}
            frames.broadcast(host, conns)
            after = frames.frames_of(host).last
            for c in conns:
                sent = json.loads(c.texts[-1])
                assert sent["type"] == "delta"
                kind = c.name
                assert sent["ops"] == json.loads(_dump(diff(before[kind], after[kind].view)))
                checked += 1
    assert checked > 60
