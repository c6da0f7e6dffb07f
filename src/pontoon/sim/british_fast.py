"""The fast British simulator (issue 27 item 7): the numba kernel ``_british_kernel`` with table strategies
(``british_tables``), in chunks, in this process or on Dask (``cluster.run_on_dask``, as the casino
simulator).

``simulate_british_fast(rules, rounds, seed, players=4)`` returns the report of the engine's simulator
(``sim/british.py``: the banker's edge on stakes per unit of initial stakes, its sd and CI, the lines)
with ``simulator: "kernel"``. Strategies: ``player``/``banker`` are tables (``british_tables``); by
default the bots' documented policies (``pontoon.british.bots``), so that the kernel and the engine play
the same game. ``fresh_pack=True`` shuffles the whole pack before every round (the exact analysis's game,
heads-up); otherwise the pack is handled as in 003 (used cards to the bottom, a shuffle after a Pontoon).

Each chunk starts from a freshly shuffled pack (003 "shuffled and cut") seeded by its index (the same
SeedSequence spawning as the casino chunks), so the totals are the same integers on any number of Dask
workers. Shoot Pontoon: the kernel keeps the kitty (put up, topped up and renewed as the bots' banker does)
and places the bots' shoot bets (``PlayerPolicy``: before the second card and before the fourth); a strategy
of the analysis places none. ``shoot_edge`` is the banker's (kitty's) net on them per unit shot, as the
engine simulator reports it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from pontoon.errors import RulesError
from pontoon.rules.british import BritishRules
from pontoon.sim import british_tables as bt
from pontoon.sim.aot import kernel as aot_kernel

CHUNK = 1_000_000  # rounds per chunk (about a second of work on one core)
PLAYER_LINES = ("pontoon", "royal_pontoon", "five_card_trick", "player_bust")
BANKER_LINES = ("banker_pontoon", "banker_five_card_trick", "banker_bust")


@dataclass
class BritishSpec:
    """Everything the kernel reads, as arrays (picklable: sent once to each Dask worker)."""

    rules: BritishRules
    players: int
    P: np.ndarray
    pack: np.ndarray  # one shuffled-to-be pack of rank indices
    probs: np.ndarray
    det: np.ndarray
    kid: np.ndarray
    nbest: np.ndarray
    nroyal: np.ndarray
    nobs: np.ndarray
    root: np.ndarray
    sroot: np.ndarray
    split_ok: np.ndarray
    stake: np.ndarray
    btw: np.ndarray
    bpair: np.ndarray
    bkid: np.ndarray
    btwistable: np.ndarray
    bout: np.ndarray
    dbl: np.ndarray
    shx: np.ndarray
    quantum: Decimal
    den: int
    strategy: str

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self.P, self.probs, self.det, self.kid, self.nbest, self.nroyal, self.nobs, self.root, self.sroot,
            self.split_ok, self.stake, self.btw, self.bpair, self.bkid, self.btwistable, self.bout, self.dbl,
            self.shx,
        )  # fmt: skip


def _quantum(amounts: list[Decimal]) -> Decimal:
    exp = max((max(0, -int(a.normalize().as_tuple().exponent)) for a in amounts), default=0)  # type: ignore[arg-type]
    return Decimal(1).scaleb(-exp)


def build_spec(
    rules: BritishRules,
    players: int = 4,
    *,
    player: Any = None,
    banker: Any = None,
    fresh_pack: bool = False,
    game: Any = None,
) -> BritishSpec:
    """The kernel's arrays for ``rules`` at a table of ``players`` players and a banker. ``player``: a
    ``PlayerPolicy`` (bots, the default) or ``(sigma, name)`` of the analysis ``game``; ``banker``: a
    ``BankerPolicy`` (default) or ``(tw, name)`` of ``game``."""
    from pontoon.british.bots import BankerPolicy, Bots, PlayerPolicy

    if not isinstance(rules, BritishRules):
        raise RulesError(
            f"the British simulator needs British rules (british, shoot), not {type(rules).__name__}"
        )
    if not 1 <= players <= bt.MAX_PLAYERS:
        raise RulesError(f"players must be 1 to {bt.MAX_PLAYERS} (plus the banker), got {players}")
    bt.check_rules(rules)
    packs = rules.packs_for(players + 1)  # rul 28: the banker counts among the people
    counts = bt.pack_class_counts(rules, packs)
    g = bt.player_graph(rules, counts, None if game is None else game.obs)
    b = bt.banker_graph(counts, rules.ace_ten_not_pontoon)
    nobs = len(game.obs) if game is not None else len(g.obs_list)
    pol = player if player is not None else PlayerPolicy()
    bpol = banker if banker is not None else BankerPolicy()
    kitty_pol = bpol if isinstance(bpol, BankerPolicy) else BankerPolicy()
    kitty = Bots(banker_default=kitty_pol).kitty_for(rules, "")  # what the bots' banker puts up (bots.py)
    stake_amounts = [rules.stake_min, rules.stake_max]
    if rules.shoot:
        stake_amounts += [rules.shoot_min, kitty, kitty_pol.top_up_to or kitty]
    if isinstance(pol, PlayerPolicy):
        base = pol.stake if pol.stake is not None else rules.stake_min
        stake_amounts += [base, base * pol.stake_ace_ten]
    quantum = _quantum(stake_amounts)
    if isinstance(pol, PlayerPolicy):
        pt = bt.bot_player(rules, g, pol, quantum)
    else:
        sigma, name = pol
        stake = np.full(13, bt.quanta(rules.stake_min, quantum), np.int64)
        pt = bt.analysis_player(g, game, sigma, stake, name)
    if isinstance(bpol, BankerPolicy):
        btab = bt.bot_banker(rules, b, nobs, bpol)
    else:
        tw, name = bpol
        btab = bt.analysis_banker(b, game, tw, name)
        if btab.uses_obs and players != 1:
            raise RulesError(f"the banker table {name!r} reads one player's hand: it plays heads-up only")
    den, pays = bt.pay_scale(rules)
    from pontoon.sim import _british_kernel as K

    P = np.zeros(K.NP, np.int64)

    P[K.P_PLAYERS] = players
    P[K.P_MAXSPLIT] = rules.max_split_hands
    P[K.P_ACES] = int(rules.split_only_aces)
    P[K.P_DOUBLE] = int(rules.banker_may_double)
    P[K.P_PONT], P[K.P_COLL], P[K.P_FIVE], P[K.P_ROYAL] = (
        pays["pontoon"], pays["collects"], pays["five"], pays["royal"],
    )  # fmt: skip
    P[K.P_DEN] = den
    P[K.P_EVERY] = int(fresh_pack)
    P[K.P_NOBS] = nobs
    # 003 variations on the Pontoon itself (ranking.is_pontoon, pontoon_grade)
    P[K.P_ATNP] = int(rules.ace_ten_not_pontoon)
    P[K.P_NATURAL] = int(rules.natural_beats_plain)
    P[K.P_PICTURE] = int(rules.ace_picture_beats_ace_ten)
    if rules.burn_total is not None and isinstance(pol, PlayerPolicy) and pol.burn:
        P[K.P_BURN] = rules.burn_total  # 003 variation: burn a hard 13 (14); the bots burn (bots.py)
    shx = pt.shx if pt.shx is not None else np.tile(np.array([-1, 0], np.int64), (len(pt.probs), 1))
    if rules.shoot:  # 003 Shoot Pontoon: the kitty and the bots' shoot bets (money in quanta)
        P[K.P_SHOOT] = 1
        P[K.P_SMIN] = bt.quanta(rules.shoot_min, quantum)
        P[K.P_KITTY] = bt.quanta(kitty, quantum)
        P[K.P_TOPUP] = bt.quanta(kitty_pol.top_up_to, quantum) if kitty_pol.top_up_to is not None else 0
        units = bt.quanta(Decimal(1), quantum)
        if isinstance(pol, PlayerPolicy):
            f = Fraction(pol.shoot_fraction)
            P[K.P_SH2], P[K.P_SFN], P[K.P_SFD] = 1, f.numerator, f.denominator * units
        else:  # a strategy of the analysis: no shoot bets (003: "never forced to make a shoot bet")
            P[K.P_SH2], P[K.P_SFN], P[K.P_SFD] = 0, 0, 1
        P[K.P_QPU] = units
    det = np.full(len(pt.probs), -1, np.int64)
    for i, row in enumerate(pt.probs):
        top = int(np.argmax(row))
        if row[top] >= 1.0:
            det[i] = top
    return BritishSpec(
        rules, players, P, bt.pack_ranks(rules, packs), pt.probs, det, g.kid, g.best, g.royal,
        np.minimum(g.obs, nobs), g.root, g.split_root, pt.split, pt.stake, btab.twist, b.pair, b.kid,
        b.twistable, b.out, btab.double, np.ascontiguousarray(shx), quantum, den, f"{pt.name} / {btab.name}",
    )  # fmt: skip


BRITISH_STRATEGIES = ("bots", "solved")


def british_strategy_spec(
    rules: BritishRules, players: int, strategy: str | None, *, fresh_pack: bool = False, solution: Any = None
) -> BritishSpec:
    """``bots`` (``basic``, the casino default, reads as bots): the bots' policies; ``solved``: the
    heads-up solution of ``analysis.british.solve`` (``solution``, else it solves first: minutes): the
    player's strategy in every seat, the solution's banker heads-up (with several players the bots'
    banker: the solution's banker reads one player's hand)."""
    name = "bots" if strategy in (None, "basic") else strategy
    if name not in BRITISH_STRATEGIES:
        raise RulesError(f"--strategy {strategy!r} for {rules.preset}: accepted are bots and solved")
    if name == "bots":
        return build_spec(rules, players, fresh_pack=fresh_pack)
    if not 1 <= players <= bt.MAX_PLAYERS:
        raise RulesError(f"players must be 1 to {bt.MAX_PLAYERS} (plus the banker), got {players}")
    from pontoon.analysis.british.solve import solve

    sol = solution if solution is not None else solve(rules)
    banker = (sol.tw, "solution") if players == 1 else None
    return build_spec(
        rules, players, player=(sol.sigma, "solution"), banker=banker, game=sol.game, fresh_pack=fresh_pack
    )


class BritishTotals:
    """Integer sums over chunks (the order does not matter) and the float moments."""

    def __init__(self) -> None:
        from pontoon.sim import _british_kernel as K

        self.acc = np.zeros(K.NA, np.int64)
        self.mom = np.zeros(3)

    def add(self, acc: np.ndarray, mom: np.ndarray, _hist: Any = None) -> None:
        self.acc += acc
        self.mom += mom


def _fresh(spec: BritishSpec, index: int, entropy: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from pontoon.sim import _british_kernel as K
    from pontoon.sim.chunk import chunk_seed

    ss = chunk_seed(entropy, index)
    rng = ss.generate_state(1, np.uint64).astype(np.uint64)
    buf = np.zeros(K.BUF, np.int64)
    n = len(spec.pack)
    buf[:n] = spec.pack
    ps = np.zeros(K.NPS, np.int64)  # the whole pack to be shuffled (lazily); no kitty yet
    ps[1] = ps[2] = n
    return buf, ps, rng


def run_chunk(
    spec: BritishSpec, entropy: int, index: int, rounds: int
) -> tuple[np.ndarray, np.ndarray, None]:
    """``rounds`` rounds from a fresh pack: a pure function of its arguments (Dask may rerun it)."""
    from pontoon.sim import _british_kernel as K

    buf, ps, rng = _fresh(spec, index, entropy)
    acc = np.zeros(K.NA, np.int64)
    mom = np.zeros(3)
    rec = np.zeros((0, K.REC), np.int64)
    kernel = aot_kernel("british_run")  # compiled at install where current (aot.py), else numba's JIT
    kernel(buf, ps, rng, *spec.arrays(), rounds, acc, mom, rec)
    return acc, mom, None


def run_chunks(
    spec: BritishSpec, entropy: int, first: int, sizes: list[int], _session_length: int = 0
) -> tuple[np.ndarray, np.ndarray, None]:
    """Consecutive chunks ``first``, ``first + 1`` ... (a Dask task)."""
    tot = BritishTotals()
    for j, n in enumerate(sizes):
        acc, mom, _ = run_chunk(spec, entropy, first + j, n)
        tot.add(acc, mom)
    return tot.acc, tot.mom, None


def warm_up(spec: BritishSpec) -> float:
    """Compile (or load) the kernel: one round; returns the seconds it took."""
    t0 = time.perf_counter()
    run_chunk(spec, 0, 0, 1)
    return time.perf_counter() - t0


def play_stacked(
    spec: BritishSpec, cards: list[int], rounds: int = 1, *, keep: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Play up to ``rounds`` rounds from the pack ``cards`` (rank indices, top first) in the given order:
    ``keep`` False deals it as the engine's stacked pack (used cards kept aside); True as a real pack
    (used cards to the bottom) stopping after the first round that calls for a shuffle. Returns the
    records (void, banker's net, cards dealt, each player's net; nets in quanta x ``den``; then each
    player's net on shoot bets and the kitty after the round, in quanta: ``_british_kernel.REC_SHOOT``,
    ``REC_KITTY``) and the pack
    left (top first)."""
    from pontoon.sim import _british_kernel as K

    buf = np.zeros(K.BUF, np.int64)
    n = len(cards)
    buf[:n] = cards
    ps = np.zeros(K.NPS, np.int64)
    ps[1] = n
    P = spec.P.copy()
    P[K.P_STACKED] = 0 if keep else 1
    P[K.P_STOP] = 1
    P[K.P_EVERY] = 0
    rec = np.zeros((rounds, K.REC), np.int64)
    acc = np.zeros(K.NA, np.int64)
    mom = np.zeros(3)
    arrays = (P, *spec.arrays()[1:])
    kernel = aot_kernel("british_run")
    done = kernel(buf, ps, np.zeros(1, np.uint64), *arrays, rounds, acc, mom, rec)
    left = np.array([buf[i & K.MASK] for i in range(ps[0], ps[1])], np.int64)
    return rec[:done], left


