"""The simulator's friendly front: validate, normalise the seed, draw the random numbers, call
the numba kernels with plain arrays, add up exact integer totals.

``simulate(rules, rounds, ...)`` returns the report dict (``stats.report``). Work is cut into
chunks of ``chunk_rounds`` rounds; chunk ``i`` is a pure function of (spec, seed entropy, i,
rounds) whose random numbers come from ``SeedSequence(entropy, spawn_key=(i,))``, so the totals
for a seed do not depend on how many processes or Dask workers ran the chunks.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from pontoon.cards import pack_cards
from pontoon.errors import PontoonError
from pontoon.money import to_money
from pontoon.rules.model import CasinoRules
from pontoon.sim import _kernels as K
from pontoon.sim.chunk import (
    RANDOM_BLOCK,
    SimSpec,
    Totals,
    chunk_seed,
    run_chunk,
    run_chunk_summary,
    warm_up,
)
from pontoon.sim.stats import report
from pontoon.sim.tables import comp_table, empty_comp, empty_trans, fallback_chart, load_chart, strategy_table

__all__ = [
    "MAX_ROUNDS", "MAX_WORKERS", "RANDOM_BLOCK", "SimSpec", "SimulationError", "Totals", "build_spec",
    "chunk_seed", "plan_chunks", "run_chunk", "run_chunk_summary", "run_stacked", "simulate",
]  # fmt: skip

CENT = Decimal("0.01")
DEFAULT_CHUNK = 500_000
MAX_CHUNK = 5_000_000  # rounds per chunk at most (a chunk's session array stays under 40 MB)
MAX_ROUNDS = 10**15  # rounds per run at most (README "Limits"; about a day on 1,000 cores)
MAX_WORKERS = 256  # local Dask worker processes at most (README "Limits")


class SimulationError(PontoonError):
    """Bad simulator input (rounds, boxes, side bets, strategy, cluster options)."""


def _amount(value: object, what: str) -> Decimal:
    """A wager given as text or a number: a finite amount of at most two places, else one line."""
    try:
        return to_money(value, what)
    except PontoonError as err:
        raise SimulationError(f"{err}") from None


# ---- rules -> arrays ---------------------------------------------------------------------------
def _fr(d: Decimal) -> Fraction:
    return Fraction(d)


def _half_cents(w: Decimal) -> Decimal:
    return (w / 2).quantize(CENT, rounding=ROUND_DOWN)  # engine: half a wager, to the cent


def build_spec(
    rules: CasinoRules,
    *,
    boxes: int = 1,
    strategy: Any = None,
    side_bets: Iterable[str] = (),
    insurance: str = "never",
    penetration: float | None = None,
    csm: bool = False,
    bet: Decimal | int | str | None = None,
    side_bet: Decimal | int | str | None = None,
) -> SimSpec:
    """Validate the options and turn the rules and strategy into the kernel's arrays."""
    sides, pen, W, S = _check_options(rules, boxes, side_bets, insurance, penetration, csm, bet, side_bet)
    chart, source, notes = resolve_strategy(rules, strategy)
    strat = strategy_table(chart)
    comp, trans, root = empty_comp(), empty_trans(), 0
    if strategy == "optimal":
        found = _optimal_tables(rules)
        if found is None:
            notes.append("the analyser's optimal table is not available: playing the chart")
        else:
            comp, trans, root = found
            source = "analyser optimal_tables (composition-dependent decisions of every hand) over " + source
    amounts, pan_amounts = _amounts(rules, W, S)
    quantum = _quantum([*amounts.values(), *pan_amounts])

    def q(v: Decimal) -> int:
        x = _fr(v) / quantum
        assert x.denominator == 1
        return int(x)

    P = _param_vector(rules, boxes, sides, insurance, pen, csm)
    P[K.P_COMP] = int(comp.shape[0] > 1)
    P[K.P_ROOT] = root
    P[K.P_SB_AMT] = q(amounts["SB"])
    P[K.P_SB_OTHER] = q(amounts["SBO"])
    for key, idx in _MONEY_FIELDS:
        P[idx] = q(amounts[key])
    pan_pay = np.array([q(v) for v in pan_amounts], dtype=np.int64)
    probs = np.array([p for _, p in rules.pandemonium_probabilities()], dtype=np.float64)
    pan_cum = np.cumsum(probs)
    pan_cum[-1] = 1.0
    shoe = np.array([c.code for c in pack_cards(rules.pack)] * rules.decks, dtype=np.int64)
    return SimSpec(
        P=P, pan_pay=pan_pay, pan_cum=pan_cum, strat=strat, shoe=shoe, quantum=quantum, boxes=boxes,
        side_bets=sides, insurance=insurance == "always", preset=rules.preset, bet=W, side_bet=S,
        strategy_source=source, notes=tuple(notes), comp=comp, trans=trans, root=root,
    )  # fmt: skip


