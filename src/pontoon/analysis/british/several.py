"""Several players (issue 27 item 3): the banker against N players who play the solved heads-up strategy.

With several players the banker plays one hand against all of them. What is exact here, for every N:

- Exchangeability: when every player decides from his own cards only (the solved heads-up strategy does) and
  the banker from his own cards only, the other players' cards are unseen cards to both, so each player's
  result has exactly its heads-up distribution (the pack never runs out: 8 people x 5 cards <= 52). Hence
  the banker's **exact best response among the strategies that read his own cards only** (``blind``) to N
  solved players is the heads-up one, for every N, and the players' exact best response to that banker too.
- A banker who also reads what the players show can do better. Against one player that is the heads-up best
  response (``seeing_one``); against N players his exact best response reading every hand is
  ``reading.Reader`` (the joint posterior over every hand's face-down cards, exact card removal), and
  ``reading_sample.sample_reading`` gives its edge: the exact blind edge plus the sampled gain of reading
  every hand, deal by deal exact from his turn on. ``sample`` plays paired engine rounds against the
  ``solved`` bots' banker (the sum over the live hands of each hand's heads-up values: an approximation).
- The players' best response to that banker: heads-up exact (``values.player_q``); with N players exact on
  reduced packs (``reading_response``) and, for a full pack, a sampled lower bound on one player's gain
  from fixed deviations (``reading_response_sample``): the banker's edge against it is an upper bound.

All figures are per player and per initial stake; the banker's edge is minus the player's value.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pontoon.analysis.british.reading import blind_response
from pontoon.analysis.british.reading_response_sample import sample_response
from pontoon.analysis.british.reading_sample import sample_reading
from pontoon.analysis.british.strategy import solved
from pontoon.analysis.british.values import banker_response, player_flow, player_q
from pontoon.rules.british import BritishRules


def several(
    rules: BritishRules, players: int, *, rounds: int = 0, seed: int | None = None, log: Any = None
) -> dict[str, Any]:
    """The banker's edge against ``players`` solved players, one pack and two (docs/analysis.md)."""
    if not 1 <= players <= 7:
        raise ValueError(
            f"players {players}: accepted 1 to 7 (a one-pack table seats 7 players and the banker)"
        )
    t0 = time.perf_counter()
    out: dict[str, Any] = {"players": players, "packs_by_rule": rules.packs_for(players + 1), "by_packs": {}}
    for packs in (1, 2):
        r = rules.with_(packs=packs)
        sol = solved(r, log=log)
        value, pbr, bbr = sol.quality()
        tw, blind = blind_response(sol)
        _, _, vs_blind = player_q(sol.game, sol.tables, tw)
        row: dict[str, Any] = {
            "solution_heads_up": -value,
            "seeing_one": -bbr,
            "blind": -blind,
            "players_best_response_to_blind": -float(vs_blind),
            "exploitability_heads_up": pbr - bbr,
        }
        if players == 1:
            row["reading"] = {"edge": -bbr, "edge_se": 0.0, "exact": True}  # heads-up: seeing one hand
            row["players_best_response"] = _heads_up_response(sol)
        if rounds > 0:
            row["sampled"] = sample(r, players, rounds, seed)  # the solved bots' banker (an approximation)
            if players > 1:
                try:
                    got = sample_reading(r, players, rounds, seed)
                    row["players_best_response"] = _sampled_response(r, players, rounds, seed)
                except ValueError as err:  # a reduced pack that can run out
                    row["reading"] = {"refused": str(err)}
                    out["by_packs"][str(packs)] = row
                    continue
                # the exact blind edge plus the sampled gain of reading every hand (reading.py)
                row["reading"] = {
                    "edge": -blind + got["gain"],
                    "edge_se": got["gain_se"],
                    "exact": False,
                    "sampled": got,
                }
        out["by_packs"][str(packs)] = row
    out["seconds"] = time.perf_counter() - t0
    return out


def _heads_up_response(sol: Any) -> dict[str, Any]:
    """Heads-up: the player's exact best response to the banker's best response to the solution (reading
    the one hand; he stays where the solved player never goes), the banker's edge against it."""
    g, tb = sol.game, sol.tables
    br, _, _ = banker_response(g, tb, player_flow(g, sol.sigma))
    _, _, v = player_q(g, tb, br)
    return {"edge": -float(v), "edge_se": 0.0, "exact": True}


def _sampled_response(rules: BritishRules, players: int, rounds: int, seed: int | None) -> dict[str, Any]:
    """N >= 2: the banker's edge against one player playing the better-estimated of the fixed deviations of
    ``reading_response_sample`` (the others solved): an upper bound on his edge against the players' best
    response, up to its standard error (see docs/analysis.md "Several players")."""
    got = sample_response(rules, players, rounds, seed)
    name = max(got["deviations"], key=lambda k: got["deviations"][k]["gain"])
    dev = got["deviations"][name]
    return {"edge": dev["edge"], "edge_se": dev["edge_se"], "exact": False, "deviation": name, "sampled": got}