def simulate_british_fast(
    rules: BritishRules,
    rounds: int,
    seed: int,
    players: int = 4,
    *,
    spec: BritishSpec | None = None,
    fresh_pack: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    chunk_rounds: int = CHUNK,
    progress: Any = None,
) -> dict[str, Any]:
    """The report of ``sim/british.py``'s ``simulate_british`` from the kernel (module text)."""
    if rounds < 1:
        raise RulesError(f"rounds must be at least 1, got {rounds}")
    spec = spec or build_spec(rules, players, fresh_pack=fresh_pack)
    sizes = [chunk_rounds] * (rounds // chunk_rounds) + (
        [rounds % chunk_rounds] if rounds % chunk_rounds else []
    )
    tot = BritishTotals()
    if scheduler is None and (workers is None or workers == 1):
        compile_seconds = warm_up(spec)
        t0 = time.perf_counter()
        for i, n in enumerate(sizes):
            acc, mom, _ = run_chunk(spec, seed, i, n)
            tot.add(acc, mom)
            if progress:
                progress(n)
        used = 1
        seconds = time.perf_counter() - t0
    else:
        from pontoon.sim.cluster import run_on_dask

        used, compile_seconds, seconds = run_on_dask(
            spec, seed, sizes, 0, tot, workers, scheduler, progress,  # type: ignore[arg-type]
            chunks=len(sizes), chunk_rounds=chunk_rounds, task=run_chunks, warm=warm_up,
        )  # fmt: skip
    out = summary(spec, tot, rounds, seed, seconds)
    out["compile_seconds"] = compile_seconds
    out["workers"] = used
    return out


