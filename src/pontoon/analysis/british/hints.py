"""Hints for the British game (issue 27 item 5): the exact expectation of each legal decision of the seat to
act, from that seat's view only (ruling 35).

- As a player: each of stick, twist and buy (1 or 2 initial stakes) at his state (his own cards, which of
  them are face up, his buys), against the solved banker, by enumeration over the cards left in the pack
  (the heads-up model: the other players' cards count as unseen), given that the banker has no Pontoon
  (he would have shown it: 003 "immediately exposed"); his later decisions played best.
- As the banker: staying and twisting, from the exact posterior over each live hand's face-down cards given
  what he sees of it (face-up cards, the number of cards, the stake) and his own cards, the players playing
  the solution; his later decisions played best; summed over the live hands (each heads-up: the other
  hands' cards count as unseen).

- As the banker facing a split heads-up: staying and twisting given everything he sees of both split hands
  (the pair, face-up cards in order, numbers of cards, stakes, busts) and his own cards, the player splitting
  as his best split against the profile's banker there, his later decisions played best
  (``split_bots.split_banker_values``).

Figures are in money (the seat's expected net on the live stakes from here), the player's per his hand,
the banker's over the live hands; ``None`` where the state is off the model (a player's split hand, an odd
buy).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np

from pontoon.analysis.british.bots import hand_state, initial_stakes, seen_hand
from pontoon.analysis.british.game import check_seats, multiset_p
from pontoon.analysis.british.infosets import card_class
from pontoon.analysis.british.split_bots import split_banker_values, split_pair
from pontoon.analysis.british.split_reading import seen_of_view
from pontoon.analysis.british.strategy import Solved, solved
from pontoon.analysis.british.values import _k_stay, banker_response, player_flow, player_q
from pontoon.british.round import BritishRound
from pontoon.money import fmt
from pontoon.protocol import SPECTATOR
from pontoon.rules.british import BritishRules


def _player_q(sol: Solved) -> list[np.ndarray]:
    if "player_q" not in sol.memo:
        sol.memo["player_q"] = player_q(sol.game, sol.tables, sol.tw)[0]
    q: list[np.ndarray] = sol.memo["player_q"]
    return q


def _banker_tables(sol: Solved) -> tuple[np.ndarray, np.ndarray]:
    """[observation, hand]: the player's value per initial stake if the banker stays, and if he twists and
    then plays his best response, given what he sees (the posterior normalised)."""
    if "banker" not in sol.memo:
        g, tb = sol.game, sol.tables
        y = player_flow(g, sol.sigma)
        _, st, _ = banker_response(g, tb, y)
        mass = np.zeros((len(g.obs), len(g.banker)))
        unit = np.ones_like(tb.f_stake)
        _k_stay(
            tb.f_kind, tb.f_obs, tb.f_pset, tb.f_total, unit, tb.prob, y, np.ones((23, len(g.banker))), mass
        )
        m = np.where(mass > 0, mass, 1.0)
        sol.memo["banker"] = (st[0] / m, np.where(np.isfinite(st[1]), st[1], np.nan) / m)
    out: tuple[np.ndarray, np.ndarray] = sol.memo["banker"]
    return out


def player_values(
    sol: Solved, hidden: tuple[int, ...], up: tuple[int, ...], buys: tuple[int, ...]
) -> dict[str, float] | None:
    """Each model action's exact value per initial stake at the state, the banker having no Pontoon."""
    i = sol.node(hidden, up, buys)
    if i is None:
        return None
    s = sol.game.nodes[i]
    bp = multiset_p(sol.game.counts, s.cards, sol.game.pontoon)  # 003: his Pontoon would have been shown
    collects = float(sol.rules.banker_pontoon_collects)
    q = _player_q(sol)[i]
    return {a: (float(x) + collects * bp) / (1 - bp) for a, x in zip(s.actions, q, strict=True)}


