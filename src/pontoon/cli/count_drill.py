"""Counting drills (``pontoon count --drill running|true|index``): each answer graded, each
mistake's cost given.

* ``running``: a shuffled shoe is dealt a few cards at a time (a round's worth); after each deal
  say the running count. A mistake's cost is what the wrong count misjudges: the error in true
  count times the expectation a true-count point is worth (the regression of the effects of
  removal per deck on the tags: analysis/eor.py), in % of the bet.
* ``true``: a running count and the decks left; say the true count (its floor, as the index
  chart and the ramp read it). Cost as above.
* ``index``: a shoe sampled at a true count (analysis/indices.py), a two-card hand against an up
  card (close calls most often: each chart decision drawn with its chance of being dealt over its
  full-shoe margin); say the play. Graded by the exact values of the plays on *that* shoe (the analyser), the
  cost being the best play's value less yours, per unit of the wager. Where the rules have rescue
  (004 3.25.3) some questions are a doubled total against an up card, keep or rescue (valued on
  that shoe given a two-card double ends on that total, as the index chart's rescue rows); where
  insurance is offered, some are an Ace up, insure or not (per unit of the insurance wager).

Only the cards dealt so far are shown (ruling 35: a seat's own view).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pontoon.analysis.counts import CountSystem
from pontoon.analysis.eor import effects_of_removal
from pontoon.analysis.states import UPCARD_LABELS, VALUE_RANKS, shoe_counts, value_index
from pontoon.cards import Card, pack_cards
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules

KINDS = ("running", "true", "index")
PLAYS = {"h": "H", "s": "S", "d": "D", "p": "P", "r": "R", "f": "F", "y": "I", "n": "N"}
NAMES = {"S": "stand", "H": "hit", "D": "double", "P": "split", "R": "surrender", "F": "rescue", "I": "insure",
         "N": "no insurance"}  # fmt: skip


class EndOfDrill(Exception):
    """No more answers (q or the end of the input)."""


@dataclass
class DrillSession:
    kind: str
    asked: int = 0
    correct: int = 0
    cost: float = 0.0
    mistakes: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {"drill": self.kind, "asked": self.asked, "correct": self.correct, "cost": self.cost,
                "mistakes": self.mistakes[:10]}  # fmt: skip


def ev_per_true_count(rules: CasinoRules, system: CountSystem) -> float:
    """Expectation a true-count point is worth (fraction of the bet): the least-squares slope of the
    per-deck effects of removal on the tags, over one deck's cards."""
    eff = effects_of_removal(rules, what=("basic",))
    one = shoe_counts(rules.pack, 1).astype(float)
    w = one / one.sum()
    t = np.array(system.tags, dtype=float)
    e = np.array(eff.per_deck["basic"])
    tc, ec = t - np.dot(w, t), e - np.dot(w, e)
    den = float(np.dot(w, tc * tc))
    return float(np.dot(w, tc * ec)) / den if den > 0 else 0.0


def _number(ans: str) -> float | None:
    try:
        v = float(ans)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _ask_number(ask: Callable[[str], str], say: Callable[[str], None], prompt: str) -> float:
    while True:
        ans = ask(prompt).strip().lower()
        if ans in ("q", "quit"):
            raise EndOfDrill()
        v = _number(ans)
        if v is not None:
            return v
        say(f"'{ans}' is not a number: give a count such as -3 or 2, or q to stop")


def _shuffled(rules: CasinoRules, rng: np.random.Generator) -> list[Card]:
    cards = list(pack_cards(rules.pack)) * rules.decks
    order = rng.permutation(len(cards))
    return [cards[i] for i in order]


def _grade_count(s: DrillSession, say: Callable[[str], None], got: float, want: float, tc_err: float,
                 slope: float, what: str) -> None:  # fmt: skip
    s.asked += 1
    if abs(got - want) < 1e-9:
        s.correct += 1
        say(f"correct: {what} {want:g}")
        return
    cost = abs(tc_err * slope)
    s.cost += cost
    s.mistakes.append(f"{what} {want:g}, you said {got:g}")
    say(f"mistake: the {what} is {want:g}, you said {got:g}: a true count off by {abs(tc_err):.1f}, "
        f"misjudging the expectation by about {cost * 100:.2f}% of the bet")  # fmt: skip


