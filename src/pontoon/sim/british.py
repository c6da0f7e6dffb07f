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
from decimal import Decimal
from typing import Any

from pontoon.british.bots import Bots, play_round
from pontoon.british.table import BritishGame
from pontoon.errors import RulesError
from pontoon.rules.british import BritishRules

PLAYER_LINES = ("pontoon", "royal_pontoon", "five_card_trick", "player_bust")
BANKER_LINES = ("banker_pontoon", "banker_five_card_trick", "banker_bust")


def simulate_british(
    rules: BritishRules, rounds: int, seed: int, players: int = 4, bots: Bots | None = None
) -> dict[str, Any]:
    if not isinstance(rules, BritishRules):
        raise RulesError(f"simulate_british needs British rules (british, shoot), not {type(rules).__name__}")
    if rounds < 1:
        raise RulesError(f"rounds must be at least 1, got {rounds}")
    if not 1 <= players <= 12:
        raise RulesError(f"players must be 1 to 12 (plus the banker), got {players}")
    bots = bots or Bots()
    seats = [f"p{i + 1}" for i in range(players + 1)]
    game = BritishGame(rules, seats, rng=seed)
    # running sums (memory does not grow with the rounds: issue 10 item 7)
    n = 0
    sum_x = sum_s = sum_xx = sum_xs = sum_ss = 0.0
    hands = 0
    counts = {k: 0 for k in (*PLAYER_LINES, *BANKER_LINES)}
    line_net = {k: Decimal(0) for k in counts}
    shoot_net = Decimal(0)
    shot = Decimal(0)
    voids = 0
    banker_changes = 0
    t0 = time.perf_counter()
    for _ in range(rounds):
        before = game.banker
        bots.prepare_table(game)
        rnd = game.new_round()
        summary = play_round_started(game, bots, rnd)
        if game.banker != before:
            banker_changes += 1
        if rnd.phase == "void":
            voids += 1
            continue
        bnet = summary["net"][rnd.banker]
        s = rnd.initial_stakes()
        x, st = float(bnet["stake"]), float(s)
        n += 1
        sum_x += x
        sum_s += st
        sum_xx += x * x
        sum_xs += x * st
        sum_ss += st * st
        if rules.shoot:
            shoot_net += bnet.get("shoot", Decimal(0))
            shot += sum((h.shoot for h in rnd.hands), Decimal(0))
        players_net = -bnet["stake"]
        for line, hit in (
            ("banker_pontoon", rnd.banker_pontoon),
            ("banker_five_card_trick", rnd.banker_outcome == "five card trick"),
            ("banker_bust", rnd.banker_outcome == "bust"),
        ):
            if hit:
                counts[line] += 1
                line_net[line] += players_net
        for h in rnd.hands:
            hands += 1
            hline = {"pontoon": "pontoon", "royal pontoon": "royal_pontoon", "five card trick": "five_card_trick",
                     "bust": "player_bust"}.get(h.outcome)
            if hline:
                counts[hline] += 1
                line_net[hline] += h.net
    seconds = time.perf_counter() - t0
    total_stake = sum_s
    edge = sum_x / total_stake if total_stake else 0.0
    mean_s = total_stake / n if n else 0.0
    if n > 1 and mean_s > 0:
        # sum of (x - edge*s)^2 from the running sums
        ss = max(sum_xx - 2 * edge * sum_xs + edge * edge * sum_ss, 0.0)
        sd = math.sqrt(ss / (n - 1)) / mean_s
    else:
        sd = 0.0
    ci95 = 1.96 * sd / math.sqrt(n) if n else 0.0
    lines: dict[str, dict[str, Any]] = {}
    for k in PLAYER_LINES:
        lines[k] = {"hits": counts[k], "hit_rate": counts[k] / hands if hands else 0.0,
                    "return": float(line_net[k]) / total_stake if total_stake else 0.0}
    for k in BANKER_LINES:
        lines[k] = {"hits": counts[k], "hit_rate": counts[k] / n if n else 0.0,
                    "return": float(line_net[k]) / total_stake if total_stake else 0.0}
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
        "void_rounds": voids,
        "bank_changes": banker_changes,
        "player_hands": hands,
        "lines": lines,
    }
    if rules.shoot:
        out["shoot_edge"] = float(shoot_net / shot) if shot else 0.0
    return out


def play_round_started(game: BritishGame, bots: Bots, rnd: Any) -> dict[str, Any]:
    while not rnd.over:
        seat, verb, amt = bots.decide(rnd)
        rnd.act(seat, verb, amt)
    return game.end_round()


__all__ = ["simulate_british", "play_round"]
