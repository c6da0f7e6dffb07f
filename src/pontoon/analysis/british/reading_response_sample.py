"""A sampled lower bound on the players' best response to the banker reading every hand, N >= 2 (issue 27
item 3; docs/analysis.md "Several players").

The exact best response (``reading_response``) enumerates every combination of the other players' hands:
out of reach for a full pack. Here one player (the deviator, seat ``p0``) plays a fixed **deviation** (a
pure strategy of his own cards, chosen before any sampling: the heads-up best responses below) and the
others the solution; the banker plays his exact best response reading every hand to solved players
(``reading_response.twists``: he stays where the solved players' posterior has no mass).

Each deal is an engine round of solved players (a shuffled pack); from it are kept the other players' final
hands and the banker's first two cards. Given those, the deviator's gain is computed **exactly**
(``conditional_gains``): his own cards integrated out over his whole tree (his chance of each card from the
pack less theirs), the banker's decisions from everything he would see, his later cards from the pack left.
The other players' hands and the banker's cards have the same law whatever the deviator plays (his own
chances sum to one from any pack that cannot run out), so the mean over deals is an unbiased estimate of the
deviation's gain over the solution, and the best response gains at least as much as any deviation: **an
unbiased estimate of a lower bound on the best response's gain**. The banker's edge against the best
response is at most his edge against solved players (the exact blind edge plus the sampled gain of reading
every hand, as ``reading_sample``, on the same deals) less it.

Deviations (fixed before sampling, none fitted to the samples):
- ``heads_up``: the player's heads-up best response to the banker reading his hand (``values.player_q``
  against the banker's heads-up best response; heads-up +3.848% -> +3.783% one pack);
- ``blind``: his heads-up best response to the banker reading his own cards only (``reading.blind_response``:
  +1.584% -> +0.456% one pack): with many hands the reading banker leans toward the blind one.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pontoon.analysis.british.bots import initial_stakes, make_bots
from pontoon.analysis.british.game import (
    ACE,
    BUST,
    PONTOON,
    ROYAL,
    TEN,
    Hand,
    counts_of,
    multiset_p,
    pack_counts,
)
from pontoon.analysis.british.infosets import buys_of, card_class
from pontoon.analysis.british.reading import OUTCOMES, Obs, Reader, Seen, blind_response, seen_from_view
from pontoon.analysis.british.reading_fast import outcome_chances_fast
from pontoon.analysis.british.reading_last import LastPlanner, planner
from pontoon.analysis.british.reading_response import outcome_chances_many
from pontoon.analysis.british.strategy import Solved, solved
from pontoon.analysis.british.values import _jit, _u, banker_response, g_order_fwd, player_flow, player_q

DEVIATIONS = ("heads_up", "blind")
BUDGET = {2: 40, 3: 20, 4: 8, 5: 4, 6: 3}  # programmes per deal by the number of players (7: 2)
DEVIATOR = "p0"


def deviation(sol: Solved, name: str) -> list[np.ndarray]:
    """The pure deviation ``name`` (``DEVIATIONS``): the heads-up best response to a banker."""
    g, tb = sol.game, sol.tables
    if name == "heads_up":
        tw, _, _ = banker_response(g, tb, player_flow(g, sol.sigma))
    elif name == "blind":
        tw, _ = blind_response(sol)
    else:
        raise ValueError(f"deviation {name!r}: accepted {', '.join(DEVIATIONS)}")
    q, _, _ = player_q(g, tb, tw)
    return [np.eye(len(x))[int(np.argmax(x))] for x in q]


def sampling_table(rules: Any, players: int) -> tuple[Any, int, Solved, Reader, Any, list[str], np.ndarray]:
    """A sampled table of ``players`` solved players and the reading banker: ``rules`` with the table's
    packs, the packs, the solved game, its ``Reader``, the solved bots, the seats and the pack's counts."""
    from pontoon.british.pack import one_pack

    packs = rules.packs_for(players + 1)
    rules = rules.with_(packs=packs)
    if len(one_pack(rules)) * packs < 5 * (players + 1):
        raise ValueError(
            "the pack can run out at this table: the banker reading every hand assumes it cannot"
        )
    sol = solved(rules)
    bots: Any = make_bots("solved", rules, np.random.default_rng(0))
    seats = [f"p{i}" for i in range(players)]
    return rules, packs, sol, Reader(sol), bots, seats, pack_counts(rules, players + 1)


