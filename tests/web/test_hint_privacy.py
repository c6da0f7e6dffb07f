"""The hint side channel (rulings 35), as a hostile client would probe it through a real server.

A seat's exact-EV hint must be what the seat could compute from its own frames: the cards dealt face
up in the shoe's earlier rounds (each ends face up) and in this round's view, the rest of the shoe
(the face-down hole card included) unseen. Before the fix the server valued the hand against the
shoe's remaining cards, which no longer held the hole card: the shown figure matched the one with
the real hole card removed, and no other, so a seat could read the hole card off its hints.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pontoon.analysis.hints import action_values
from pontoon.analysis.seat_view import hint_inputs, view_cards
from pontoon.cards import Card
from tests.web.conftest import Client, LiveServer


def _round_over(st: dict[str, Any]) -> bool:
    return st.get("round") is not None and st["round"]["phase"] == "over"


def _play_until_hint(
    live: LiveServer, c: Client, tid: str, spy: Client, rounds: int = 40
) -> list[dict[str, Any]]:
    """Play the table's rounds (stand, else hit) and ask a hint at each decision the seat has while the
    hole card is face down; each check diffs the frame against the seat's own computation."""
    host = live.srv.lobby.tables[tid]
    rules = host.rules
    seen_before: list[Card] = []  # the shoe's earlier rounds, as this seat saw them at their end
    shoe_no = None
    counted: set[int] = set()
    read = 0
    checks: list[dict[str, Any]] = []

    def follow() -> None:  # every frame in order: a new shoe forgets, a finished round is seen whole
        nonlocal read, shoe_no, seen_before
        for m in c.received[read:]:
            if m.get("type") != "state":
                continue
            if m["shoe"]["number"] != shoe_no:
                shoe_no, seen_before = m["shoe"]["number"], []
            if _round_over(m) and m["round_no"] not in counted:
                counted.add(m["round_no"])
                seen_before += view_cards(m["round"])
        read = len(c.received)

    for _ in range(3000):
        c.drain(0.03)
        follow()
        st = c.state
        if len(checks) >= 3 or len(counted) >= rounds:
            break
        if st.get("phase") == "betting" and not st["bets"].get(st["you"]):
            c.send({"type": "bet", "amount": "10"})
            continue
        if st.get("phase") != "play" or st.get("to_act") != st.get("you"):
            continue
        view = st["round"]
        if "??" in view["dealer"]:
            c.send({"type": "hints"})
            h = c.until(lambda m: m.get("type") == "hints", timeout=180)
            mine = action_values(**hint_inputs(rules, view, seen_before))
            hole = host.table.round.dealer[1]  # the server's secret, only to show what the old hint gave away
            inputs = hint_inputs(rules, view, seen_before)
            inputs["remaining"] = inputs["remaining"] - Counter({hole.rank: 1})
            inputs["remaining_cards"] = None
            leaked = action_values(**inputs)
            checks.append({"shown": h["values"], "mine": mine, "leaked": leaked})
            spy.send({"type": "hints"})  # a spectator asks at the same moment: refused, no figure
            assert spy.error()  # "spectators cannot act: ..."
            assert not any(m.get("type") == "hints" for m in spy.received)
        verbs = {a["verb"]: a for a in st["legal"] if a.get("verb") in ("stand", "hit")}
        a = dict(verbs.get("stand") or verbs["hit"])
        a.pop("low", None), a.pop("high", None)
        c.send({"type": "act", "action": a})
        c.until(lambda m: m.get("type") in ("state", "error"))
    return checks


def test_hint_frames_match_what_the_seat_computes_from_its_own_view(live: LiveServer) -> None:
    tid = live.table(preset="blackjack")
    tok = live.join(tid, live.account("ann"), box=1, buy_in="1000")
    c = live.ws(tid, tok)
    c.wait_state(lambda m: m.get("phase") == "betting")
    spy = live.ws(tid)
    checks = _play_until_hint(live, c, tid, spy)
    assert checks, "no decision with the hole card face down came up"
    for ck in checks:
        shown = ck["shown"]
        assert set(shown) == set(ck["mine"])
        for v, x in ck["mine"].items():
            assert shown[v] is not None and abs(shown[v] - x) < 2e-6, (v, shown[v], x)
    # the side channel: with the real hole card taken out, the figures would differ from what is shown
    assert any(any(abs(ck["shown"][v] - ck["leaked"][v]) > 1e-5 for v in ck["mine"]) for ck in checks)
    c.close()
    spy.close()