def drill_running(s: DrillSession, rules: CasinoRules, system: CountSystem, n: int, rng: np.random.Generator,
                  ask: Callable[[str], str], say: Callable[[str], None]) -> None:  # fmt: skip
    slope = ev_per_true_count(rules, system)
    shoe = _shuffled(rules, rng)
    deck = int(shoe_counts(rules.pack, 1).sum())
    rc = system.irc(rules.pack, rules.decks)
    say(f"{system.name}: the count starts at {rc:g} ({len(shoe)} cards, {rules.decks} decks)")
    pos = 0
    cut = int(len(shoe) * 0.75)
    while s.asked < n:
        if pos >= cut:
            pos, rc = 0, system.irc(rules.pack, rules.decks)
            shoe = _shuffled(rules, rng)
            say(f"shuffle: the count starts again at {rc:g}")
        k = int(rng.integers(4, 9))
        dealt = shoe[pos : pos + k]
        pos += k
        rc += sum(system.tags[value_index(c.rank)] for c in dealt)
        say("dealt: " + " ".join(str(c) for c in dealt))
        got = _ask_number(ask, say, "running count? (q to stop) >")
        decks_left = (len(shoe) - pos) / deck
        _grade_count(s, say, got, rc, (got - rc) / decks_left, slope, "running count")


