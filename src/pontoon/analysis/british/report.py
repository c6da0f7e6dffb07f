"""``pontoon analyze --rules british|shoot`` (issue 27 item 3): the banker's edge at the solution and against
the house banker, both sides' strategy charts, Shoot's shoot bet values; JSON shaped as the casino report
(docs/analysis.md "British Pontoon")."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pontoon.analysis.british.game import ACE, BUY_GRID, NAMES, Game, banker_can_twist, best, hard
from pontoon.analysis.british.solve import Solution, _k_player_q, flatten, solve
from pontoon.analysis.british.values import (
    Tables,
    _k_stay,
    banker_reach_full,
    house_banker,
    player_q,
    strategy_value,
)
from pontoon.rules.british import BritishRules

CODES = {"stick": "S", "twist": "T", "buy2": "B", "buy1": "b"}
HOUSE_STAYS_ON = 17


def _cell(mix: dict[str, float]) -> str:
    """An action mix as a chart cell: ``T``, or ``T 62% S 38%`` where no action has 99% or more."""
    items = sorted(((w, a) for a, w in mix.items() if w >= 0.005), reverse=True)
    if not items:
        return "-"
    if items[0][0] >= 0.99:
        return CODES.get(items[0][1], items[0][1])
    return " ".join(f"{CODES.get(a, a)} {w:.0%}" for w, a in items)


def _label(cards: tuple[int, ...]) -> tuple[str, int]:
    soft = ACE in cards and hard(cards) + 10 <= 21
    return ("soft" if soft else "hard"), best(cards)


def player_chart(g: Game, sigma: list[np.ndarray]) -> dict[str, dict[str, str]]:
    """The solved player's first decision on his two cards, by total (compositions weighted by chance)."""
    acc: dict[tuple[str, int], dict[str, float]] = {}
    for n, p in g.roots:
        if n < 0:
            continue
        s = g.nodes[n]
        mix = acc.setdefault(_label(s.cards), {})
        for a, w in zip(s.actions, sigma[n], strict=True):
            mix[a] = mix.get(a, 0.0) + p * w
    out: dict[str, dict[str, str]] = {"hard": {}, "soft": {}}
    for (kind, total), mix in sorted(acc.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        z = sum(mix.values())
        out[kind][str(total)] = _cell({a: w / z for a, w in mix.items()})
    return out


def decision_values(g: Game, tb: Tables, tw: np.ndarray) -> dict[str, dict[str, dict[str, float]]]:
    """The exact value of each first decision on two cards against the banker's strategy ``tw``, per initial
    stake, given that the banker has no Pontoon (what the player knows when he decides: 003 "immediately
    exposed"), by total (compositions weighted by chance)."""
    from pontoon.analysis.british.game import multiset_p

    q, _, _ = player_q(g, tb, tw)
    collects = float(g.rules.banker_pontoon_collects)
    acc: dict[tuple[str, int], dict[str, list[float]]] = {}
    for n, p in g.roots:
        if n < 0:
            continue
        s = g.nodes[n]
        bp = multiset_p(g.counts, s.cards, g.pontoon)
        w = p * (1 - bp)
        row = acc.setdefault(_label(s.cards), {})
        for a, x in zip(s.actions, q[n], strict=True):
            cond = (float(x) + collects * bp) / (1 - bp)
            cell = row.setdefault(a, [0.0, 0.0])
            cell[0] += w * cond
            cell[1] += w
    out: dict[str, dict[str, dict[str, float]]] = {"hard": {}, "soft": {}}
    for (kind, total), row in sorted(acc.items()):
        out[kind][str(total)] = {a: v / wt for a, (v, wt) in row.items()}
    return out


def _seen(o: tuple[tuple[int, ...], tuple[float, ...]]) -> str:
    up, buys = o[0], o[1]
    n = 2 + len(up) + len(buys)
    if n == 5:
        return "five cards"
    if n == 2:
        return "two cards"
    if n == 3:
        return "3, bought" if buys else "3, twisted"
    return "4 cards"


COLUMNS = ("two cards", "3, bought", "3, twisted", "4 cards", "five cards")


def banker_chart(g: Game, tb: Tables, sigma: list[np.ndarray], tw: np.ndarray) -> dict[str, dict[str, str]]:
    """The solved banker's play by his total (rows) and what he sees of the player (columns): the chance he
    twists, weighted by how often each observation and hand arises."""
    from pontoon.analysis.british.values import player_flow

    y = player_flow(g, sigma)
    mass = np.zeros((len(g.obs), len(g.banker)))
    ones = np.ones((23, len(g.banker)))
    _k_stay(tb.f_kind, tb.f_obs, tb.f_pset, tb.f_total, np.ones_like(tb.f_stake), tb.prob, y, ones, mass)
    reach, _ = banker_reach_full(g, tb, tw)
    mass *= reach
    acc: dict[tuple[str, int], dict[str, list[float]]] = {}
    for k, h in enumerate(g.banker):
        if not banker_can_twist(h) or best(h) < 12:
            continue
        row = acc.setdefault(_label(h), {})
        for o, obs in enumerate(g.obs):
            cell = row.setdefault(_seen(obs), [0.0, 0.0])
            cell[0] += mass[o, k] * tw[o, k]
            cell[1] += mass[o, k]
    out: dict[str, dict[str, str]] = {}
    for (kind, total), row in sorted(acc.items()):
        out[f"{kind} {total}"] = {
            c: (
                _cell({"twist": row[c][0] / row[c][1], "stick": 1 - row[c][0] / row[c][1]})
                if row[c][1] > 0
                else "-"
            )
            for c in COLUMNS
            if c in row
        }
    return out


def shoot_values(g: Game, tb: Tables, sol: Solution) -> dict[str, Any]:
    """003 Shoot: a shoot bet of one stake (won 1 if the hand beats the banker, else lost) under the solved
    strategies, as if it changed neither side's play: before the second card, by the first card; and before
    the fourth card of a three-card hand (003 Shoot "The fourth card"; rul 31: it commits him to take the card,
    so his drawing actions are played in the solved proportions), by its total, given no banker Pontoon."""
    from pontoon.analysis.british.game import BUST, FIVE, PONTOON, ROYAL, multiset_p
    from pontoon.analysis.british.values import banker_reach, payoff_matrix

    end = banker_reach(g, tb, sol.tw)
    pay = np.sign(payoff_matrix(g, tb))
    tv = np.zeros(len(g.terminals))
    for i, t in enumerate(g.terminals):
        bp = multiset_p(g.counts, t.cards, g.pontoon)  # 003: "all the shoot bets are added to the pot"
        if t.kind == BUST:
            tv[i] = -1.0  # 003 Shoot "Going bust": the shoot bet goes to the kitty
        elif t.kind in (PONTOON, ROYAL):
            tv[i] = (1 - bp) - bp
        else:
            k = 22 if t.kind == FIVE else t.total
            w = tb.prob[tb.f_pset[i]] * end[t.obs] * pay[k]
            tv[i] = -bp + float(w.sum())
    fl = flatten(g, tb)
    flat_sigma = np.concatenate(sol.sigma)
    q = np.zeros(len(fl.kid_start) - 1)
    v = np.zeros(len(g.nodes))
    _k_player_q(fl.order, fl.act_start, fl.kid_start, fl.kid, fl.kid_p, flat_sigma, tv, q, v, False)
    pair_value = {}
    for n, p in g.roots:
        cards = g.terminals[-1 - n].cards if n < 0 else g.nodes[n].cards
        pair_value[cards] = (float(tv[-1 - n]) if n < 0 else float(v[n]), p)
    out = {}
    for c in range(len(NAMES)):
        num = den = 0.0
        for cards, (val, p) in pair_value.items():
            if c in cards:
                share = p * cards.count(c) / 2  # the chance the first card is c and the pair is ``cards``
                num += share * val
                den += share
        if den > 0:
            out[NAMES[c]] = num / den
    return {"first_card": out, "fourth_card": _fourth_card(g, sol, q, fl.act_start)}


def _fourth_card(g: Game, sol: Solution, q: np.ndarray, act_start: np.ndarray) -> dict[str, dict[str, float]]:
    from pontoon.analysis.british.game import multiset_p
    from pontoon.analysis.british.values import player_reach

    mass, _ = player_reach(g, sol.sigma)
    acc: dict[tuple[str, int], list[float]] = {}
    for i, s in enumerate(g.nodes):
        cards = s.cards
        draws = [k for k, a in enumerate(s.actions) if a != "stick"]
        if len(cards) != 3 or not draws or mass[i] == 0.0:
            continue
        w = sol.sigma[i][draws]
        share = w / w.sum() if w.sum() > 0 else np.full(len(draws), 1 / len(draws))
        x = float(share @ q[act_start[i] + np.array(draws)])
        bp = multiset_p(g.counts, cards, g.pontoon)
        cell = acc.setdefault(_label(cards), [0.0, 0.0])
        cell[0] += mass[i] * (x + bp) / (1 - bp)  # he knows the banker has no Pontoon
        cell[1] += mass[i]
    out: dict[str, dict[str, float]] = {"hard": {}, "soft": {}}
    for (kind, total), (num, den) in sorted(acc.items()):
        out[kind][str(total)] = num / den
    return out


def stake_signal(g: Game, tb: Tables, sol: Solution, ratio: float) -> dict[str, Any]:
    """What the initial stake is worth as a choice (003: the player stakes "any amount within these limits"
    after looking at his first card; the solved game stakes one unit): the player stakes ``ratio`` units
    (the maximum over the minimum) on an ace first card and one unit otherwise, plays his hands as solved,
    and the banker, who sees the stake, plays his exact best response to each pool. A lower bound on what
    the player gets in the game with the stake as a choice (he can always play this)."""
    import dataclasses

    from pontoon.analysis.british.values import banker_response, player_flow

    pools = []
    for aces in (True, False):
        roots = []
        for n, p in g.roots:
            cards = g.terminals[-1 - n].cards if n < 0 else g.nodes[n].cards
            first = (
                sum(1 for c in cards if (c == ACE) == aces) / 2
            )  # the chance his first card is in the pool
            roots.append((n, p * first))
        sub = dataclasses.replace(g, roots=roots)
        _, _, value = banker_response(sub, tb, player_flow(sub, sol.sigma))
        pools.append((value, sum(p for _, p in roots)))
    (va, pa), (vn, pn) = pools
    money = ratio * va + vn
    staked = ratio * pa + pn
    return {
        "strategy": "stake the maximum on an ace first card, the minimum otherwise; hands as solved; the banker "
        "sees the stake and best-responds",
        "ratio": ratio,
        "player_per_round": money,  # in minimum stakes
        "player_per_unit_staked": money / staked,
        "ace_first_card_per_stake": va / pa,
        "other_first_card_per_stake": vn / pn,
    }


RESPLITS_SOLVE_SHARE = 0.1


def solve_target(rules: BritishRules, target: float, resplits: bool) -> float:
    """The exploitability the game without splits is solved to for a report to ``target``. Splits (full
    packs): the split deviation left against the banker's own play facing a split is worth about 0.0005 of a
    stake (split_banker.py), so half the target, for the exploitability with splits to be within it
    (docs/analysis.md "A split as a deviation"). With the resplit bound asked (``--resplits``, full packs): a
    tenth of it, for the exploitability with splits plus the bound on what resplits add (up to 0.00024) to be
    within it on one and two packs (docs/analysis.md "Resplits": two packs 0.001127 at half the target)."""
    if rules.max_split_hands < 2 or rules.reduced_pack:
        return target
    return target * RESPLITS_SOLVE_SHARE if resplits and rules.max_split_hands >= 3 else target / 2


def analyze_british(
    rules: BritishRules,
    *,
    target: float = 1e-3,
    log: Any = None,
    split_reading: bool = False,
    resplits: bool = False,
    resplits_exact: bool = False,
) -> dict[str, Any]:
    t0 = time.perf_counter()
    sol = solve(rules, target=solve_target(rules, target, resplits), check_every=25, log=log)
    g, tb = sol.game, sol.tables
    house = house_banker(g, HOUSE_STAYS_ON)
    _, _, vs_house = player_q(g, tb, house)
    report: dict[str, Any] = {
        "game": "british",
        "rules": rules.model_dump(mode="json"),
        "model": {
            "players": 1,
            "packs": rules.packs_for(2),
            "stake": "one initial stake (every payment is a multiple of it); the stake chosen after the first "
            "card: --stake-grid (stake_game), stake_signal a lower bound",
            "buy_grid": list(BUY_GRID),
            "splits": "never in the solution; the player's best response may split any pair once (two ten-value "
            "cards where of one rank: 003) against the banker's play facing a split (his own cards and each split "
            "hand's bust or number of cards: split_deviation, with_split_banker); the banker's best response reads everything he sees (no split in the profile: "
            "none met; --split-reading: the profile splits where the split holds against a banker reading the "
            "split hands, reading_profile)"
            if rules.max_split_hands >= 2
            else "not offered (max_split_hands 1)",
            "cards": "by point value" + (", tens and pictures apart" if rules.ace_ten_not_pontoon else ""),
            "pontoon_grades": "exact at the player's Pontoon (rul 29)"
            if rules.natural_beats_plain or rules.ace_picture_beats_ace_ten
            else "none",
            "not_modelled": "splits: a second split (003 allows up to four hands) is not in the best response with "
            "splits (a lower bound; the exploitability with splits exact for the game without resplits; "
            "split_deviation.resplits: how often one would be offered); --resplits bounds what resplits add "
            "(split_deviation.resplits.bound: split_resplit_bound and split_resplit_tight, rigorous, tens of minutes of CPU; the banker facing three or "
            "four hands the house banker), --resplits-exact values them (split_deviation.resplits.exact: "
            "split_resplit_fast, hours a pair on a full pack; ten-value pairs not resplit there); "
            "the banker facing a split reads a summary "
            "(his own cards, each split hand's bust or number of cards): --split-reading measures what reading "
            "everything would gain (reading_profile.full_view: its gain against the player's best split, and the "
            "most it could lower the exploitability)"
            + ("; a second burn (one burn a round: a lower bound)" if rules.burn != "none" else ""),
            "player_states": len(g.nodes),
            "banker_observations": len(g.obs),
            "banker_hands": len(g.banker),
        },
        "banker_edge": {
            "solution": -sol.value,
            "house_banker": -float(vs_house),
            "house_banker_vs_solved_player": -strategy_value(g, tb, sol.sigma, house),
        },
        "solution": {
            "solver": "CFR+",
            "player_value": sol.value,
            "exploitability": sol.exploitability,
            "player_best_response": sol.player_br,
            "banker_best_response": sol.banker_br,
            "iterations": sol.iterations,
            "solve_seconds": sol.seconds,
        },
        "house_banker": f"twists below {HOUSE_STAYS_ON} (his best total), stays on {HOUSE_STAYS_ON} or more",
        "strategy": {"player": player_chart(g, sol.sigma), "banker": banker_chart(g, tb, sol.sigma, sol.tw)},
        "decision_values": decision_values(g, tb, sol.tw),
        "stake_signal": stake_signal(g, tb, sol, float(rules.stake_max / rules.stake_min)),
    }
    if rules.shoot:
        report["shoot"] = shoot_values(g, tb, sol)
    if rules.max_split_hands >= 2:
        # splits.py / split_fast.py: exact, every pair, seconds on 52 or 104 cards
        from pontoon.analysis.british.split_banker import resplit_chances, with_split_banker
        from pontoon.analysis.british.split_fast import SPLIT_CLASSES
        from pontoon.analysis.british.splits import split_deviation

        twists: dict[int, Any] = {}
        # the banker facing a split reads his own cards and, of each split hand, a bust or its number of cards
        dev = with_split_banker(
            g, split_deviation(g, tb, sol.tw), rounds=4, twists=twists, nphi=SPLIT_CLASSES
        )
        dev["exploitability_with_splits"] = dev["player_best_response_with_splits"] - sol.banker_br
        sb = dev["with_split_banker"]
        sb["exploitability_with_splits"] = sb["player_best_response_with_splits"] - sol.banker_br
        dev["resplits"] = resplit_chances(g, dev)  # 003: up to four hands
        if resplits and not rules.reduced_pack:  # split_resplit_tight.py: tens of minutes of CPU
            from pontoon.analysis.british.split_resplit_bound import bound_profile

            bound = bound_profile(g, dev, twists)
            bound["exploitability_with_resplits_at_most"] = (
                sb["exploitability_with_splits"] + bound["gain_bound"]
            )
            dev["resplits"]["bound"] = bound
        if resplits and (
            resplits_exact or rules.reduced_pack
        ):  # split_resplit_fast.py: exactly (hours a pair
            from pontoon.analysis.british.split_resplit import resplit_profile  # on a full pack)

            dev["resplits"]["exact"] = resplit_profile(g, dev, twists, sol.banker_br)
        if split_reading:  # split_reading.py: the banker facing a split reading the split hands
            from pontoon.analysis.british.split_reading import reading_profile

            dev["reading_profile"] = reading_profile(g, tb, sol.sigma, dev, twists, sol.banker_br)
        report["split_deviation"] = dev
    report["seconds"] = time.perf_counter() - t0
    return report


def print_british(report: dict[str, Any], echo: Any) -> None:
    """The terminal report: edges, the solution's quality, both charts (and Shoot's values)."""
    r, e, s = report["rules"], report["banker_edge"], report["solution"]
    echo(f"{r['name'] or r['preset']} (003), heads-up, {report['model']['packs']} pack(s)")
    echo(f"banker's edge at the solution: {e['solution']:+.4%} of the initial stake")
    echo(f"  exploitability {s['exploitability']:.6f} ({s['solver']}, {s['iterations']} iterations)")
    echo(f"banker's edge, house banker ({report['house_banker']}):")
    echo(
        f"  against the player's best response {e['house_banker']:+.4%}; against the solved player "
        f"{e['house_banker_vs_solved_player']:+.4%}"
    )
    st = report["stake_signal"]
    echo(
        f"stakes from the minimum to {st['ratio']:g} x it: staking the maximum on an ace first card only, the player"
    )
    echo(f"  wins {st['player_per_unit_staked']:+.4f} per unit staked against the banker's best response")
    echo(
        f"  (ace first: {st['ace_first_card_per_stake']:+.3f} per stake; others: {st['other_first_card_per_stake']:+.3f})"
    )
    echo("player, first decision on two cards (S stick, T twist, B buy for 2 stakes, b buy for 1):")
    for kind in ("hard", "soft"):
        row = report["strategy"]["player"][kind]
        echo(f"  {kind}: " + "  ".join(f"{t}:{c}" for t, c in row.items()))
    echo("value of each first decision against the solved banker (per stake, no banker Pontoon):")
    for kind in ("hard", "soft"):
        for t, row in report["decision_values"][kind].items():
            echo(f"  {kind} {t:>2}: " + "  ".join(f"{CODES.get(a, a)} {v:+.3f}" for a, v in row.items()))
    echo("banker (twist T / stay S) by his total and what he sees of the player:")
    echo("  " + " | ".join(f"{c:>12}" for c in ("total", *COLUMNS)))
    for label, row in report["strategy"]["banker"].items():
        echo("  " + " | ".join(f"{x:>12}" for x in (label, *(row.get(c, "-") for c in COLUMNS))))
    if "shoot" in report:
        echo("shoot bet before the second card, value per stake by first card:")
        echo("  " + "  ".join(f"{c}:{v:+.3f}" for c, v in report["shoot"]["first_card"].items()))
        echo("shoot bet before the fourth card (three cards), value per stake by total:")
        for kind, row in report["shoot"]["fourth_card"].items():
            echo(f"  {kind}: " + "  ".join(f"{t}:{v:+.3f}" for t, v in row.items()))
    if "split_deviation" in report:
        dev = report["split_deviation"]
        echo(
            "split once against the simple banker facing a split (per stake; not split: against the solved banker):"
        )
        echo("  " + "  ".join(f"{k}:{d['split']:+.3f}/{d['no_split']:+.3f}" for k, d in dev["pairs"].items()))
        echo(f"  exploitability with splits {dev['exploitability_with_splits']:.6f}")
        bounds = {k: d["split_banker"]["upper"] for k, d in dev["pairs"].items() if "split_banker" in d}
        if bounds:
            echo(
                "  the banker facing a split playing his own (split_banker.py: his cards, and of each split hand a"
                " bust or its number of cards), the split's value at most:"
            )
            echo("  " + "  ".join(f"{k}:{u:+.3f}" for k, u in bounds.items()))
        sb = dev["with_split_banker"]["exploitability_with_splits"]
        echo(
            f"  exploitability with splits, the player never splitting and that banker facing a split {sb:.6f}"
        )
        rs = dev["resplits"]
        offered = (
            f"offered on {rs['per_round']:.4%} of rounds of the player's best response ("
            + ", ".join(f"{k} {v:.4%}" for k, v in rs["pairs"].items())
            + ")"
        )
        if "bound" in rs:
            bd = rs["bound"]
            echo(f"  resplits (003: up to four hands; --resplits, {bd['seconds']:.0f} s): {offered}")
            echo(
                "  a rigorous bound (split_resplit_bound.py: every unseen card drawn from the pack most favourable to"
                " the player), per pair the split, its bound with resplits, the pair unsplit:"
            )
            echo(
                "  "
                + "  ".join(
                    f"{k}:{d['split']:+.3f}/{d['split_with_resplits_bound']:+.3f}/{d['no_split']:+.3f}"
                    for k, d in bd["pairs"].items()
                )
            )
            echo(
                f"  resplits add at most {bd['gain_bound']:.6f} to the player's best response (the banker's is "
                f"unchanged): exploitability with splits and resplits at most "
                f"{bd['exploitability_with_resplits_at_most']:.6f} (at least {sb:.6f}, without them)"
            )
        if "exact" not in rs and "bound" not in rs:
            echo(
                f"  resplits (003: up to four hands) not analysed: {offered}; --resplits bounds their gain "
                "(tens of minutes of CPU), --resplits-exact values them (hours a pair on 52 or 104 cards)"
            )
        elif "exact" in rs:
            ex = rs["exact"]
            echo(f"  resplits (003: up to four hands; --resplits, {ex['seconds']:.0f} s): {offered}")
            echo(
                "  the split without/with resplits against that banker (facing three or four hands the house "
                "banker), the pair unsplit:"
            )
            echo(
                "  "
                + "  ".join(
                    f"{k}:{d['split']:+.4f}/{d['split_with_resplits']:+.4f}/{d['no_split']:+.4f}"
                    for k, d in ex["pairs"].items()
                )
            )
            echo(
                f"  exploitability with splits and resplits {ex['exploitability_with_resplits']:.6f} (another play "
                f"of the banker facing three or four hands could lower it by at most {ex['three_or_four_bound']:.6f})"
            )
        if "reading_profile" in dev:
            rp = dev["reading_profile"]
            echo("  the banker facing a split reading the split hands (split_reading.py): the split's value")
            echo("  guaranteed to the player's best split against that banker, against the pair unsplit:")
            echo(
                "  "
                + "  ".join(
                    f"{k}:{d['guaranteed']:+.4f}/{dev['pairs'][k]['no_split']:+.4f}"
                    + (" split" if d["split_in_profile"] else "")
                    for k, d in rp["pairs"].items()
                )
            )
            echo(
                f"  exploitability with splits, the player splitting those pairs {rp['exploitability_with_splits']:.6f}"
            )
            fv = rp["full_view"]
            echo(
                f"  the banker's full view facing a split against his summary play: gains {fv['gain']:.6f} per "
                f"round against the player's best split; lowers the never-split profile's exploitability by at "
                f"most {fv['bound']:.6f}"
            )
    notes = report["model"]
    echo(f"model: splits {notes['splits']}; buys on the grid {notes['buy_grid']} x the initial stake")
    echo(f"  not modelled: {notes['not_modelled']}")
    echo(f"({report['seconds']:.1f} s)")


def save_british_chart(report: dict[str, Any], path: str) -> None:
    """Both charts as one picture (matplotlib, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    player = [(f"{k} {t}", c) for k in ("hard", "soft") for t, c in report["strategy"]["player"][k].items()]
    banker = list(report["strategy"]["banker"].items())
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 0.3 * (max(len(player), len(banker)) + 5)))
    for ax in (a1, a2):
        ax.axis("off")
    a1.table(
        cellText=[[n, c] for n, c in player],
        colLabels=["player's two cards", "first decision"],
        loc="upper center",
    )
    a2.table(
        cellText=[[n, *(row.get(c, "-") for c in COLUMNS)] for n, row in banker],
        colLabels=["banker", *COLUMNS],
        loc="upper center",
    )
    e = report["banker_edge"]
    fig.suptitle(
        f"{report['rules']['name'] or report['rules']['preset']}: banker's edge {e['solution']:+.3%} at the "
        f"solution (exploitability {report['solution']['exploitability']:.5f}); "
        f"S stick, T twist, B buy 2 stakes, b buy 1"
    )
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