def _check_options(
    rules: Any,
    boxes: Any,
    side_bets: Iterable[str],
    insurance: str,
    penetration: float | None,
    csm: bool,
    bet: Decimal | int | str | None,
    side_bet: Decimal | int | str | None,
) -> tuple[tuple[str, ...], float, Decimal, Decimal]:
    """Every option against the table; returns (side bets, penetration, main wager, side wager)."""
    if not isinstance(rules, CasinoRules):
        raise SimulationError(
            f"the fast simulator plays casino tables; {getattr(rules, 'preset', rules)!r} is not one"
        )
    if not isinstance(boxes, int) or not 1 <= boxes <= rules.max_boxes:
        raise SimulationError(f"boxes={boxes!r}: {rules.preset} has boxes 1 to {rules.max_boxes}")
    sides = tuple(dict.fromkeys(s.strip().lower() for s in side_bets if s.strip()))
    for s in sides:
        if s not in rules.side_bets:
            offered = ", ".join(rules.side_bets) or "none"
            raise SimulationError(
                f"side bet {s!r} is not offered in {rules.preset}: offered side bets are {offered}"
            )
    if insurance not in ("never", "always"):
        raise SimulationError(f"insurance={insurance!r}: accepted never, always")
    if insurance == "always" and not rules.insurance:
        raise SimulationError(f"{rules.preset} offers no insurance: use --insurance never")
    if csm and penetration is not None:
        raise SimulationError("give either a penetration or the continuous shuffler (--csm), not both")
    pen = rules.penetration if penetration is None else float(penetration)
    if not 0.1 < pen <= 1.0:
        raise SimulationError(f"penetration={pen}: accepted a fraction above 0.1 and at most 1")
    W = rules.table_min if bet is None else _amount(bet, "bet")
    if not rules.table_min <= W <= rules.table_max:
        raise SimulationError(f"bet={W}: the main wager must be {rules.table_min} to {rules.table_max}")
    S = rules.side_min if side_bet is None else _amount(side_bet, "side bet")
    if sides and not rules.side_min <= S <= rules.side_max:
        raise SimulationError(f"side bet {S}: side wagers must be {rules.side_min} to {rules.side_max}")
    return sides, pen, W, S