def british_hint(
    rules: BritishRules,
    seat: str,
    view: dict[str, Any],
    public: dict[str, Any],
    initials: dict[str, Decimal],
) -> dict[str, Any]:
    """The hint for ``seat`` to act: ``view`` is ``view(seat)``, ``public`` ``view(SPECTATOR)`` (which cards
    are face up), ``initials`` each player's initial stake (public). Returns ``{"role", "values": {label:
    expected net in money or None}, "best", "model"}``; ``values`` is empty when the seat is not to act."""
    check_seats(rules)  # cards are read by point value here
    sol = solved(rules)
    out: dict[str, Any] = {
        "seat": seat,
        "role": None,
        "values": {},
        "best": None,
        "model": "heads-up solution",
    }
    if view.get("to_act") != seat:
        return out
    legal = {a["verb"]: a for a in view.get("legal_actions", [])}
    if view["phase"] == "play" and seat != view["banker"]:
        out["role"] = "player"
        cur = view.get("current_hand") or {}
        index = next(
            (i for i, h in enumerate(view["hands"]) if h["owner"] == seat and h["hand"] == cur.get("hand")),
            None,
        )
        initial = initials.get(seat)
        state = hand_state(view, public, index, initial) if index is not None and initial else None
        vals = player_values(sol, *state) if state is not None else None
        if vals is None or initial is None:
            return out
        for a, v in vals.items():
            if a == "stick" and "stick" in legal:
                out["values"]["stick"] = v * float(initial)
            elif a == "twist" and "twist" in legal:
                out["values"]["twist"] = v * float(initial)
            elif a.startswith("buy") and "buy" in legal:
                out["values"][f"buy {fmt(initial * int(a[3:]))}"] = v * float(initial)
    elif view["phase"] == "banker" and seat == view["banker"]:
        out["role"] = "banker"
        hand = tuple(sorted(card_class(c) for c in view["banker_cards"]))
        k = sol.game.banker_index.get(hand)
        live = [h for h in view["hands"] if h["status"] in ("stuck", "five")]
        x = split_pair(view)
        if x is not None:  # heads-up facing a split: what he sees of both hands (split_reading)
            initial = initials.get(view["hands"][0]["owner"])
            if k is not None and "twist" in legal and initial:
                seen = tuple(seen_of_view(h, initial) for h in view["hands"])
                try:
                    vals = split_banker_values(sol, x, seen, hand)  # type: ignore[arg-type]
                except KeyError:  # a play the solved split never makes (a human's odd buy)
                    return out
                out["values"] = {a: v * float(initial) for a, v in vals.items()}
                out["best"] = max(out["values"], key=lambda a: out["values"][a])
            return out
        at = {o: i for i, o in enumerate(sol.game.obs)}
        rows = [at.get(seen_hand(h, initials.get(h["owner"], Decimal(1))) or ((-1,), ())) for h in live]
        if (
            not live  # every hand bust or paid (a declared Pontoon): nothing turns on his play
            or k is None
            or "twist" not in legal
            or any(r is None for r in rows)
            or any(h["owner"] not in initials for h in live)
        ):
            return out
        stay, twist = _banker_tables(sol)
        st = sum(-float(initials[h["owner"]]) * stay[r, k] for h, r in zip(live, rows, strict=True))
        tw = sum(-float(initials[h["owner"]]) * twist[r, k] for h, r in zip(live, rows, strict=True))
        out["values"] = {"stick": float(st), "twist": float(tw)}
    if out["values"]:
        out["best"] = max(out["values"], key=lambda a: out["values"][a])
    return out


def round_hint(rnd: BritishRound, seat: str) -> dict[str, Any]:
    """``british_hint`` for ``seat`` at the engine's round (its own view, the public view, public stakes)."""
    return british_hint(rnd.rules, seat, rnd.view(seat), rnd.view(SPECTATOR), initial_stakes(rnd))
