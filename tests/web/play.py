"""Simple policies that play through the WebSocket messages (used by the tests and the benchmark)."""

from __future__ import annotations

from typing import Any


def strip(a: dict[str, Any]) -> dict[str, Any]:
    """A listed action as the client sends it: the range removed, the smallest amount chosen."""
    out = {k: v for k, v in a.items() if k not in ("low", "high")}
    if "low" in a and "amount" not in out:
        out["amount"] = a["low"]
    return out


def casino_choice(state: dict[str, Any]) -> dict[str, Any] | None:
    """Hit below 17, else stand, on the hand to act (None when it is not this client's turn)."""
    if state.get("phase") != "play" or state.get("to_act") != state.get("you"):
        return None
    rnd = state["round"]
    hta = rnd.get("hand_to_act")
    if hta is None:
        return None
    verbs = {a["verb"]: a for a in state["legal"] if a.get("box") == hta["box"]}
    box = next(b for b in rnd["boxes"] if b["box"] == hta["box"])
    hand = next((h for h in box["hands"] if h["hand"] == hta["hand"]), box["hands"][-1])
    for verb in ("hit", "stand") if hand["total"] < 17 else ("stand", "hit"):
        if verb in verbs:
            return strip(verbs[verb])
    return strip(next(iter(verbs.values()))) if verbs else None


def british_choice(state: dict[str, Any]) -> dict[str, Any] | None:
    """Stake the least, never shoot or double, buy once at two cards, twist to three, then stick."""
    legal = {a["verb"]: a for a in state.get("legal", [])}
    if not legal:
        return None
    if "kitty" in legal:
        return {"type": "kitty", "amount": legal["kitty"]["low"]}
    rnd = state.get("round") or {}
    me = state.get("you")
    mine = [h for h in rnd.get("hands", []) if h["owner"] == me]
    cur = rnd.get("current_hand")
    hand = next((h for h in mine if cur and h["hand"] == cur["hand"]), None)
    if "stake" in legal:
        pick = strip(legal["stake"])
    elif "pass" in legal:
        pick = {"verb": "pass"}
    elif me == rnd.get("banker"):
        n = len(rnd.get("banker_cards", []))
        pick = {"verb": "twist"} if n < 3 and "twist" in legal else {"verb": "stick"}
    elif hand is not None and hand["count"] == 2 and "buy" in legal:
        pick = strip(legal["buy"])
    elif hand is not None and hand["count"] < 3 and "twist" in legal:
        pick = {"verb": "twist"}
    elif "stick" in legal:
        pick = {"verb": "stick"}
    else:
        pick = strip(next(iter(legal.values())))
    return {"type": "act", "action": pick}
