"""The solved heads-up strategies as data (issue 27 item 6): shipped for the ``british`` and ``shoot`` presets,
computed once and cached for any other rules.

- Shipped: ``data/british.npz`` (one pack: the ``british`` and ``shoot`` presets, whose analysed games are the
  same) and ``data/british-2packs.npz`` (two packs: rul 28), written by ``scripts/british_strategies.py`` and
  checked by
  ``tests/analysis/test_british_bots.py`` to be still an equilibrium of the current model (its exploitability by
  exact best responses at most 0.001 of a stake).
- Cached: other rules (a rules file, ``--set`` changes) are solved on first use (about a minute on the full
  pack, progress reported through ``log``) and kept under the user cache directory
  (``platformdirs.user_cache_dir("pontoon")/british``, or ``$PONTOON_CACHE_DIR/british``), at most
  ``CACHE_FILES`` files, the least recently used dropped first.

The files are keyed by meaning, not by index: each player state as ``hidden|up|buys`` with its actions by
name, each banker observation as ``up|buys`` and each banker hand as its cards, so a file is read into the
current model's indexing and refused (with its reason) if the model has states the file lacks.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from pontoon.analysis.british.game import BUY_GRID, Game, Hand, build, hard
from pontoon.analysis.british.values import (
    Strategy,
    Tables,
    banker_response,
    player_flow,
    player_q,
    strategy_value,
    tables,
)
from pontoon.rules.british import BritishRules

DATA: Final = Path(__file__).parent / "data"
MODEL_VERSION: Final = 1  # bump when the analysed game changes meaning (the shipped files are rebuilt)
CACHE_FILES: Final = 8


NOT_IN_MODEL: Final = (
    "preset",
    "name",
    "document",
    "stake_min",  # every figure is per initial stake
    "stake_max",
    "shoot",  # Shoot Pontoon's shoot bets are valued under the same strategies, not decisions of the model
    "kitty_min",
    "kitty_max",
    "shoot_min",
    "packs",  # replaced by the packs of a heads-up table
    "two_packs_from",
)


def fingerprint(rules: BritishRules) -> str:
    """What the analysed heads-up game depends on: the rules but those in ``NOT_IN_MODEL``, the packs of a
    heads-up table, the buy grid and the model's version (so ``shoot``, or a rules file equal to a preset,
    uses the shipped strategy)."""
    d = rules.model_dump(mode="json")
    for k in NOT_IN_MODEL:
        d.pop(k, None)
    d["heads_up_packs"] = rules.packs_for(2)
    text = json.dumps([MODEL_VERSION, list(BUY_GRID), d], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _k(t: tuple[Any, ...]) -> str:
    return ",".join(f"{x:g}" if isinstance(x, float) else str(x) for x in t)


def node_key(hidden: Hand, up: tuple[int, ...], buys: tuple[float, ...], burned: Hand = ()) -> str:
    return f"{_k(hidden)}|{_k(up)}|{_k(buys)}" + (f"|{_k(burned)}" if burned else "")  # burn: 003 variation


def obs_key(up: tuple[int, ...], buys: tuple[float, ...], burned: Hand = ()) -> str:
    return f"{_k(up)}|{_k(buys)}" + (f"|{_k(burned)}" if burned else "")


@dataclass
class Solved:
    """A heads-up solution read into the model of ``rules``: the player's mix per state, the banker's chance of
    twisting per observation and hand, and their exact quality."""

    rules: BritishRules
    game: Game
    tables: Tables
    sigma: Strategy
    tw: np.ndarray
    source: str  # "shipped", "cache" or "solved"
    _quality: tuple[float, float, float] | None = None
    memo: dict[str, Any] = field(default_factory=dict)  # tables derived once (hints, bots)

    def quality(self) -> tuple[float, float, float]:
        """(player's value, player's best response, value against the banker's best response), exact."""
        if self._quality is None:
            g, tb = self.game, self.tables
            _, _, pbr = player_q(g, tb, self.tw)
            _, _, bbr = banker_response(g, tb, player_flow(g, self.sigma))
            self._quality = (strategy_value(g, tb, self.sigma, self.tw), float(pbr), float(bbr))
        return self._quality

    @property
    def exploitability(self) -> float:
        _, p, b = self.quality()
        return p - b

    def node(self, hidden: Hand, up: tuple[int, ...], buys: tuple[float, ...]) -> int | None:
        return self.game.node_index.get((hidden, up, tuple(buys)))


def to_arrays(g: Game, sigma: Strategy, tw: np.ndarray, rules: BritishRules) -> dict[str, np.ndarray]:
    keys = [node_key(s.hidden, s.up, s.buys, s.burned) for s in g.nodes]
    acts = [" ".join(s.actions) for s in g.nodes]
    cols = [k for k, h in enumerate(g.banker) if len(h) < 5 and hard(h) < 21]
    return {
        "fingerprint": np.array(fingerprint(rules)),
        "node_keys": np.array(keys),
        "node_actions": np.array(acts),
        "sigma": np.concatenate(sigma).astype(np.float32),
        "obs_keys": np.array([obs_key(*o) for o in g.obs]),
        "hand_keys": np.array([_k(g.banker[k]) for k in cols]),
        "tw": tw[:, cols].astype(np.float32),
    }


def from_arrays(g: Game, a: dict[str, np.ndarray]) -> tuple[Strategy, np.ndarray]:
    """The strategies of file arrays ``a`` in the indexing of ``g``; ValueError naming what does not fit."""
    keys = [str(k) for k in a["node_keys"]]
    acts = [str(x).split() for x in a["node_actions"]]
    flat = a["sigma"].astype(np.float64)
    starts = np.concatenate([[0], np.cumsum([len(x) for x in acts])])
    at = {k: i for i, k in enumerate(keys)}
    sigma: Strategy = []
    for s in g.nodes:
        i = at.get(node_key(s.hidden, s.up, s.buys, s.burned))
        if i is None or acts[i] != s.actions:
            raise ValueError(
                f"the strategy file lacks the player state {node_key(s.hidden, s.up, s.buys, s.burned)}"
            )
        x = flat[starts[i] : starts[i + 1]]
        sigma.append(x / x.sum())
    o_at = {str(k): i for i, k in enumerate(a["obs_keys"])}
    h_at = {str(k): i for i, k in enumerate(a["hand_keys"])}
    tw = np.zeros((len(g.obs), len(g.banker)))
    rows = [o_at.get(obs_key(*o), -1) for o in g.obs]
    if min(rows, default=0) < 0:
        raise ValueError("the strategy file lacks banker observations of this model")
    src = a["tw"].astype(np.float64)
    for k, h in enumerate(g.banker):
        j = h_at.get(_k(h))
        if j is not None:
            tw[:, k] = src[rows, j]
    return sigma, tw


def save(path: Path, rules: BritishRules, g: Game, sigma: Strategy, tw: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **to_arrays(g, sigma, tw, rules))  # type: ignore[arg-type]
    os.replace(tmp, path)


def _read(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def cache_dir() -> Path:
    base = os.environ.get("PONTOON_CACHE_DIR")
    if base:
        return Path(base) / "british"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pontoon")) / "british"


def _prune(where: Path, keep: int = CACHE_FILES) -> None:
    files = sorted(where.glob("*.npz"), key=lambda p: p.stat().st_mtime, reverse=True)
    for p in files[keep:]:
        p.unlink(missing_ok=True)


_SHIPPED: dict[str, Path] = {}


def shipped_path(rules: BritishRules) -> Path | None:
    """The shipped file whose model equals that of ``rules`` (by the fingerprint written in each file)."""
    if not _SHIPPED:
        found: dict[str, Path] = {}
        for p in sorted(DATA.glob("*.npz")):
            if p.name.endswith("-split.npz"):
                continue  # the banker's play facing a split (split_bots.py)
            with np.load(p, allow_pickle=False) as z:
                found[str(z["fingerprint"])] = p
        _SHIPPED.update(found)  # all at once: another thread never reads it half filled
    return _SHIPPED.get(fingerprint(rules))


_MEMO: dict[tuple[str, bool], Solved] = {}
_MEMO_LOCK = threading.Lock()  # guards _MEMO and _LOADING (held only to look up or store, never to load)
_LOADING: dict[tuple[str, bool], threading.Lock] = {}  # one lock per key being loaded


def solved(rules: BritishRules, *, log: Any = None, use_cache: bool = True) -> Solved:
    """The heads-up solution for ``rules``: shipped, cached, or solved now (and cached); kept in memory for
    the last few rules asked for. Loaded once however many threads ask for the same rules at once (the
    others wait for it: a per-key lock); threads asking for other rules are not held."""
    key = (rules.model_dump_json(), use_cache)
    with _MEMO_LOCK:
        got = _MEMO.get(key)
        if got is not None:
            return got
        loading = _LOADING.setdefault(key, threading.Lock())
    with loading:
        with _MEMO_LOCK:
            got = _MEMO.get(key)  # loaded by the thread we waited for
            if got is not None:
                return got
        out: Solved | None = None
        try:
            out = _solved_uncached(rules, use_cache, log)
        finally:  # stored and the key's lock dropped at once: a later caller finds it (or loads after an error)
            with _MEMO_LOCK:
                if out is not None:
                    while len(_MEMO) >= 4:
                        _MEMO.pop(next(iter(_MEMO)))
                    _MEMO[key] = out
                if _LOADING.get(key) is loading:
                    del _LOADING[key]
        return out


def _solved_uncached(rules: BritishRules, use_cache: bool, log: Any) -> Solved:
    g = build(rules)
    tb = tables(g)
    ship = shipped_path(rules)
    if ship is not None:
        sigma, tw = from_arrays(g, _read(ship))
        return Solved(rules, g, tb, sigma, tw, "shipped")
    path = cache_dir() / f"{fingerprint(rules)}.npz"
    if use_cache and path.exists():
        try:
            a = _read(path)
            if str(a["fingerprint"]) == fingerprint(rules):
                sigma, tw = from_arrays(g, a)
                os.utime(path)  # least recently used goes first
                return Solved(rules, g, tb, sigma, tw, "cache")
        except (OSError, ValueError, KeyError):
            pass  # a stale or broken cache file is solved again and replaced
    from pontoon.analysis.british.solve import solve

    t0 = time.perf_counter()
    if log is not None:
        log("solving the heads-up game for these rules (about a minute on a full pack; cached afterwards)")
    sol = solve(rules, target=1e-3, check_every=25, log=log)
    if log is not None:
        log(f"solved in {time.perf_counter() - t0:.0f} s: exploitability {sol.exploitability:.6f}")
    out = Solved(rules, sol.game, sol.tables, sol.sigma, sol.tw, "solved")
    out._quality = (sol.value, sol.player_br, sol.banker_br)
    if use_cache:
        try:
            save(path, rules, sol.game, sol.sigma, sol.tw)
            _prune(path.parent)
        except OSError as err:  # a read-only home: the solution is still used, only not kept
            if log is not None:
                log(f"could not cache the solution in {path.parent}: {err}")
    return out