def summary(spec: BritishSpec, tot: BritishTotals, rounds: int, seed: int, seconds: float) -> dict[str, Any]:
    """The report (the engine simulator's keys): edge as a ratio estimator, its sd and CI, the lines."""
    from pontoon.sim import _british_kernel as K

    a, m = tot.acc, tot.mom
    den = spec.den
    n = int(a[K.A_ROUNDS] - a[K.A_VOIDS])
    sx = a[K.A_X] / den
    ss = float(a[K.A_S])
    edge = sx / ss if ss else 0.0
    mean_s = ss / n if n else 0.0
    sd = 0.0
    if n > 1 and mean_s > 0:
        var = max(m[0] - 2 * edge * m[1] + edge * edge * m[2], 0.0)
        sd = math.sqrt(var / (n - 1)) / mean_s
    hands = int(a[K.A_HANDS])
    lines: dict[str, dict[str, Any]] = {}
    for i, k in enumerate((*PLAYER_LINES, *BANKER_LINES)):
        per = hands if i < 4 else n
        hits = int(a[K.A_LINES + i])
        lines[k] = {
            "hits": hits,
            "hit_rate": hits / per if per else 0.0,
            "return": float(a[K.A_LNET + i]) / den / ss if ss else 0.0,
        }
    out: dict[str, Any] = {
        "rules": spec.rules.preset,
        "simulator": "kernel",
        "strategy": spec.strategy,
        "pack": "fresh every round"
        if spec.P[K.P_EVERY]
        else "003 (used cards to the bottom, shuffled after a Pontoon)",
        "rounds": rounds,
        "players": spec.players,
        "seed": seed,
        "seconds": seconds,
        "rounds_per_second": rounds / seconds if seconds > 0 else float("inf"),
        "house_edge": edge,
        "sd": sd,
        "ci95": 1.96 * sd / math.sqrt(n) if n else 0.0,
        "void_rounds": int(a[K.A_VOIDS]),
        "bank_changes": int(a[K.A_PASSES]),
        "shuffles": int(a[K.A_SHUFFLES]),
        "player_hands": hands,
        "lines": lines,
        "banker_net": str(Decimal(int(a[K.A_X])) / den * spec.quantum),
        "initial_stakes": str(Decimal(int(a[K.A_S])) * spec.quantum),
    }
    if spec.rules.shoot:  # the engine simulator's key: the banker's (kitty's) net on shoot bets per unit shot
        shot = int(a[K.A_SHOT])
        out["shoot_edge"] = int(a[K.A_SNET]) / shot if shot else 0.0
        out["shot"] = str(Decimal(shot) * spec.quantum)
    return out