def _optimal_tables(rules: CasinoRules) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The analyser's composition table, its state transitions and the empty hand's state (None
    when the analyser cannot be imported)."""
    try:
        from pontoon.analysis.optimal_table import optimal_rescue, optimal_tables_by_a2, with_rescue
        from pontoon.analysis.states import state_space
    except ImportError:
        return None
    sp = state_space()
    # the decisions by the Aces among the first two cards where the rules' doubles make decisions
    # depend on them (FED; one block elsewhere: the state-only table gave up 5e-5 of federal's edge),
    # and the rescue of doubled hands by their exact cards (``_double_settle``), the same in every block
    resc = optimal_rescue(rules)
    comp = comp_table(np.stack([with_rescue(b, resc) for b in optimal_tables_by_a2(rules)]), sp.size)
    trans = np.ascontiguousarray(sp.trans, dtype=np.int64)
    return comp, trans, sp.find([0] * 10)


def _amounts(rules: CasinoRules, W: Decimal, S: Decimal) -> tuple[dict[str, Decimal], list[Decimal]]:
    """Every payment of the table for main wager W and side wager S, and the Pandemonium payments."""
    bp = rules.bonus_pays
    ins = _half_cents(W)
    amounts: dict[str, Decimal] = {
        "W": W,
        "WIN": W * rules.regular_pays,
        "NAT": W * rules.pontoon_pays,
        "5C": W * rules.pays_5_card_21,
        "6C": W * rules.pays_6_card_21,
        "7C": W * rules.pays_7_card_21,
        "678M": W * rules.pays_678_mixed,
        "678S": W * rules.pays_678_suited,
        "678SP": W * rules.pays_678_spades,
        "777M": W * rules.pays_777_mixed,
        "777S": W * rules.pays_777_suited,
        "777SP": W * rules.pays_777_spades,
        "INS": ins,
        "INSWIN": ins * rules.insurance_pays,
        "SURR": _half_cents(W),
        "SIDE": S,
        "PAIRWIN": S * rules.pair_pays,
        "B_SA": S * bp.suited_aces,
        "B_AA": S * bp.aces,
        "B_HP": S * bp.high_pair,
        "B_AP": S * bp.ace_picture,
        "B_LP": S * bp.low_pair,
        "B_AL": S * bp.ace_low,
        "SB": rules.super_bonus_amount(W),  # 0 below the lowest tier (engine: nothing on that hand)
        "SBO": rules.super_bonus_other_payment,
    }
    return amounts, [S * m for m in rules.pandemonium_multipliers]


def _quantum(values: list[Decimal]) -> Fraction:
    """The largest amount that divides every payment exactly (money: every sum an integer)."""
    fr = [_fr(v) for v in values]
    lcm = 1
    for f in fr:
        lcm = lcm * f.denominator // math.gcd(lcm, f.denominator)
    g = 0
    for f in fr:
        g = math.gcd(g, int(f * lcm))
    return Fraction(g, lcm) if g else Fraction(1)


# money fields of the parameter vector: amounts key -> index
_MONEY_FIELDS = (
    ("W", K.P_W), ("WIN", K.P_WIN), ("NAT", K.P_NAT), ("5C", K.P_5C), ("6C", K.P_6C), ("7C", K.P_7C),
    ("678M", K.P_678M), ("678S", K.P_678S), ("678SP", K.P_678SP), ("777M", K.P_777M),
    ("777S", K.P_777S), ("777SP", K.P_777SP), ("INS", K.P_INS_STAKE), ("INSWIN", K.P_INS_WIN),
    ("SURR", K.P_SURR_LOSS), ("SIDE", K.P_SIDE), ("PAIRWIN", K.P_PAIR_WIN), ("B_SA", K.P_B_SA),
    ("B_AA", K.P_B_AA), ("B_HP", K.P_B_HP), ("B_AP", K.P_B_AP), ("B_LP", K.P_B_LP), ("B_AL", K.P_B_AL),
)  # fmt: skip


def _param_vector(
    rules: CasinoRules, boxes: int, sides: tuple[str, ...], insurance: str, pen: float, csm: bool
) -> np.ndarray:
    """The kernel's rule flags (``_consts.P_*``); the money fields are filled by ``build_spec``."""
    P = np.zeros(K.NP, dtype=np.int64)
    n = len(pack_cards(rules.pack)) * rules.decks
    P[K.P_CUT] = 0 if csm else int(n * pen)
    P[K.P_BOXES] = boxes
    P[K.P_HOLE] = int(rules.dealer_hole_card)
    P[K.P_PEEK] = int(rules.dealer_peeks)
    P[K.P_H17] = int(rules.dealer_hits_soft_17)
    P[K.P_21WINS] = int(rules.player_21_wins)
    P[K.P_NATPUSH] = int(rules.natural_vs_dealer_natural == "push")
    P[K.P_SPLIT_RANK] = int(rules.split_by == "rank")
    P[K.P_MAXHANDS] = rules.max_split_hands
    P[K.P_RSA] = int(rules.resplit_aces)
    P[K.P_HSA] = int(rules.hit_split_aces)
    P[K.P_DBL_ANY] = int(rules.double_on == "any")
    P[K.P_DAS] = int(rules.double_after_split)
    P[K.P_DSA] = int(rules.double_split_aces)
    P[K.P_DBL_ACE1] = int(rules.double_ace_counts_one)
    P[K.P_RESCUE] = int(rules.rescue)
    P[K.P_DBL_ORIG] = int(rules.double_loses_original_only)
    P[K.P_SPLIT_ONE] = int(rules.split_loses_one_wager)
    P[K.P_SURR] = {"none": 0, "early": 1, "late": 2}[rules.surrender]
    P[K.P_SUR_ANYUP] = int(rules.surrender == "late")
    P[K.P_INS] = int(insurance == "always")
    P[K.P_FORCED] = rules.forced_draw_below
    P[K.P_SB_ON] = int(rules.super_bonus)
    P[K.P_PAIR] = int("pair" in sides)
    P[K.P_BONUS] = int("bonus" in sides)
    P[K.P_PAN] = int("pandemonium" in sides)
    P[K.P_SPLIT_NAT] = int(rules.split_ace_21_is_natural)
    return P


