"""The banker facing a split at the table (issue 27 items 5 and 6; 003 Split your cards; ruling 35).

- Bots (``solved`` and ``best`` levels, heads-up): the banker facing a split of x-x plays the profile's play
  there (``split_banker.py``: his own cards and, of each split hand, a bust or its number of cards,
  ``split_fast.seen_class``; fictitious play where the simple banker leaves the split profitable, the simple
  banker elsewhere), shipped for the preset rules in ``data/<name>-split.npz``
  (``scripts/british_split_bankers.py``: a few minutes, from the shipped solutions) and computed on first use
  (then kept in memory) for other rules.
- Hints for the banker facing a split, heads-up: the exact values of staying and of twisting (his later
  decisions played best) given everything he sees of both hands and his own cards (``split_reading``), the
  player splitting as his best split against that play.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np

from pontoon.analysis.british.game import NCLASS, Game
from pontoon.analysis.british.split_fast import SPLIT_CLASSES
from pontoon.analysis.british.strategy import DATA, Solved, _k, _read, fingerprint
from pontoon.rules.british import BritishRules

SUFFIX: Final = "-split.npz"


def split_files() -> list[Path]:
    return sorted(DATA.glob(f"*{SUFFIX}"))


def to_arrays(g: Game, rules: BritishRules, twists: dict[int, np.ndarray]) -> dict[str, np.ndarray]:
    """``twists``: x -> his chance of twisting per class of what he sees of the split hands and banker hand
    ([class, hand], ``split_fast.end_feature``)."""
    xs = sorted(twists)
    nk = SPLIT_CLASSES * SPLIT_CLASSES
    return {
        "fingerprint": np.array(fingerprint(rules)),
        "classes": np.array(SPLIT_CLASSES, np.int64),
        "pairs": np.array(xs, np.int64),
        "hand_keys": np.array([_k(h) for h in g.banker]),
        "twist": np.array([twists[x] for x in xs], np.float64).reshape(len(xs), nk, len(g.banker)),
    }


def _from_arrays(g: Game, a: dict[str, np.ndarray]) -> dict[int, np.ndarray] | None:
    """The file's plays ([class, hand] per pair); None where it was written for other classes (an older file)."""
    if "classes" not in a or int(a["classes"]) != SPLIT_CLASSES:
        return None
    at = {str(k): i for i, k in enumerate(a["hand_keys"])}
    cols = [at.get(_k(h), -1) for h in g.banker]
    if min(cols, default=0) < 0:
        raise ValueError("the split file lacks banker hands of this model")
    return {int(x): a["twist"][i][:, cols].astype(np.float64) for i, x in enumerate(a["pairs"])}


def split_twists(sol: Solved) -> dict[int, np.ndarray]:
    """x -> the banker's chance of twisting per class of what he sees of the split hands (``seen_class``) and
    banker hand, facing a split of x-x (pairs absent: the simple banker); shipped where a file has the rules'
    fingerprint, else computed (``with_split_banker``, as ``pontoon analyze`` does)."""
    if "split_twists" not in sol.memo:
        want = fingerprint(sol.rules)
        found: dict[int, np.ndarray] | None = None
        for p in split_files():
            a = _read(p)
            if str(a["fingerprint"]) == want:
                found = _from_arrays(sol.game, a)
                break
        if found is None:
            from pontoon.analysis.british.split_banker import with_split_banker
            from pontoon.analysis.british.splits import split_deviation

            found = {}
            dev = split_deviation(sol.game, sol.tables, sol.tw)
            with_split_banker(sol.game, dev, rounds=4, twists=found, nphi=SPLIT_CLASSES)
        sol.memo["split_twists"] = found
    out: dict[int, np.ndarray] = sol.memo["split_twists"]
    return out


def split_twist_chance(sol: Solved, x: int, k: int, cl: int = 0) -> float:
    """The banker's chance of twisting on hand ``k`` (of ``sol.game.banker``) facing a split of x-x whose hands
    he sees as class ``cl`` (``split_fast.seen_class``)."""
    from pontoon.analysis.british.game import banker_can_twist
    from pontoon.analysis.british.split_fast import simple_twists

    t = split_twists(sol).get(x)
    if t is not None:
        return float(t[cl, k])
    h = sol.game.banker[k]
    return float(banker_can_twist(h) and simple_twists(h))


def split_play(sol: Solved, x: int) -> np.ndarray:
    """The banker's play facing a split of x-x as [class, hand] (the simple banker for every class where the
    split needs no play of its own)."""
    t = split_twists(sol).get(x)
    if t is not None:
        return t
    from pontoon.analysis.british.split_banker import simple_play

    return np.tile(simple_play(sol.game), (SPLIT_CLASSES * SPLIT_CLASSES, 1))


def _reading(sol: Solved, x: int) -> tuple[Any, Any]:
    """The split model and the gathered runs of the player's best split of x-x against the banker's play there."""
    key = f"split_reading_{x}"
    if key not in sol.memo:
        from pontoon.analysis.british.split_banker import class_ends
        from pontoon.analysis.british.split_fast import SplitModel
        from pontoon.analysis.british.split_reading import gather

        g = sol.game
        if "split_model" not in sol.memo:
            sol.memo["split_model"] = SplitModel(sol.rules, g)
        model = sol.memo["split_model"]
        run = model.run(x, class_ends(g, split_play(sol, x)), SPLIT_CLASSES)
        sol.memo[key] = (model, gather(model, run))
    out: tuple[Any, Any] = sol.memo[key]
    return out


def split_banker_values(
    sol: Solved, x: int, seen: tuple[Any, Any], hand: tuple[int, ...]
) -> dict[str, float]:
    """The banker's expected net per initial stake of staying and of twisting (then playing best) on ``hand``,
    facing the split of x-x whose two hands he sees as ``seen`` (``split_reading``'s observation), given
    everything he sees and his own cards; KeyError where the player's split play never shows ``seen``."""
    from pontoon.analysis.british.split_reading import observation_values

    model, gd = _reading(sol, x)
    o = gd.index[seen]
    stay, twist, mass = observation_values(sol.game, model, gd, o)
    k = sol.game.banker_index[hand]
    if not mass[k] > 0:
        raise KeyError(hand)  # with these cards the player's split play never shows ``seen``
    return {"stick": -float(stay[k]), "twist": -float(twist[k])}


def split_pair(view: dict[str, Any]) -> int | None:
    """The pair x of a heads-up split table (two split hands of one player, his only hands), else None."""
    from pontoon.analysis.british.infosets import card_class

    hands = view["hands"]
    if len(hands) != 2 or not all(h["split"] for h in hands) or hands[0]["owner"] != hands[1]["owner"]:
        return None
    x = card_class(hands[0]["cards"][0])
    return x if 0 <= x < NCLASS else None
