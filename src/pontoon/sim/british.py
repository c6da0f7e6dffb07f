"""Simulation of the British game (moved from ``british/sim.py``: simulation lives in ``sim/``) through the real engine, with bots in every seat (issue 5 hook).

``simulate_british(rules, rounds, seed, players=4) -> dict``

The table is a BritishGame of ``players`` players plus one banker (bank passing, pack order and
shuffles as in 003). Results are from the banker's side:
- ``house_edge``: the banker's net on stakes (kind ``stake``; shoot bets not included) divided by
  the players' initial stakes (split stakes included): positive when the banker wins.
- ``sd``: the per-round standard deviation of that ratio (ratio-estimator residuals, per unit of
  the mean initial stakes of a round); ``ci95``: the 95% half-width of ``house_edge``.
- ``shoot_edge``: the banker's (kitty's) net on shoot bets per unit shot (Shoot Pontoon only).
- ``lines``: for player hands (``pontoon``, ``royal_pontoon``, ``five_card_trick``, ``player_bust``)
  ``hit_rate`` is per player hand and ``return`` is the players' net on those hands per unit of all
  initial stakes; for the banker (``banker_pontoon``, ``banker_five_card_trick``, ``banker_bust``)
  ``hit_rate`` is per round and ``return`` is the players' net in those rounds per unit of all
  initial stakes. ``hits`` is the count.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pontoon.british.bots import Bots, play_round
from pontoon.british.table import BritishGame
from pontoon.errors import RulesError
from pontoon.rules.british import BritishRules

PLAYER_LINES = ("pontoon", "royal_pontoon", "five_card_trick", "player_bust")
BANKER_LINES = ("banker_pontoon", "banker_five_card_trick", "banker_bust")


@dataclass
class _Sums:
    """Running sums of the banker's results (memory does not grow with the rounds: issue 10 item 7)."""

    n: int = 0
    sum_x: float = 0.0
    sum_s: float = 0.0
    sum_xx: float = 0.0
    sum_xs: float = 0.0
    sum_ss: float = 0.0
    hands: int = 0
    voids: int = 0
    banker_changes: int = 0
    shoot_net: Decimal = Decimal(0)
    shot: Decimal = Decimal(0)
    counts: dict[str, int] = field(default_factory=lambda: {k: 0 for k in (*PLAYER_LINES, *BANKER_LINES)})
    line_net: dict[str, Decimal] = field(
        default_factory=lambda: {k: Decimal(0) for k in (*PLAYER_LINES, *BANKER_LINES)}
    )


def simulate_british(
    rules: BritishRules, rounds: int, seed: int, players: int = 4, bots: Bots | None = None
) -> dict[str, Any]:
    """Play ``rounds`` rounds with bots in every seat at one table; figures from the banker's side
    (module doc). Memory does not grow with the rounds: the table keeps balances and drops its
    transfers once published, and the figures are running sums (issue 10 item 7)."""
    if not isinstance(rules, BritishRules):
        raise RulesError(f"simulate_british needs British rules (british, shoot), not {type(rules).__name__}")
    if rounds < 1:
        raise RulesError(f"rounds must be at least 1, got {rounds}")
    if not 1 <= players <= 12:
        raise RulesError(f"players must be 1 to 12 (plus the banker), got {players}")
    bots = bots or Bots()
    seats = [f"p{i + 1}" for i in range(players + 1)]
    sums = _Sums()
    t0 = time.perf_counter()
    game = BritishGame(rules, seats, rng=seed)
    for _ in range(rounds):
        _play_one(game, bots, rules, sums)
    seconds = time.perf_counter() - t0
    return _summary(rules, rounds, players, seed, seconds, sums)


def _play_one(game: BritishGame, bots: Bots, rules: BritishRules, sums: _Sums) -> None:
    """One round at ``game``, its banker-side results added to ``sums``."""
    before = game.banker
    bots.prepare_table(game)
    rnd = game.new_round()
    summary = play_round_started(game, bots, rnd)
    if game.banker != before:
        sums.banker_changes += 1
    if rnd.phase == "void":
        sums.voids += 1
        return
    bnet = summary["net"][rnd.banker]
    s = rnd.initial_stakes()
    x, st = float(bnet["stake"]), float(s)
    sums.n += 1
    sums.sum_x += x
    sums.sum_s += st
    sums.sum_xx += x * x
    sums.sum_xs += x * st
    sums.sum_ss += st * st
    if rules.shoot:
        sums.shoot_net += bnet.get("shoot", Decimal(0))
        sums.shot += sum((h.shoot for h in rnd.hands), Decimal(0))
    players_net = -bnet["stake"]
    for line, hit in (
        ("banker_pontoon", rnd.banker_pontoon),
        ("banker_five_card_trick", rnd.banker_outcome == "five card trick"),
        ("banker_bust", rnd.banker_outcome == "bust"),
    ):
        if hit:
            sums.counts[line] += 1
            sums.line_net[line] += players_net
    for h in rnd.hands:
        sums.hands += 1
        hline = HAND_LINES.get(h.outcome)
        if hline:
            sums.counts[hline] += 1
            sums.line_net[hline] += h.net


HAND_LINES = {
    "pontoon": "pontoon", "royal pontoon": "royal_pontoon", "five card trick": "five_card_trick",
    "bust": "player_bust",
}  # fmt: skip


def _summary(
    rules: BritishRules, rounds: int, players: int, seed: int, seconds: float, sums: _Sums
) -> dict[str, Any]:
    """The report from the running sums: edge (a ratio estimator), its sd and 95% CI, the lines."""
    n = sums.n
    total_stake = sums.sum_s
    edge = sums.sum_x / total_stake if total_stake else 0.0
    mean_s = total_stake / n if n else 0.0
    if n > 1 and mean_s > 0:
        # sum of (x - edge*s)^2 from the running sums
        ss = max(sums.sum_xx - 2 * edge * sums.sum_xs + edge * edge * sums.sum_ss, 0.0)
        sd = math.sqrt(ss / (n - 1)) / mean_s
    else:
        sd = 0.0
    ci95 = 1.96 * sd / math.sqrt(n) if n else 0.0
    lines: dict[str, dict[str, Any]] = {}
    for k, per in ((k, sums.hands) for k in PLAYER_LINES):
        lines[k] = _line(sums, k, per, total_stake)
    for k in BANKER_LINES:
        lines[k] = _line(sums, k, n, total_stake)
    out: dict[str, Any] = {
        "rules": rules.preset,
        "rounds": rounds,
        "players": players,
        "seed": seed,
        "seconds": seconds,
        "rounds_per_second": rounds / seconds if seconds > 0 else float("inf"),
        "house_edge": edge,
        "sd": sd,
        "ci95": ci95,
        "void_rounds": sums.voids,
        "bank_changes": sums.banker_changes,
        "player_hands": sums.hands,
        "lines": lines,
    }
    if rules.shoot:
        out["shoot_edge"] = float(sums.shoot_net / sums.shot) if sums.shot else 0.0
    return out


def _line(sums: _Sums, k: str, per: int, total_stake: float) -> dict[str, Any]:
    return {
        "hits": sums.counts[k],
        "hit_rate": sums.counts[k] / per if per else 0.0,
        "return": float(sums.line_net[k]) / total_stake if total_stake else 0.0,
    }


def play_round_started(game: BritishGame, bots: Bots, rnd: Any) -> dict[str, Any]:
    while not rnd.over:
        seat, verb, amt = bots.decide(rnd)
        rnd.act(seat, verb, amt)
    return game.end_round()


__all__ = ["simulate_british", "play_round"]
