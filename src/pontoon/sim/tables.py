"""Strategy charts (the analyser's dict shape) as the dense table the kernel reads.

A chart is ``{"hard": {TOTAL: {UPCARD: CODE}}, "soft": {...}, "pair": {RANK: {UPCARD: CODE}},
"rescue": {TOTAL: {UPCARD: "F"|"S"}}}`` with up cards ``"2".."9","T","A"`` and pair keys
``"A","2".."9","T"``. Codes: ``H S D Ds P R Rs``. A cell may carry card-count exceptions:
``"H; S with 5+ cards"`` (5 or more cards) or ``"D; H with 3 cards"`` (exactly 3), several
separated by ``"; "``.

The table is ``int8[kind, total, ncards, upcard]``: kind 0 hard, 1 soft, 2 pair (total = the
pair's point value 1..10), 3 rescue (1 = rescue, 0 = keep), 4 an unsplit pair's own play, by pair
as kind 2 (``C_NONE``: its total's cell; only the counter's index rows fill it, ``sim.counting``);
ncards = min(cards, 9); upcard = point value 1 (Ace) .. 10.

Cells a chart leaves out get these defaults (documented in docs/simulation.md):
hard: hit below 12, hard 12-16 stand against 2-6 and hit against 7-A, stand from 17;
soft: hit below 18, stand from 18; pair: no split (play the total); rescue: keep the double.
Forced draws (rulings 14) are applied by the kernel and override any stand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pontoon.errors import PontoonError
from pontoon.sim import _kernels as K

CODES: dict[str, int] = {
    "H": K.C_H,
    "S": K.C_S,
    "D": K.C_D,
    "DS": K.C_DS,
    "P": K.C_P,
    "R": K.C_R,
    "RS": K.C_RS,
}
UPCARDS: dict[str, int] = {**{str(v): v for v in range(2, 10)}, "T": 10, "A": 1, "10": 10, "1": 1, "11": 1}
PAIRS: dict[str, int] = {**{str(v): v for v in range(2, 10)}, "T": 10, "A": 1, "10": 10, "1": 1, "11": 1}
PAIRS.update({"J": 10, "Q": 10, "K": 10})
NTOT = 32
SHAPE = (5, NTOT, K.NC_MAX + 1, 11)

_EXC = re.compile(r"^\s*([A-Za-z]+)\s+with\s+(\d+)(\+?)\s+cards?\s*$")


class StrategyError(PontoonError):
    """A strategy chart that does not parse."""


def default_table() -> np.ndarray:
    """The table of defaults alone (see the module docstring)."""
    t = np.zeros(SHAPE, dtype=np.int8)
    for tot in range(NTOT):
        for up in range(1, 11):
            if tot < 12:
                hard = K.C_H
            elif tot < 17:
                hard = K.C_S if 2 <= up <= 6 else K.C_H
            else:
                hard = K.C_S
            t[K.K_HARD, tot, :, up] = hard
            t[K.K_SOFT, tot, :, up] = K.C_H if tot < 18 else K.C_S
            t[K.K_PAIR, tot, :, up] = K.C_NONE
            t[K.K_PAIRPLAY, tot, :, up] = K.C_NONE
            t[K.K_RESCUE, tot, :, up] = 0
    return t


def _parse_cell(text: Any, where: str, rescue: bool) -> list[tuple[int, int, bool]]:
    """``"H; S with 5+ cards"`` -> [(code, 0, True), (code, 5, True)] (ncards 0 = base)."""
    if not isinstance(text, str):
        raise StrategyError(f"strategy cell {where}: expected a string code, got {text!r}")
    parts = [p.strip() for p in text.split(";") if p.strip()]
    if not parts:
        raise StrategyError(f"strategy cell {where} is empty")
    out: list[tuple[int, int, bool]] = []
    for i, part in enumerate(parts):
        n, plus = 0, True
        code_text = part
        if i > 0:
            m = _EXC.match(part)
            if not m:
                raise StrategyError(
                    f"strategy cell {where}: bad exception {part!r}; write e.g. 'S with 5+ cards' or 'H with 3 cards'"
                )
            code_text, n, plus = m.group(1), int(m.group(2)), bool(m.group(3))
        up = code_text.strip().upper()
        if rescue:
            if up not in ("F", "S", "R", "K"):
                raise StrategyError(f"rescue cell {where}: {code_text!r} is not F (rescue) or S (keep)")
            code = 1 if up in ("F", "R") else 0
        else:
            if up not in CODES:
                raise StrategyError(
                    f"strategy cell {where}: unknown code {code_text!r}; accepted: H S D Ds P R Rs"
                )
            code = CODES[up]
        out.append((code, n, plus))
    return out


def _fill(table: np.ndarray, kind: int, row: int, up: int, cell: list[tuple[int, int, bool]]) -> None:
    base = cell[0][0]
    table[kind, row, :, up] = base
    for code, n, plus in cell[1:]:
        lo = min(max(n, 0), K.NC_MAX)
        if plus:
            table[kind, row, lo:, up] = code
        elif n <= K.NC_MAX:
            table[kind, row, n, up] = code  # "exactly N" (N >= 9 also covers 9+; documented)


def strategy_table(chart: Mapping[str, Any] | None) -> np.ndarray:
    """The kernel's table for a chart (``None``: defaults only). Raises StrategyError."""
    t = default_table()
    if chart is None:
        return t
    if "strategy" in chart and isinstance(chart["strategy"], Mapping):
        chart = chart["strategy"]  # a whole `pontoon analyze --json` report
    for section, kind in (("hard", K.K_HARD), ("soft", K.K_SOFT), ("pair", K.K_PAIR), ("rescue", K.K_RESCUE)):
        rows = chart.get(section) or {}
        if not isinstance(rows, Mapping):
            raise StrategyError(f"strategy section {section!r} must map totals to {{upcard: code}}")
        for key, cells in rows.items():
            if kind == K.K_PAIR:
                rk = str(key).strip().upper()
                if rk not in PAIRS:
                    raise StrategyError(f"strategy pair key {key!r}: accepted A, 2..9, T")
                row = PAIRS[rk]
            else:
                try:
                    row = int(str(key).strip())
                except ValueError:
                    raise StrategyError(f"strategy {section} total {key!r} is not a number") from None
                if not 2 <= row <= 21:
                    raise StrategyError(f"strategy {section} total {row} is out of range 2..21")
            if not isinstance(cells, Mapping):
                raise StrategyError(f"strategy {section} {key}: expected {{upcard: code}}")
            for upk, text in cells.items():
                u = str(upk).strip().upper()
                if u not in UPCARDS:
                    raise StrategyError(f"strategy {section} {key}: up card {upk!r}; accepted 2..9, T, A")
                _fill(
                    t,
                    kind,
                    row,
                    UPCARDS[u],
                    _parse_cell(text, f"{section}[{key}][{upk}]", kind == K.K_RESCUE),
                )
    return t


