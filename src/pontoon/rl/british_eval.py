"""``pontoon rl evaluate POLICY --rules british|shoot`` (issue 27 item 6): a player policy played against the
solved banker on the engine (heads-up rounds, each from a fresh pack; ``british_v0(opponent="solved")`` is
the same match for an agent that acts on observations), and graded exactly in the heads-up model.

POLICY: ``simple``, ``house``, ``solved`` (the bot levels' player play), ``random`` (uniform over the model's
actions), or a JSON strategy file ``{"player": {"HIDDEN|UP|BUYS": {"stick": p, "twist": p, "buy1": p,
"buy2": p}}}`` (states keyed as ``analysis/british/strategy.node_key``: card classes 0 = ace .. 9 =
ten-value, comma-separated; a state left out is played as the solution plays it).

Exact figures, per initial stake: the policy's value against the solved banker, against the banker's exact
best response to it, and its exploitability: the solution's value minus the latter (what a banker who knew
the policy would take beyond the game's value; the solution's own is ``solution_exploitability``).
"""

from __future__ import annotations

import json
import math
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from pontoon.analysis.british.bots import make_bots
from pontoon.analysis.british.game import NAMES
from pontoon.analysis.british.strategy import Solved, node_key, solved
from pontoon.analysis.british.values import (
    Strategy,
    banker_response,
    house_banker,
    player_flow,
    player_q,
    strategy_value,
)
from pontoon.british.bots import PlayerPolicy, player_decision
from pontoon.british.round import BritishRound
from pontoon.errors import PontoonError
from pontoon.protocol import Action
from pontoon.rules.british import BritishRules

POLICIES = ("simple", "house", "solved", "random")


def _simple_sigma(sol: Solved) -> Strategy:
    """The simple player policy at every model state, from a view of that state (his own cards only)."""
    out: Strategy = []
    suits = "SHDC"
    for s in sol.game.nodes:
        cards: list[str] = []
        used: dict[int, int] = {}
        for c in (*s.hidden, *s.up):
            i = used.get(c, 0)
            used[c] = i + 1
            cards.append(f"{NAMES[c]}{suits[i % 4]}")
        stake = 1 + sum(s.buys)
        view = {
            "seat": "p",
            "phase": "play",
            "hands": [{"owner": "p", "hand": 1, "cards": cards, "stake": str(stake)}],
            "current_hand": {"owner": "p", "hand": 1},
        }
        legal: list[Action] = []
        for a in s.actions:
            if a.startswith("buy"):
                if not any(x.verb == "buy" for x in legal):
                    top = max(int(b[3:]) for b in s.actions if b.startswith("buy"))
                    legal.append(Action("buy", low=Decimal(1), high=Decimal(top)))
            else:
                legal.append(Action(a))
        verb, amt = player_decision(view, legal, sol.rules, PlayerPolicy())
        name = f"buy{int(amt or 1)}" if verb == "buy" else verb
        out.append(np.array([1.0 if a == name else 0.0 for a in s.actions]))
    return out


def policy_sigma(spec: str, sol: Solved) -> tuple[str, Strategy]:
    """The player strategy of ``spec`` over the model's states; PontoonError naming what was wrong."""
    g, tb = sol.game, sol.tables
    if spec == "solved":
        return spec, list(sol.sigma)
    if spec == "random":
        return spec, [np.full(len(s.actions), 1.0 / len(s.actions)) for s in g.nodes]
    if spec == "house":
        q, _, _ = player_q(g, tb, house_banker(g))
        return spec, [np.eye(len(x))[int(np.argmax(x))] for x in q]
    if spec == "simple":
        return spec, _simple_sigma(sol)
    path = Path(spec)
    if not path.is_file():
        raise PontoonError(f"policy {spec!r}: accepted {', '.join(POLICIES)} or a JSON strategy file")
    try:
        data = json.loads(path.read_text())["player"]
        assert isinstance(data, dict)
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        raise PontoonError(f"{spec}: not a JSON object with a 'player' table of states") from None
    sigma = list(sol.sigma)
    keys = {node_key(s.hidden, s.up, s.buys): i for i, s in enumerate(g.nodes)}
    for k, mix in data.items():
        i = keys.get(k)
        if i is None:
            raise PontoonError(f"{spec}: {k!r} is not a player state of this model (HIDDEN|UP|BUYS)")
        acts = g.nodes[i].actions
        if not isinstance(mix, dict) or set(mix) - set(acts):
            raise PontoonError(f"{spec}: state {k!r} takes actions {', '.join(acts)}")
        x = np.array([float(mix.get(a, 0.0)) for a in acts])
        if (x < 0).any() or not math.isfinite(x.sum()) or x.sum() <= 0:
            raise PontoonError(f"{spec}: state {k!r}: probabilities must be >= 0 with a positive sum")
        sigma[i] = x / x.sum()
    return path.name, sigma


