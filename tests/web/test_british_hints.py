"""Issue 27: the hint toggle at a British table sends the exact EV of each decision, computed from the
seat's own view (analysis/british/hints.py), over a real server and WebSocket."""

from __future__ import annotations

from pontoon.analysis.british.hints import british_hint
from pontoon.analysis.british.infosets import HIDDEN
from tests.web.conftest import LiveServer
from tests.web.play import british_choice


def test_british_hint_frame_for_the_seat_to_act(live: LiveServer) -> None:
    tid = live.table(preset="british", seats=2, seed=8)
    toks = {n: live.join(tid, live.account(n)) for n in ("ann", "bob")}
    cs = {n: live.ws(tid, t) for n, t in toks.items()}
    host = live.srv.lobby.tables[tid]
    got = {}
    for _ in range(300):
        for c in cs.values():
            c.drain(0.02)
        g = host.game_obj
        rnd = None if g is None else g.round
        who = None if rnd is None or rnd.is_over() else rnd.to_act()
        live_hands = rnd is not None and any(h.status in ("stuck", "five") for h in rnd.hands)
        if (
            who is not None
            and rnd is not None
            and (rnd.phase == "play" or (rnd.phase == "banker" and live_hands))
            and who not in got
        ):
            other = next(n for n in cs if n != who)
            cs[other].send({"type": "hints"})
            assert "not your turn" in cs[other].error()
            cs[who].send({"type": "hints"})
            frame = cs[who].until(lambda m: m.get("type") == "hints", timeout=120)
            mine = british_hint(**host.hint_inputs(who))  # from the seat's own view and the public one
            assert frame["values"] == {k: round(v, 6) for k, v in mine["values"].items()}
            assert frame["values"], (frame, mine, host.hint_inputs(who))
            assert (
                all(
                    HIDDEN in h["cards"]
                    for h in host.hint_inputs(who)["view"]["hands"]
                    if h["owner"] != who and h["status"] == "stuck"
                )
                or rnd.phase == "play"
            )
            got[who] = frame
        if len(got) == 2:
            break
        for c in cs.values():
            pick = british_choice(c.state)
            if pick is not None:
                c.send(pick)
                c.until(lambda m: m.get("type") in ("state", "error"))
    assert len(got) == 2  # a hint as a player and one as the banker
    for c in cs.values():
        c.close()