def sample_response(
    rules: Any,
    players: int,
    rounds: int,
    seed: int | None,
    *,
    seconds: float | None = None,
    budget: int | None = -1,
    extra: dict[str, list[np.ndarray]] | None = None,
) -> dict[str, Any]:
    """``rounds`` deals (or as many as ``seconds`` allow) at a table of ``players`` (``rules``' packs there):
    per deviation, the mean of its exact conditional gain over the solution (per initial stake, positive for
    the player) with its standard error; on the same deals, the reading banker's gain over the blind one
    per player (as ``reading_sample``) and the banker's edge against the deviator (the exact blind edge
    plus that gain less the deviation's gain, paired deal by deal), each with its standard error. ``budget``:
    at most that many of the banker's programmes per deal (``conditional_gains``; None: every one; by
    default ``BUDGET``). ``extra``: more deviations by name (``reading_best.fit_response``'s fitted best
    response), valued on the same deals."""
    if budget == -1:
        budget = BUDGET.get(players, 2)
    t0 = time.perf_counter()
    rules, packs, sol, rd, bots, seats, n0 = sampling_table(rules, players)
    from pontoon.british.pack import BritishPack, one_pack
    from pontoon.british.round import BritishRound

    _, blind = blind_response(sol)
    names = [*DEVIATIONS, *(extra or {})]
    devs = [deviation(sol, name) for name in DEVIATIONS] + list((extra or {}).values())
    base: int = int(np.random.SeedSequence().entropy) if seed is None else seed  # type: ignore[arg-type]
    rows: list[list[float]] = []
    for j in range(rounds):
        if seconds is not None and j > 1 and time.perf_counter() - t0 > seconds:
            break
        pack = BritishPack.shuffled(packs, np.random.default_rng([base, j, 0]), one_pack(rules))
        bots.rng = np.random.default_rng([base, j, 1])
        rnd = BritishRound(rules, seats, "bank", pack)
        while not rnd.is_over() and rnd.phase != "banker":
            seat, verb, amt = bots.decide(rnd)
            rnd.act(seat, verb, amt)
        rest = _rest(rnd)
        plans = (
            None
            if rest is None
            else planner(rd, Seen(rest[0], tuple(sorted(rest[1])), tuple(sorted(rest[2]))), budget or 1000)
        )
        gain = 0.0  # the reading banker's gain per player on this deal (reading_sample)
        if not rnd.is_over():
            seen = seen_from_view(rnd.view(rnd.banker), initial_stakes(rnd))
            if seen is not None and rd.observed(seen):
                gain = _reading_gain(rd, seen, rest, plans) / players
        if rest is None:
            rows.append([gain] + [0.0] * len(devs))
            continue
        pick = np.random.default_rng([base, j, 2])
        rows.append([gain, *conditional_gains(rd, rest, n0, devs, budget, pick, plans)])
    x = np.array(rows).reshape(len(rows), 1 + len(names))
    n = len(x)

    def mean_se(v: np.ndarray) -> tuple[float, float]:
        return float(v.mean()), float(v.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0

    reading_gain, reading_se = mean_se(x[:, 0])
    out: dict[str, Any] = {
        "rounds": n,
        "packs": packs,
        "reading_gain": reading_gain,
        "reading_gain_se": reading_se,
        "edge_vs_solved": -blind + reading_gain,
        "budget": budget,
        "deviations": {},
    }
    for k, name in enumerate(names):
        g, se = mean_se(x[:, 1 + k])
        e, ese = mean_se(x[:, 0] - x[:, 1 + k])
        out["deviations"][name] = {"gain": g, "gain_se": se, "edge": -blind + e, "edge_se": ese}
    out["seconds"] = time.perf_counter() - t0
    return out


def _reading_gain(rd: Reader, seen: Seen, rest: Any, plans: Any) -> float:
    """The reading banker's gain over the blind one at the deal (both valued exactly from his turn): from
    ``plans`` (``reading_last``: the deviator's hand added to the other hands' table) where his seat's hand
    is live and the others' are what ``rest`` holds, else ``Reader.tree``."""
    if isinstance(plans, LastPlanner) and rest is not None and rest[0] == seen.first:
        left = list(seen.live)
        for o in rest[1]:
            left.remove(o)
        if len(left) == 1 and tuple(sorted(seen.shown)) == plans.others.shown:
            got = plans.values(left[0])
            if got is not None:
                return got[3] - got[2]
    t = rd.tree(seen)
    return t.blind - t.value


def _rest(rnd: Any) -> tuple[Hand, list[Obs], list[int], np.ndarray] | None:
    """The banker's first two cards, the other players' live hands as he sees them, the cards they show
    (busts, Pontoons) and their cards per class; None where the banker has a Pontoon (the round ends at once:
    the deviator pays it whatever his strategy)."""
    f = tuple(sorted(card_class(str(c)) for c in rnd.banker_cards[:2]))
    if rnd.banker_pontoon:
        return None
    live: list[Obs] = []
    shown: list[int] = []
    dealt: list[int] = list(f)
    for h in rnd.hands:
        if h.owner == DEVIATOR:
            continue
        cards = [card_class(str(c)) for c in h.cards]
        dealt += cards
        if h.status == "bust":
            shown += cards  # 003 "throw in your hand face up"
        elif h.status == "pontoon":
            shown += [ACE, TEN]  # 003: the ace face up on the ten-value card
        else:
            up = tuple(c for c, u in zip(cards, h.up, strict=True) if u)
            live.append((up, buys_of(int(h.stake / h.initial), len(cards) - len(up) - 2)))
    return f, live, shown, np.array(counts_of(tuple(dealt)), np.int64)


_FLAT: dict[int, tuple[Any, tuple[np.ndarray, ...]]] = {}


def _flat(g: Any) -> tuple[np.ndarray, ...]:
    """The player's tree as flat arrays for ``_k_flows`` (once per game): nodes parents first, per node its
    actions' slots, per slot its children (card class, -1 for a stick; child node, or -1 - terminal), the
    cards of each node per class and their number."""
    got = _FLAT.get(id(g))
    if got is not None and got[0] is g:
        return got[1]
    order = np.array(list(reversed(g_order_fwd(g))), np.int64)
    act_start: list[int] = []
    act_n: list[int] = []
    kid_start: list[int] = []
    kid_n: list[int] = []
    kid_c: list[int] = []
    kid_child: list[int] = []
    for s in g.nodes:
        act_start.append(len(kid_start))
        act_n.append(len(s.actions))
        for a in s.actions:
            kid_start.append(len(kid_c))
            kid_n.append(len(s.children[a]))
            for c, _, child in s.children[a]:
                kid_c.append(c)
                kid_child.append(child)
    k = np.array([counts_of(s.cards) for s in g.nodes], np.int64)
    size = np.array([len(s.cards) for s in g.nodes], np.int64)
    arrays = tuple(np.array(x, np.int64) for x in (act_start, act_n, kid_start, kid_n, kid_c, kid_child))
    flat = (order, *arrays, k, size)
    _FLAT.clear()
    _FLAT[id(g)] = (g, flat)
    return flat


@_jit
def _k_flows(order, act_start, act_n, kid_start, kid_n, kid_c, kid_child, k, size, n, total, probs, mass, y):  # type: ignore[no-untyped-def]
    """Chance (from the pack ``n``) times each strategy's own probabilities of reaching each node and terminal."""
    ns = probs.shape[0]
    for idx in range(order.shape[0]):
        i = order[idx]
        live = False
        for s in range(ns):
            if mass[s, i] != 0.0:
                live = True
        if not live:
            continue
        left = total - size[i]
        for a in range(act_n[i]):
            slot = act_start[i] + a
            for kk in range(kid_start[slot], kid_start[slot] + kid_n[slot]):
                c = kid_c[kk]
                ch = kid_child[kk]
                q = 1.0
                if c >= 0:
                    room = n[c] - k[i, c]
                    if room <= 0:
                        continue
                    q = room / left
                for s in range(ns):
                    w = mass[s, i] * probs[s, i, a] * q
                    if ch < 0:
                        y[s, -1 - ch] += w
                    else:
                        mass[s, ch] += w


def _stakes(g: Any, ts: list[int]) -> np.ndarray:
    return np.array([g.terminals[t].stake for t in ts])


def conditional_gains(
    rd: Reader,
    rest: tuple[Hand, list[Obs], list[int], np.ndarray],
    n0: np.ndarray,
    devs: list[Any],
    budget: int | None = None,
    rng: np.random.Generator | None = None,
    plans: Any = None,
) -> list[float]:
    """Each deviation's exact gain over the solution for the deviator, given the other players' hands and the
    banker's first two cards (``rest``): his own cards integrated out (his tree, his chance of each card from
    the pack less ``rest``'s), the banker's decisions from everything he sees, his later cards from the pack
    left. The other players' hands and the banker's cards have the same law whatever the deviator plays (his
    own chances sum to one from any pack that cannot run out), so the mean over deals is unbiased."""
    g, sol = rd.sol.game, rd.sol
    f, live, shown, used = rest
    n = n0 - used
    total = int(n.sum())
    strategies = [sol.sigma, *devs]
    mass = np.zeros((len(strategies), len(g.nodes)))
    y = np.zeros((len(strategies), len(g.terminals)))
    for node, _ in g.roots:
        cards = g.nodes[node].cards if node >= 0 else g.terminals[-1 - node].cards
        p = multiset_p(n, (), cards)
        if node >= 0:
            mass[:, node] += p
        else:
            y[:, -1 - node] += p
    fl = _flat(g)
    probs = np.zeros((len(strategies), len(g.nodes), 4))
    for si, st in enumerate(strategies):
        for i, x in enumerate(st):
            probs[si, i, : len(x)] = x
    _k_flows(*fl, n, total, probs, mass, y)
    diff = y[1:] - y[0]
    r = g.rules
    fp = float(r.five_card_trick_pays)
    u = np.array([[_u(total, o, fp) for o in range(OUTCOMES)] for total in range(23)])
    gains = np.zeros(len(devs))
    by_obs: dict[int, list[int]] = {}
    for t_i in np.flatnonzero(np.abs(diff).max(axis=0) > 0.0):
        t = g.terminals[t_i]
        if t.kind == BUST:
            gains -= diff[:, t_i] * t.stake  # 003 "the banker takes your stake"
        elif t.kind == PONTOON:
            gains += diff[:, t_i] * float(r.pontoon_pays)  # 003 "paid double"
        elif t.kind == ROYAL:
            gains += diff[:, t_i] * float(r.royal_pontoon_pays) * t.stake  # 003 variation: "paid treble"
        else:
            by_obs.setdefault(t.obs, []).append(int(t_i))

    def obs_gain(o: int, tw: frozenset[Hand] | np.ndarray) -> np.ndarray:
        ts = by_obs[o]
        rooms = n[None, :] - np.array([counts_of(g.terminals[t].cards) for t in ts], np.int64)
        out = outcome_chances_fast(f, rooms, tw) if rd.fast else outcome_chances_many(f, rooms, tw)  # type: ignore[arg-type]
        pay = np.array([g.terminals[t].stake * out[k] @ u[g.terminals[t].total] for k, t in enumerate(ts)])
        return diff[:, ts] @ pay

    others = Seen(f, tuple(sorted(live)), tuple(sorted(shown)))

    def mine(o: int) -> Obs:
        up, buys = g.obs[o]
        return (tuple(up), tuple(int(b) for b in buys))

    # what the banker sees of a hand the solved player never shows: he stays (no programme to run)
    costly = [o for o in by_obs if mine(o) in rd.support] if rd.observed(others) else []
    for o in set(by_obs) - set(costly):
        gains += obs_gain(o, frozenset())
    plans = planner(rd, others) if plans is None else plans
    if budget is None or len(costly) <= budget:
        for o in costly:
            gains += obs_gain(o, plans.plan(mine(o)))
        return [float(x) for x in gains]
    # more programmes than the budget: ``budget`` of them drawn with chance in proportion to a bound on
    # their part (|flow difference| x stake x the largest payment), each weighted by one over its chance
    # (importance sampling: unbiased; the rest of the gain stays exact)
    bound = np.array([np.abs(diff[:, by_obs[o]]).max(axis=0) @ _stakes(g, by_obs[o]) for o in costly])
    prob = bound / bound.sum()
    assert rng is not None
    for k in rng.choice(len(costly), size=budget, p=prob):
        o = costly[int(k)]
        gains += obs_gain(o, plans.plan(mine(o))) / (budget * prob[k])
    return [float(x) for x in gains]