_CHART_MAX_BYTES = 10_000_000  # a whole analyser report is about 100 kB


def load_chart(path: str | Path) -> dict[str, Any]:
    """A chart from a JSON file (the chart itself or a whole analyser report)."""
    p = Path(path)
    try:
        if p.exists() and not p.is_file():
            raise StrategyError(f"strategy file {str(p)!r} is not a regular file: give a chart JSON file")
        with p.open("rb") as f:
            raw = f.read(_CHART_MAX_BYTES + 1)
        if len(raw) > _CHART_MAX_BYTES:
            raise StrategyError(
                f"strategy file {str(p)!r} is over {_CHART_MAX_BYTES // 1_000_000} MB: a chart is a few kB"
            )
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise StrategyError(f"strategy file {str(p)!r} not found") from None
    except json.JSONDecodeError as err:
        raise StrategyError(f"strategy file {str(p)!r} is not valid JSON: {err}") from None
    except UnicodeDecodeError:
        raise StrategyError(f"strategy file {str(p)!r} is not UTF-8 text: give a chart JSON file") from None
    except OSError as err:  # a folder, a file we may not read ...
        raise StrategyError(
            f"strategy file {str(p)!r} cannot be read ({err.strerror or err}): give a chart JSON file"
        ) from None
    if not isinstance(data, dict):
        raise StrategyError(f"strategy file {str(p)!r}: expected a JSON object with hard/soft/pair")
    if "strategy" in data and isinstance(data["strategy"], dict):
        data = data["strategy"]
    if not any(k in data for k in ("hard", "soft", "pair")):
        raise StrategyError(f"strategy file {str(p)!r}: no 'hard', 'soft' or 'pair' section")
    return data


