"""Sampled edges of the banker reading every hand against N solved players (issue 27 item 3): engine rounds
valued exactly from the banker's turn on (``reading.py``), paired with the blind best response."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np

from pontoon.analysis.british.reading import Reader, seen_from_view, settled_from_view


def sample_reading(
    rules: Any, players: int, rounds: int, seed: int | None, *, seconds: float | None = None
) -> dict[str, float]:
    """``rounds`` engine deals of ``players`` solved players (``rules``' packs at that table), each valued
    exactly from the banker's turn on: the players' expected net given what the banker sees when he plays his
    exact best response reading every hand (``best``) and when he plays the blind best response (``blind``),
    plus what was settled before (busts, Pontoons, his Pontoon). Both are unbiased estimates of the banker's
    edge with each strategy (the conditional expectation of the round's net given the deal up to his turn);
    their difference ``gain`` (never negative, deal by deal) has a small variance: the edge of the banker
    reading every hand is the exact blind edge plus the mean gain. Per player and initial stake. With
    ``seconds``, stops after the round that passes that time (``rounds`` says how many were played)."""
    import time

    from pontoon.analysis.british.bots import initial_stakes, make_bots
    from pontoon.analysis.british.strategy import solved
    from pontoon.british.pack import BritishPack, one_pack
    from pontoon.british.round import BritishRound

    t0 = time.perf_counter()
    packs = rules.packs_for(players + 1)
    rules = rules.with_(packs=packs)
    cards = len(one_pack(rules)) * packs
    if cards < 5 * (players + 1):  # busted cards would come round again: the posterior assumes they cannot
        raise ValueError(
            f"a pack of {cards} cards can run out at a table of {players + 1} people (5 cards each): the "
            "banker reading every hand is modelled for packs that cannot"
        )
    rd = Reader(solved(rules))
    bots: Any = make_bots("solved", rules, np.random.default_rng(0))
    seats = [f"p{i}" for i in range(players)]
    base: int = int(np.random.SeedSequence().entropy) if seed is None else seed  # type: ignore[arg-type]
    xs = np.zeros((rounds, 2))
    off = states = 0
    for j in range(rounds):
        if seconds is not None and j > 1 and time.perf_counter() - t0 > seconds:
            rounds = j
            xs = xs[:j]
            break
        bots.rng = np.random.default_rng([base, j, 1])
        pack = BritishPack.shuffled(packs, np.random.default_rng([base, j, 0]), one_pack(rules))
        rnd = BritishRound(rules, seats, "bank", pack)
        while not rnd.is_over() and rnd.phase != "banker":
            seat, verb, amt = bots.decide(rnd)
            rnd.act(seat, verb, amt)
        if rnd.is_over():
            net = float(sum(Decimal(rnd.net()[s]["total"]) for s in seats)) / float(rules.stake_min)
            xs[j] = net
            continue
        stakes = initial_stakes(rnd)
        view = rnd.view("bank")
        seen = seen_from_view(view, stakes)
        if seen is None or not rd.observed(seen):
            off += 1  # not in the model: not expected from solved players
            continue
        fixed = settled_from_view(view, stakes, rules.pontoon_pays)
        tree = rd.tree(seen)
        states = max(states, tree.states)
        xs[j] = (fixed + tree.value, fixed + tree.blind)
    xs = -xs / players  # the banker's edge per player
    gain = xs[:, 0] - xs[:, 1]
    n = max(rounds - off, 1)

    def se(x: np.ndarray) -> float:
        return float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0

    return {
        "rounds": rounds,
        "packs": packs,
        "best": float(xs[:, 0].sum() / n),
        "best_se": se(xs[:, 0]),
        "blind": float(xs[:, 1].sum() / n),
        "blind_se": se(xs[:, 1]),
        "gain": float(gain.sum() / n),
        "gain_se": se(gain),
        "off_model": off,
        "largest_programme": states,
        "seconds": time.perf_counter() - t0,
    }