def drill_true(s: DrillSession, rules: CasinoRules, system: CountSystem, n: int, rng: np.random.Generator,
               ask: Callable[[str], str], say: Callable[[str], None]) -> None:  # fmt: skip
    slope = ev_per_true_count(rules, system)
    deck = int(shoe_counts(rules.pack, 1).sum())
    total = deck * rules.decks
    while s.asked < n:
        left = int(rng.integers(deck // 2, int(total * 0.9))) // (deck // 2) * (deck // 2)  # half decks
        rc = int(rng.integers(-20, 21)) + round(system.irc(rules.pack, rules.decks) * left / total)
        tc = math.floor(rc * deck / left)
        say(f"running count {rc:+d}, {left} cards left ({left / deck:g} decks)")
        got = _ask_number(ask, say, "true count (its floor)? (q to stop) >")
        _grade_count(s, say, got, tc, got - tc, slope, "true count")


def _answer(ask: Callable[[str], str], say: Callable[[str], None], opts: dict[str, float]) -> str:
    menu = "  ".join(f"{k} {NAMES[v]}" for k, v in PLAYS.items() if v in opts)
    while True:
        ans = ask(f"{menu}  q quit >").strip().lower()
        if ans in ("q", "quit"):
            raise EndOfDrill()
        if PLAYS.get(ans) in opts:
            return PLAYS[ans]
        say(f"'{ans}' is not a choice here: {menu}")


def _grade_play(
    s: DrillSession, say: Callable[[str], None], opts: dict[str, float], play: str, what: str
) -> None:
    """Exact grading: the best option's value less the one chosen (``opts``: values on the shoe)."""
    best = max(opts, key=lambda k: opts[k])
    s.asked += 1
    detail = "   ".join(f"{NAMES[k]} {v:+.4f}" for k, v in sorted(opts.items(), key=lambda kv: -kv[1]))
    cost = opts[best] - opts[play]
    if cost <= 1e-12:
        s.correct += 1
        say(f"correct: {NAMES[play]} ({detail})")
    else:
        s.cost += cost
        s.mistakes.append(f"{what}: {NAMES[play]}, best {NAMES[best]}")
        say(f"mistake: best is {NAMES[best]}, yours {NAMES[play]}: costs {cost:.4f} of the wager ({detail})")


def _rescue_question(
    rules: CasinoRules, sol: Any, shoe: np.ndarray, rng: np.random.Generator
) -> tuple[str, dict[str, float]] | None:
    """A doubled total against an up card (004 3.25.3 rescue): keep (stand) or rescue, valued per
    unit of the original wager on this shoe given that a two-card double ends on that total (the
    index chart's rescue rows: analysis/indices.py), rescue being -1."""
    from pontoon.analysis.indices import rescue_racc, rescue_weights

    racc = rescue_racc(sol)
    w = rescue_weights(shoe, rules.double_ace_counts_one)
    up = int(rng.integers(0, 10))
    t = int(rng.integers(12, 21))
    if w[up, t] <= 0:
        return None
    label = UPCARD_LABELS[[1, 2, 3, 4, 5, 6, 7, 8, 9, 0].index(up)]
    return f"you doubled and ended on {t} against {label}", {"S": racc[up, t] / w[up, t] - 1.0, "F": -1.0}


def drill_index(s: DrillSession, rules: CasinoRules, system: CountSystem, n: int, rng: np.random.Generator,
                ask: Callable[[str], str], say: Callable[[str], None]) -> None:  # fmt: skip
    from pontoon.analysis.decisions import chart_decisions, hand_options
    from pontoon.analysis.eor import identities_of, side_ev, side_wagers
    from pontoon.analysis.indices import sample_shoe, true_count
    from pontoon.analysis.strategy import solve

    decs = chart_decisions(rules)
    full = shoe_counts(rules.pack, rules.decks)
    neutral = round(system.irc(rules.pack, rules.decks) / rules.decks)
    # close calls come up most: each decision's chance of being dealt over its full-shoe margin
    pick = np.array([d.weight / (abs(d.margin) + 0.02) for d in decs])
    pick /= pick.sum()
    kinds = ["hand"] * 6 + ["rescue"] * (2 if rules.rescue else 0)
    kinds += ["insurance"] if "insurance" in side_wagers(rules) else []
    while s.asked < n:
        t = int(rng.integers(neutral - 3, neutral + 6))
        dealt = sample_shoe(rules, system, t, 0.75, rng)
        if dealt is None:
            continue
        shoe = full - dealt
        kind = kinds[int(rng.integers(len(kinds)))]
        tc = f"true count {true_count(system, rules, dealt):+.1f}"
        if kind == "insurance":  # per unit of the insurance wager, given an Ace up
            say(f"{tc}: the dealer shows an Ace; insurance?")
            opts = {"I": side_ev(rules, "insurance", identities_of(rules, shoe)), "N": 0.0}
            _grade_play(s, say, opts, _answer(ask, say, opts), f"insurance at TC {t:+d}")
            continue
        sol = solve(rules, shoe=tuple(int(x) for x in shoe))
        if kind == "rescue":
            q = _rescue_question(rules, sol, shoe, rng)
            if q is None:
                continue
            say(f"{tc}: {q[0]}")
            _grade_play(s, say, q[1], _answer(ask, say, q[1]), f"{q[0].split('ended on ')[1]} at TC {t:+d}")
            continue
        d = decs[int(rng.choice(len(decs), p=pick))]
        hand = hand_options(sol).get((d.i, d.j, d.up))
        if not hand:
            continue
        up = UPCARD_LABELS[[1, 2, 3, 4, 5, 6, 7, 8, 9, 0].index(d.up)]
        say(f"{tc}: you hold {VALUE_RANKS[d.i]} {VALUE_RANKS[d.j]} against {up}")
        _grade_play(s, say, hand, _answer(ask, say, hand), f"{d.hand} v {up} at TC {t:+d}")


def run_count_drill(rules: CasinoRules, system: CountSystem, kind: str, n: int, seed: int,
                    ask: Callable[[str], str], say: Callable[[str], None]) -> DrillSession:  # fmt: skip
    """Run ``n`` questions of the drill ``kind`` (q or the end of the input stops it early)."""
    if kind not in KINDS:
        raise PontoonError(f"--drill {kind!r}: accepted {', '.join(KINDS)}")
    rng = np.random.default_rng(seed)
    fn = {"running": drill_running, "true": drill_true, "index": drill_index}[kind]
    session = DrillSession(kind)

    def asker(prompt: str) -> str:
        try:
            return ask(prompt)
        except EOFError:
            raise EndOfDrill() from None

    try:
        fn(session, rules, system, n, rng, asker, say)
    except EndOfDrill:
        pass
    return session
