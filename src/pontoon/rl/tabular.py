"""A tabular Q-learning / Monte Carlo control agent for ``PontoonEnv``, its chart, and the comparison of a
learned chart with the analyser's basic strategy (cells that differ, exact EV cost).

The agent's state is what a basic-strategy chart reads: (total, soft, pair, two cards or more,
up card, doubled), and whether the box has split. Q-learning (default) or every-visit Monte Carlo control, epsilon-greedy over
the legal actions; an episode is one round.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from pontoon.rl.casino_env import ACTION_INDEX, ACTIONS, N_ACTIONS, PontoonEnv

UPS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
UP_POINTS = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "A": 1}
H, S, D, P, RESC, R = (ACTION_INDEX[v] for v in ("hit", "stand", "double", "split", "rescue", "surrender"))
# state index: total 0..31, soft 0..1, pair 0..1, more than two cards 0..1, upcard 0..10, doubled 0..1,
# split 0..1 (the box holds more than one hand: its later rewards carry every hand's wager, so a split
# hand's values must not be mixed with those of an unsplit hand of the same total)
SHAPE = (32, 2, 2, 2, 11, 2, 2)


def state_of(obs: Mapping[str, Any]) -> tuple[int, ...]:
    return (
        int(obs["total"]),
        int(obs["soft"]),
        int(obs["pair"]),
        int(obs["num_cards"] > 2),
        int(obs["upcard"]),
        int(obs["doubled"]),
        int(obs["hands"] > 1),
    )


class MCControlAgent:
    """Tabular Q-learning or Monte Carlo control with a decaying epsilon; never insures."""

    def __init__(self, seed: int | None = None) -> None:
        self.q = np.zeros((*SHAPE, N_ACTIONS))
        self.n = np.zeros((*SHAPE, N_ACTIONS), dtype=np.int64)
        self.rng = np.random.default_rng(seed)
        self.episodes = 0

    def greedy(self, obs: Mapping[str, Any]) -> int:
        legal = [i for i in np.flatnonzero(obs["action_mask"]) if i != ACTION_INDEX["insure"]]
        if not legal:
            legal = list(np.flatnonzero(obs["action_mask"]))
        q = self.q[state_of(obs)]
        return int(max(legal, key=lambda i: q[i]))

    def act(self, obs: Mapping[str, Any], rng: np.random.Generator | None = None) -> int:
        return self.greedy(obs)

    name = "mc-control"

    def train(
        self, env: PontoonEnv, episodes: int, *, eps0: float = 0.5, seed: int | None = None, method: str = "q"
    ) -> float:
        """Train for ``episodes`` rounds; returns seconds taken.

        ``method="q"``: Q-learning (the target of a decision is the best value of the next state,
        which takes the noise of later exploration out of it); ``"mc"``: every-visit Monte Carlo
        control (the target is the round's reward). Step size 1/n per state and action.
        """
        if method not in ("q", "mc"):
            raise ValueError(f"method={method!r}: accepted 'q' or 'mc'")
        t0 = time.perf_counter()
        env.reset(seed=seed)
        rng = self.rng
        q, n = self.q, self.n
        ins = ACTION_INDEX["insure"]
        for k in range(episodes):
            eps = max(0.02, eps0 * (1.0 - k / episodes))
            obs, info = env.reset()
            if not info["decision"]:
                env.step(S)  # nothing to decide: acknowledge the settled round
                continue
            visited: list[tuple[int, ...]] = []
            done = False
            r = 0.0
            while not done:
                legal = [i for i in np.flatnonzero(obs["action_mask"]) if i != ins]
                st = state_of(obs)
                qs = q[st]
                if rng.random() < eps:
                    a = int(legal[int(rng.integers(len(legal)))])
                else:
                    a = int(max(legal, key=lambda i: qs[i]))
                sa = (*st, a)
                obs, r, done, _t, info = env.step(a)
                if method == "q":
                    if done:
                        target = r
                    else:
                        nxt = q[state_of(obs)]
                        target = max(nxt[i] for i in np.flatnonzero(obs["action_mask"]) if i != ins)
                    n[sa] += 1
                    q[sa] += (target - q[sa]) / n[sa]
                else:
                    visited.append(sa)
            for sa in visited:
                n[sa] += 1
                q[sa] += (r - q[sa]) / n[sa]
        self.episodes += episodes
        return time.perf_counter() - t0

    # ------------------------------------------------------------------------------------------
    def _best(self, st: tuple[int, ...], options: tuple[int, ...]) -> int | None:
        seen = [a for a in options if self.n[(*st, a)] > 0]
        if not seen:
            return None
        return max(seen, key=lambda a: self.q[(*st, a)])

    def _code(self, st: tuple[int, ...], can_surrender: bool, more: bool) -> str:
        opts = (H, S) if more else ((H, S, D, R) if can_surrender else (H, S, D))
        b = self._best(st, opts)
        q = self.q[st]
        if b is None:
            return "S" if st[0] >= 17 else "H"
        hit_over_stand = self.n[(*st, S)] == 0 or q[H] >= q[S]
        if b == D:
            return "D" if hit_over_stand else "Ds"
        if b == R:
            return "R" if hit_over_stand else "Rs"
        return "H" if b == H else "S"

    def chart(self, env: PontoonEnv) -> dict[str, Any]:
        """The learned chart in the analyser's shape (two-card codes, "X with 3+ cards" exceptions)."""
        rules = env.rules
        sur = rules.surrender != "none"
        out: dict[str, Any] = {"hard": {}, "soft": {}, "pair": {}}
        for kind, soft, totals in (("hard", 0, range(4, 21)), ("soft", 1, range(12, 21))):
            for t in totals:
                row = {}
                for u in UPS:
                    up = UP_POINTS[u]
                    # rulings 9: surrender against an Ace or a picture only in casino Pontoon
                    can_r = sur and (up in (1, 10) or not rules.is_pontoon)
                    base = self._code((t, soft, 0, 0, up, 0, 0), can_r, False)
                    more = self._code((t, soft, 0, 1, up, 0, 0), False, True)
                    fallback = "S" if base in ("S", "Ds", "Rs") else "H"
                    row[u] = (
                        base
                        if more == fallback or self.n[(t, soft, 0, 1, up, 0, 0)].sum() == 0
                        else f"{base}; {more} with 3+ cards"
                    )
                out[kind][str(t)] = row
        for pv, key in [(1, "A")] + [(v, str(v)) for v in range(2, 10)] + [(10, "T")]:
            t, soft = (12, 1) if pv == 1 else (2 * pv, 0)
            row = {}
            for u in UPS:
                st = (t, soft, 1, 0, UP_POINTS[u], 0, 0)
                b = self._best(st, (H, S, D, P))
                row[u] = "P" if b == P else self._code(st, False, False)
            out["pair"][key] = row
        if rules.rescue:
            out["rescue"] = {}
            for t in range(4, 21):
                row = {}
                for u in UPS:
                    st = (t, 0, 0, 1, UP_POINTS[u], 1, 0)
                    b = self._best(st, (S, RESC))
                    row[u] = "F" if b == RESC else "S"
                out["rescue"][str(t)] = row
        return out


def compare_charts(learned: Mapping[str, Any], basic: Mapping[str, Any]) -> dict[str, Any]:
    """Cells of ``basic`` whose two-card code (the part before any ';') differs in ``learned``."""
    cells = 0
    diff: list[str] = []
    for section in ("hard", "soft", "pair", "rescue"):
        for row, cols in (basic.get(section) or {}).items():
            for u, cell in cols.items():
                other = (learned.get(section) or {}).get(row, {}).get(u)
                if other is None:
                    continue
                cells += 1
                a, b = str(cell).split(";")[0].strip(), str(other).split(";")[0].strip()
                if a != b:
                    diff.append(f"{section} {row} v {u}: basic {a}, learned {b}")
    return {"cells": cells, "differ": len(diff), "differences": diff}


def side_by_side(learned: Mapping[str, Any], basic: Mapping[str, Any], section: str = "hard") -> str:
    """Rows of a section as text: each cell 'basic/learned' (one code where they agree)."""
    lines = [f"{section:>6} " + " ".join(f"{u:>5}" for u in UPS)]
    for row, cols in (basic.get(section) or {}).items():
        cells = []
        for u in UPS:
            a = str(cols.get(u, "")).split(";")[0].strip()
            b = str((learned.get(section) or {}).get(row, {}).get(u, "")).split(";")[0].strip()
            cells.append(f"{a:>5}" if a == b or not b else f"{a + '/' + b:>5}")
        lines.append(f"{row:>6} " + " ".join(cells))
    return "\n".join(lines)


__all__ = ["ACTIONS", "MCControlAgent", "compare_charts", "side_by_side", "state_of"]