def resolve_strategy(rules: CasinoRules, strategy: Any) -> tuple[Mapping[str, Any], str, list[str]]:
    """(chart, where it came from, notes) for ``None``/"basic", "optimal", a JSON path or a dict."""
    notes: list[str] = []
    if isinstance(strategy, Mapping):
        return strategy, "chart given", notes
    if strategy is None or strategy in ("basic", "optimal"):
        want = strategy or "basic"
        an: Any
        try:
            from pontoon.analysis import strategy as an  # the analyser (may not exist yet)
        except ImportError:
            an = None
        if want == "optimal":
            # build_spec adds the composition table (optimal_table.optimal_tables) over this chart
            notes.append(
                "optimal: the analyser's composition-dependent decision for every hand (by its cards, the "
                "two first cards' suit relation, the pair a split hand came from, and where doubles count "
                "those Aces as one the Aces among its first two cards), the rescue of a doubled hand by "
                "its cards and doubled total"
            )
        if an is not None and hasattr(an, "basic_strategy"):
            return an.basic_strategy(rules), "analyser basic_strategy", notes
        notes.append(
            "pontoon.analysis.strategy.basic_strategy is not available: using the built-in fallback chart"
        )
        return fallback_chart(rules), "built-in fallback chart", notes
    if isinstance(strategy, str | Path):
        return load_chart(strategy), f"file {strategy}", notes
    raise SimulationError(f"strategy {strategy!r}: accepted basic, optimal or a JSON file")


def plan_chunks(rounds: int, chunk_rounds: int) -> Iterator[int]:
    """The chunk sizes, made lazily (10**15 rounds are 2*10**9 chunks: never a list in memory)."""
    full, rest = divmod(rounds, chunk_rounds)
    for _ in range(full):
        yield chunk_rounds
    if rest:
        yield rest