def sample(rules: BritishRules, players: int, rounds: int, seed: int | None) -> dict[str, float]:
    """Paired engine rounds of N solved players, each deal played twice from the same shuffled pack with the
    same players' random stream: once against the ``solved`` bots' banker (reading every hand), once against
    the exact blind best response. The banker's edge per player and initial stake of each (``seeing``,
    ``blind``) and of their difference, with standard errors (the pairing cancels most of the deal's
    variance in the difference; the blind one checks the exact figure)."""
    from pontoon.analysis.british.bots import make_bots
    from pontoon.analysis.british.infosets import card_class
    from pontoon.british.pack import BritishPack, one_pack
    from pontoon.british.round import BritishRound

    sol = solved(rules)
    tw_blind, _ = blind_response(sol)
    bots: Any = make_bots("solved", rules, np.random.default_rng(0))
    seats = [f"p{i}" for i in range(players)]
    base: int = int(np.random.SeedSequence().entropy) if seed is None else seed  # type: ignore[arg-type]
    xs = np.zeros((rounds, 2))
    for j in range(rounds):
        for kind in (0, 1):
            deck = np.random.default_rng([base, j, 0])
            bots.rng = np.random.default_rng([base, j, 1])
            pack = BritishPack.shuffled(rules.packs_for(players + 1), deck, one_pack(rules))
            rnd = BritishRound(rules, seats, "bank", pack, kitty=rules.kitty_max if rules.shoot else 0)
            while not rnd.is_over():
                if kind == 1 and rnd.phase == "banker":
                    k = sol.game.banker_index.get(tuple(sorted(card_class(str(c)) for c in rnd.banker_cards)))
                    can = any(a.verb == "twist" for a in rnd.legal_actions())
                    rnd.act("bank", "twist" if can and k is not None and tw_blind[0, k] > 0.5 else "stick")
                    continue
                seat, verb, amt = bots.decide(rnd)
                rnd.act(seat, verb, amt)
            xs[j, kind] = float(rnd.net()["bank"]["stake"] / rules.stake_min) / players
    se = xs.std(axis=0, ddof=1) / np.sqrt(rounds) if rounds > 1 else np.zeros(2)
    d = xs[:, 0] - xs[:, 1]
    return {
        "rounds": rounds,
        "seeing": float(xs[:, 0].mean()),
        "seeing_se": float(se[0]),
        "blind": float(xs[:, 1].mean()),
        "blind_se": float(se[1]),
        "difference": float(d.mean()),
        "difference_se": float(d.std(ddof=1) / np.sqrt(rounds)) if rounds > 1 else 0.0,
    }


def print_several(rep: dict[str, Any], echo: Any) -> None:
    """The terminal table: the banker's edge per player against ``players`` solved players."""
    n = rep["players"]
    echo(
        f"several players: {n} playing the solved strategy ({rep['packs_by_rule']} pack(s) by the rules at "
        f"{n + 1} people); the banker's edge per player, one pack and two:"
    )
    echo("  packs  heads-up solution  blind best response  players' best response to it  seeing one hand")
    for packs, row in rep["by_packs"].items():
        echo(
            f"  {packs:>5}  {row['solution_heads_up']:>+17.4%}  {row['blind']:>+19.4%}  "
            f"{row['players_best_response_to_blind']:>+28.4%}  {row['seeing_one']:>+14.4%}"
        )
        if "reading" in row and "refused" in row["reading"]:
            echo(
                f"         his exact best response reading every hand: not sampled, {row['reading']['refused']}"
            )
        elif "reading" in row:
            rd = row["reading"]
            how = "exact" if rd["exact"] else f"+/- {rd['edge_se']:.4%} ({rd['sampled']['rounds']} rounds)"
            echo(f"         his exact best response reading every hand: {rd['edge']:+.4%} {how}")
            if "players_best_response" in row:
                pb = row["players_best_response"]
                if pb["exact"]:
                    echo(f"         against the player's best response to him: {pb['edge']:+.4%} exact")
                else:
                    d = pb["sampled"]["deviations"][pb["deviation"]]
                    echo(
                        f"         against one player's {pb['deviation']} deviation (a bound on the best response): "
                        f"{pb['edge']:+.4%} +/- {pb['edge_se']:.4%}, the deviation's gain {d['gain']:+.4%} "
                        f"+/- {d['gain_se']:.4%} ({pb['sampled']['rounds']} rounds)"
                    )
        if "sampled" in row:
            sm = row["sampled"]
            echo(
                f"         engine rounds, the solved bots' banker: {sm['seeing']:+.4%} +/- {sm['seeing_se']:.4%}, "
                f"the blind one: {sm['blind']:+.4%} +/- {sm['blind_se']:.4%} ({sm['rounds']} rounds)"
            )
    echo(
        "  blind: his exact best response reading his own cards only, the same for every N (docs/analysis.md "
        "'Several players'); seeing one hand: the heads-up best response, for reference; reading every hand: "
        "the blind edge plus the sampled gain of his exact best response at each deal"
    )
    echo(
        "  the players' best response to the banker reading every hand, fitted and bracketed (2 players: his edge "
        "+2.70% to +2.76% one pack, +1.65% to +1.97% two): python bench/british_best_response.py N PACKS FIT EVAL; "
        "3 to 7 players from pooled runs (all 10 cells within +/-0.2% with the blind banker's values as a control "
        "variate): python bench/device_nbr.py run|control|pool (docs/analysis.md 'Several players', 'Pooled runs')"
    )