def fallback_chart(rules: Any) -> dict[str, Any]:
    """A built-in total-dependent chart used when the analyser's ``basic_strategy`` is missing.

    It is ordinary multi-deck blackjack basic strategy (hit soft 17 style), with the Pontoon
    deck's lack of tens ignored; good enough to exercise the simulator, not an optimum.
    """
    ups = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "A"]

    def row(codes: str) -> dict[str, str]:
        cs = codes.split()
        return dict(zip(ups, cs, strict=True))

    hard = {
        "8": row("H H H H H H H H H H"),
        "9": row("H D D D D H H H H H"),
        "10": row("D D D D D D D D H H"),
        "11": row("D D D D D D D D D D"),
        "12": row("H H S S S H H H H H"),
        "13": row("S S S S S H H H H H"),
        "14": row("S S S S S H H H H H"),
        "15": row("S S S S S H H H R H"),
        "16": row("S S S S S H H R R R"),
        "17": row("S S S S S S S S S Rs"),
    }
    soft = {
        "13": row("H H H D D H H H H H"),
        "14": row("H H H D D H H H H H"),
        "15": row("H H D D D H H H H H"),
        "16": row("H H D D D H H H H H"),
        "17": row("H D D D D H H H H H"),
        "18": row("Ds Ds Ds Ds Ds S S H H H"),
        "19": row("S S S S Ds S S S S S"),
    }
    pair = {
        "A": row("P P P P P P P P P P"),
        "2": row("P P P P P P H H H H"),
        "3": row("P P P P P P H H H H"),
        "4": row("H H H P P H H H H H"),
        "6": row("P P P P P H H H H H"),
        "7": row("P P P P P P H H H H"),
        "8": row("P P P P P P P P P P"),
        "9": row("P P P P P S P P S S"),
    }
    # withdraw a double that ended on a poor total against a strong up card (rulings 13)
    rescue = {
        str(t): {u: ("F" if t <= 16 and u in ("9", "T", "A") else "S") for u in ups} for t in range(4, 21)
    }
    return {"hard": hard, "soft": soft, "pair": pair, "rescue": rescue}


def empty_comp() -> np.ndarray:
    """A composition table with no entries (the chart decides everything)."""
    return np.full((1, 1, 1), -1, dtype=np.int8)


def empty_trans() -> np.ndarray:
    """No hand-state transitions (there is no composition table)."""
    return np.full((1, 10), -1, dtype=np.int64)


def comp_table(codes: np.ndarray, states: int) -> np.ndarray:
    """The kernel's composition table from ``pontoon.analysis.optimal_table.optimal_tables``:
    ``int8[upcard points 0..10, kind 0..12, state]`` (layout: ``_kernels`` and the analyser's module
    docstring), or from ``optimal_tables_by_a2``: ``int8[a2, upcard, kind, state]`` with one or
    three a2 blocks, laid side by side as ``[upcard, a2 * 13 + kind, state]`` (one block: the plain
    table); checked: the shape, and every entry -1 or a hit / stand / double / surrender code with
    or without the split bit and the rescue bits (``_consts.COMP_RESCUE``)."""
    arr = np.asarray(codes)
    nk = K.COMP_KINDS
    if arr.ndim == 4 and arr.shape[0] in (1, 3) and arr.shape[1:] == (11, nk, states):
        arr = np.concatenate(list(arr), axis=1)  # a2 blocks of kinds (FED: _round._comp_code)
    if (
        arr.dtype != np.int8
        or arr.ndim != 3
        or arr.shape[0] != 11
        or arr.shape[1] not in (nk, 3 * nk)
        or (arr.shape[2] != states)
    ):
        raise StrategyError(
            f"composition table: expected int8 of shape (11, {nk}, {states}), (11, {3 * nk}, {states}) "
            f"or (1 or 3, 11, {nk}, {states}), got {arr.dtype} {arr.shape}"
        )
    base = arr & 7
    # rescue bits only with the flag that says the table decides the rescue
    resc_ok = ((arr & (K.COMP_RESCUE_HARD | K.COMP_RESCUE_SOFT)) == 0) | ((arr & K.COMP_RESCUE) != 0)
    ok = (arr == -1) | ((arr >= 0) & np.isin(base, (K.C_H, K.C_S, K.C_D, K.C_R)) & resc_ok)
    if not ok.all():
        bad = tuple(int(x) for x in np.argwhere(~ok)[0])
        raise StrategyError(f"composition table: entry {bad} = {int(arr[bad])} is not a decision code")
    return np.ascontiguousarray(arr)
