"""A casino seat's own part (``CasinoHost.own_ops``) is kept between changes as its text only
(web/frames.py ``Split.own`` is None there): the operations' lists die with their change instead of
living on to every young collection. The frames stay exact: with every changed own part sent as what
changed (``own_delta``, here forced by ``OWN_WHOLE = 0``, its old operations read back from the kept
text), each split connection joins to the very state its kind's plain deltas give, and a late
connection gets the held own part."""

from __future__ import annotations

import orjson
import pytest

from pontoon.web import frames
from tests.web.test_frames_split import Fake, moves_of, two_seated


def test_own_parts_kept_as_text_and_their_deltas_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frames, "OWN_WHOLE", 0)  # every changed own part as what changed in it
    host, names = two_seated("abcd0006", 9, seeded=True)
    conns = [Fake(n, d) for n in [*names, None] for d in (1, 2)]
    frames.broadcast(host, conns)
    partial = 0
    while host.table.rounds_played < 10:
        for i, m in moves_of(host, names):
            host.handle(names[i], m)
            frames.broadcast(host, conns)
            for plain, split in zip(conns[::2], conns[1::2], strict=True):
                assert orjson.dumps(split.state) == orjson.dumps(plain.state), split.name
            for n in names:
                sp = frames.frames_of(host).split[n]
                assert sp.own is None and sp.own_text.startswith('[[["you"],')  # the text alone kept
            own = orjson.loads(conns[1].texts[-1]).get("own")
            held = len(conns[1].joined.own)
            # only what changed: fewer operations than the own part holds (the old ones read right)
            partial += own is not None and 0 < len(own) < held and own[0][0] != []
    assert partial > 10
    late = Fake("ann", 2)
    frames.welcome(host, late, [*conns, late])
    assert orjson.dumps(late.state) == orjson.dumps(conns[1].state)
    assert "own" in orjson.loads(late.texts[-1])