def chunk_count(rounds: int, chunk_rounds: int) -> int:
    return -(-rounds // chunk_rounds)


def normalise_seed(seed: int | None) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**128:
        raise SimulationError(f"seed={seed!r}: a seed is an integer from 0 to 2**128 - 1")
    return int(seed)


def _check_run(rounds: Any, chunk_rounds: Any, session_length: Any, workers: Any, scheduler: Any) -> None:
    """Every count of a run within its documented limits (README "Limits"), before any work."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise SimulationError(f"rounds={rounds!r}: give a number of rounds from 1 to {MAX_ROUNDS:,}")
    if (
        isinstance(chunk_rounds, bool)
        or not isinstance(chunk_rounds, int)
        or not 1 <= chunk_rounds <= MAX_CHUNK
    ):
        raise SimulationError(f"chunk_rounds={chunk_rounds!r}: give 1 to {MAX_CHUNK:,} rounds per chunk")
    if isinstance(session_length, bool) or not isinstance(session_length, int) or session_length < 0:
        raise SimulationError(f"session length {session_length!r} must be a positive number of rounds")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS
    ):
        raise SimulationError(f"workers={workers!r}: give 1 to {MAX_WORKERS} local worker processes")
    if workers is not None and scheduler is not None:
        raise SimulationError("give either --workers (a local Dask cluster) or --scheduler ADDRESS, not both")
    if scheduler is not None:
        from pontoon.sim.cluster import check_address

        check_address(scheduler)


def simulate(
    rules: Any,
    rounds: int,
    *,
    boxes: int = 1,
    strategy: Any = None,
    side_bets: Iterable[str] = (),
    insurance: str = "never",
    penetration: float | None = None,
    csm: bool = False,
    seed: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    session_length: int = 0,
    bet: Decimal | int | str | None = None,
    side_bet: Decimal | int | str | None = None,
    chunk_rounds: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
    dashboard: bool = False,
    players: int = 4,
    engine: bool = False,
) -> dict[str, Any]:
    """Simulate ``rounds`` rounds and return the report (see ``stats.report``); British rules: the
    banker's edge at a table of ``players`` players (the kernel, or the engine with ``engine=True``).

    ``compile_seconds`` (kernels compiled, or loaded from numba's cache) is reported apart from
    ``seconds`` and ``rounds_per_second``, which time the simulation alone (issue 10 item 8).
    """
    _check_run(rounds, chunk_rounds, session_length, workers, scheduler)
    if not isinstance(rules, CasinoRules):
        if engine:
            return _british(rules, rounds, seed, players)
        from pontoon.sim.british_fast import british_strategy_spec, simulate_british_fast

        bspec = british_strategy_spec(rules, players, strategy, fresh_pack=csm)
        return simulate_british_fast(
            rules, rounds, normalise_seed(seed), players, spec=bspec, workers=workers, scheduler=scheduler,
            chunk_rounds=chunk_rounds, progress=progress,
        )  # fmt: skip
    spec = build_spec(
        rules, boxes=boxes, strategy=strategy, side_bets=side_bets, insurance=insurance,
        penetration=penetration, csm=csm, bet=bet, side_bet=side_bet,
    )  # fmt: skip
    entropy = normalise_seed(seed)
    cr = chunk_rounds
    if session_length:
        # sessions never straddle chunks: round the chunk size down to whole sessions
        if session_length > chunk_rounds:
            raise SimulationError(
                f"session length {session_length} is longer than a chunk ({chunk_rounds} rounds)"
            )
        cr = chunk_rounds - chunk_rounds % session_length
    sizes = plan_chunks(rounds, cr)
    totals = Totals()
    cpu: dict[str, float] = {}
    # one local worker is this process (issue 15 item 4): a Dask cluster of one worker only adds a
    # scheduler, a nanny and the transfers, and the totals are the same integers either way (each
    # chunk is a pure function of its index); --dashboard still starts the cluster it shows
    if scheduler is None and (workers is None or (workers == 1 and not dashboard)):
        compile_seconds = warm_up(spec)
        c0 = time.process_time()
        t0 = time.perf_counter()
        for i, n in enumerate(sizes):
            acc, mom, sess = run_chunk(spec, entropy, i, n, session_length)
            totals.add(acc, mom, sess)
            if progress:
                progress(n)
        used = 1
        seconds = time.perf_counter() - t0
        cpu["this_process"] = time.process_time() - c0
        cpu["workers"] = 0.0
    else:
        from pontoon.sim.cluster import run_on_dask

        used, compile_seconds, seconds = run_on_dask(
            spec, entropy, sizes, session_length, totals, workers, scheduler, progress, dashboard=dashboard,
            chunks=chunk_count(rounds, cr), chunk_rounds=cr, cpu=cpu,
        )  # fmt: skip
    out = report(spec, totals, rounds, seconds, seed=entropy, workers=used, session_length=session_length)
    out["compile_seconds"] = compile_seconds
    out["cpu_seconds"] = cpu  # the simulation's CPU time: this process, and the Dask workers
    return out


def _british(rules: Any, rounds: int, seed: int | None, players: int = 4) -> dict[str, Any]:
    """British Pontoon through the engine with bots (``--engine``: the check of the kernel)."""
    from pontoon.sim.british import simulate_british

    t0 = time.perf_counter()
    out = dict(simulate_british(rules, rounds, normalise_seed(seed), players=players))
    out["simulator"] = "engine"
    out.setdefault("rounds", rounds)
    out.setdefault("seconds", time.perf_counter() - t0)
    if out.get("seconds"):
        out.setdefault("rounds_per_second", rounds / out["seconds"])
    return out


def run_stacked(spec: SimSpec, shoes: list[list[Any]], ju: np.ndarray | None = None) -> np.ndarray:
    """Play one round per stacked shoe (lists of Card or card codes, dealt in order) in the kernel.

    Returns ``rec[i, box, :]``: the net per wager kind in quanta (``_kernels.K_MAIN`` ..
    ``K_SUPER``), then the Pandemonium multiplier index drawn from ``ju`` (-1 none), then 1 when
    the round was void. For tests and the differential check against the round engine.
    """
    rows = len(shoes)
    width = max((len(s) for s in shoes), default=1) or 1
    arr = np.zeros((rows, width), dtype=np.int64)
    lens = np.zeros(rows, dtype=np.int64)
    for i, s in enumerate(shoes):
        codes = [c if isinstance(c, int | np.integer) else c.code for c in s]
        arr[i, : len(codes)] = codes
        lens[i] = len(codes)
    if ju is None:
        ju = np.zeros(rows * spec.boxes + 1)
    rec = np.zeros((rows, spec.boxes, K.REC_W), dtype=np.int64)
    K.run_stacked(arr, lens, ju, spec.P, spec.pan_pay, spec.pan_cum, spec.strat, spec.comp, spec.trans, rec)
    return rec
