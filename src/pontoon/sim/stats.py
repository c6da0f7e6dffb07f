"""From exact integer totals to the report: house edge, 95% CI, sd, every pay line, sessions.

Figures are per initial main wager (``bet``) and per box-round unless named otherwise; side bets
are per unit of side wager. Money totals are exact (``Decimal`` strings in ``totals``).
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pontoon.money import money_json
from pontoon.sim import _kernels as K

if TYPE_CHECKING:
    from pontoon.sim.chunk import SimSpec, Totals
    from pontoon.sim.sessions import SessionHistogram

# report name -> kernel line (main-game lines: per box-round, return per main wager)
MAIN_LINES: dict[str, int] = {
    "pontoon": K.L_PONTOON,
    "21_5_cards": K.L_21_5,
    "21_6_cards": K.L_21_6,
    "21_7plus_cards": K.L_21_7,
    "678_mixed": K.L_678_M,
    "678_suited": K.L_678_S,
    "678_spades": K.L_678_SP,
    "777_mixed": K.L_777_M,
    "777_suited": K.L_777_S,
    "777_spades": K.L_777_SP,
    "21_other": K.L_21,
    "win": K.L_WIN,
    "push": K.L_PUSH,
    "loss": K.L_LOSS,
    "bust": K.L_BUST,
    "surrender": K.L_SURR,
    "rescue": K.L_RESCUE,
    "super_bonus": K.L_SB,
    "super_bonus_other": K.L_SB_OTHER,
}
# side wagers: (win line, lose line)
SIDE_LINES: dict[str, tuple[int, int]] = {
    "insurance": (K.L_INS, K.L_INS_LOSE),
    "pair": (K.L_PAIR, K.L_PAIR_LOSE),
    "bonus": (K.L_BONUS, K.L_BONUS_LOSE),
    "pandemonium": (K.L_PAN, K.L_PAN_LOSE),
}
BONUS_SUBLINES: dict[str, int] = {
    "bonus_suited_aces": K.L_B_SA,
    "bonus_aces": K.L_B_AA,
    "bonus_high_pair": K.L_B_HP,
    "bonus_ace_picture": K.L_B_AP,
    "bonus_low_pair": K.L_B_LP,
    "bonus_ace_low": K.L_B_AL,
}
COUNTS: dict[str, int] = {
    "doubles": K.L_DOUBLE,
    "splits": K.L_SPLIT,
    "dealer_pontoon": K.L_DEALER_PONTOON,
    "void_rounds": K.L_VOID,
}


def _money(quanta: int, quantum: Fraction) -> Decimal:
    f = quanta * quantum
    return Decimal(f.numerator) / Decimal(f.denominator)


def report(
    spec: SimSpec,
    totals: Totals,
    rounds: int,
    seconds: float,
    *,
    seed: int,
    workers: int,
    session_length: int,
) -> dict[str, Any]:
    """The report of a run: edge, 95% CI, sd, every pay line, counts, exact totals, sessions."""
    q = spec.quantum
    W = int(spec.P[K.P_W])
    n, _voids, sx, sxx, st, _stt = totals.mom
    boxes = spec.boxes
    hands = n * boxes
    mean = sx / n
    var = max(sxx / n - mean * mean, 0.0)
    sd = math.sqrt(var) / W  # per round, in main wagers
    out: dict[str, Any] = {
        "rules": spec.preset,
        "rounds": n,
        "boxes": boxes,
        "seconds": seconds,
        "rounds_per_second": n / seconds if seconds > 0 else float("inf"),
        "workers": workers,
        "seed": seed,
        "strategy": spec.strategy_source,
        "bet": str(spec.bet),
        "side_bet": str(spec.side_bet) if spec.side_bets else None,
        "side_bets": list(spec.side_bets),
        "insurance": "always" if spec.insurance else "never",
        "shuffle": "continuous" if spec.P[K.P_CUT] == 0 else f"cut card after {int(spec.P[K.P_CUT])} cards",
        "house_edge": -sx / (hands * W),
        "ci95": 1.96 * sd / math.sqrt(n) / boxes,
        "sd": sd,
        "lines": _lines(spec, totals.acc, hands),
        "counts": {name: int(totals.acc[ln, 0]) for name, ln in COUNTS.items()},
        "totals": {  # exact decimals: written by money.dumps as JSON numbers from their text
            "main_game_net": money_json(_money(sx, q)),
            "all_wagers_net": money_json(_money(st, q)),
            "main_wagered_initial": money_json(_money(hands * W, q)),
        },
        "notes": list(spec.notes),
    }
    h = totals.sessions
    if session_length and h.n:
        out["sessions"] = _sessions(h, session_length, W)
        out["_session_hist"] = (h, W)  # for the plot: not part of the JSON report
    return out


def _lines(spec: SimSpec, acc: Any, hands: int) -> dict[str, dict[str, Any]]:
    """Main-game lines per box-round (return per main wager), side wagers per side wager."""
    W = int(spec.P[K.P_W])
    S = int(spec.P[K.P_SIDE])
    lines: dict[str, dict[str, Any]] = {}
    for name, ln in MAIN_LINES.items():
        c, m = int(acc[ln, 0]), int(acc[ln, 1])
        lines[name] = {"hits": c, "hit_rate": c / hands, "return": m / (hands * W)}
    for name, (win, lose) in SIDE_LINES.items():
        if name == "insurance":
            if not spec.insurance:
                continue
            stake = int(spec.P[K.P_INS_STAKE])
        else:
            if name not in spec.side_bets:
                continue
            stake = S
        hits = int(acc[win, 0])
        wagers = hits + int(acc[lose, 0])
        net = int(acc[win, 1]) + int(acc[lose, 1])
        lines[name] = {
            "hits": hits,
            "wagers": wagers,
            "hit_rate": hits / wagers if wagers else 0.0,
            "return": net / (wagers * stake) if wagers else 0.0,
            "house_edge": -net / (wagers * stake) if wagers else 0.0,
        }
    if "bonus" in spec.side_bets:
        wagers = lines["bonus"]["wagers"]
        for name, ln in BONUS_SUBLINES.items():
            c, m = int(acc[ln, 0]), int(acc[ln, 1])
            lines[name] = {"hits": c, "hit_rate": c / wagers, "return": m / (wagers * S)}
    return lines


def _sessions(h: SessionHistogram, session_length: int, W: int) -> dict[str, Any]:
    """Session figures in main wagers, from the streamed fixed-size histogram (sessions.py):
    memory does not grow with the rounds."""
    return {
        "length": session_length,
        "count": h.n,
        "mean": h.mean() / W,
        "sd": h.sd() / W,
        "p_ahead": h.ahead / h.n,
        "p_behind": h.behind / h.n,
        "p5": h.percentile(5) / W,
        "p95": h.percentile(95) / W,
        "bin_width": h.width / W,
    }