def evaluate_british(rules: BritishRules, spec: str, rounds: int, seed: int | None) -> dict[str, Any]:
    sol = solved(rules)
    name, sigma = policy_sigma(spec, sol)
    g, tb = sol.game, sol.tables
    value, _, _ = sol.quality()
    vs_solved = strategy_value(g, tb, sigma, sol.tw)
    _, _, vs_br = banker_response(g, tb, player_flow(g, sigma))
    played = _play(rules, sol, sigma, rounds, seed)
    return {
        "rules": rules.preset,
        "policy": name,
        "opponent": "solved banker",
        "seed": seed,
        "played": played,
        "exact": {
            "value_vs_solved_banker": vs_solved,
            "value_vs_banker_best_response": vs_br,
            "exploitability": value - vs_br,
            "solution_value": value,
            "solution_exploitability": sol.exploitability,
            "note": "heads-up model (analysis/british), per initial stake",
        },
    }


def _play(rules: BritishRules, sol: Solved, sigma: Strategy, rounds: int, seed: int | None) -> dict[str, Any]:
    """The policy as the player against the solved banker, heads-up, on the engine: each round from a freshly
    shuffled pack, one stake of the table minimum (the model's round), mixed decisions sampled (seeded)."""
    from pontoon.british.pack import BritishPack, one_pack

    deck = np.random.default_rng(seed)
    rng = np.random.default_rng(None if seed is None else [seed, 1])
    bots = make_bots("solved", rules, np.random.default_rng(None if seed is None else [seed, 2]))
    total = s2 = 0.0
    t0 = time.perf_counter()
    for _ in range(rounds):
        pack = BritishPack.shuffled(rules.packs_for(2), deck, one_pack(rules))
        rnd = BritishRound(rules, ["p"], "b", pack, kitty=rules.kitty_max if rules.shoot else 0)
        while not rnd.is_over():
            seat = rnd.to_act()
            if seat == "p":
                verb, amt = _choose(rnd, "p", sol, sigma, rng, bots)
            else:
                _, verb, amt = bots.decide(rnd)
            rnd.act(str(seat), verb, amt)
        x = float(rnd.net()["p"]["total"] / rules.stake_min)
        total += x
        s2 += x * x
    mean = total / rounds
    sd = math.sqrt(max(s2 / rounds - mean * mean, 0.0) * rounds / max(rounds - 1, 1))
    return {
        "rounds": rounds,
        "mean": mean,
        "ci95": 1.96 * sd / math.sqrt(rounds),
        "seconds": time.perf_counter() - t0,
    }


def _choose(
    rnd: BritishRound, me: str, sol: Solved, sigma: Strategy, rng: np.random.Generator, bots: Any
) -> tuple[str, Decimal | None]:
    """The policy's decision from seat_0's view (its own cards, what is face up), the bots' fallback off it."""
    from pontoon.analysis.british.bots import hand_state, initial_stakes
    from pontoon.protocol import SPECTATOR

    if rnd.phase == "play" and rnd.banker != me:
        own = rnd.view(me)
        cur = own["current_hand"]
        index = next(i for i, h in enumerate(own["hands"]) if h["owner"] == me and h["hand"] == cur["hand"])
        initial = initial_stakes(rnd).get(me)
        st = hand_state(own, rnd.view(SPECTATOR), index, initial) if initial else None
        node = sol.node(*st) if st is not None else None
        if node is not None:
            acts = sol.game.nodes[node].actions
            a = acts[int(rng.choice(len(acts), p=sigma[node]))]
            return ("buy", initial * int(a[3:])) if a.startswith("buy") and initial else (a, None)
    _, verb, amt = bots.decide(rnd)  # off the model's player decisions (stake, shoot windows): as the bots
    return verb, amt
