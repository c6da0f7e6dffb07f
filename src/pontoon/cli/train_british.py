"""``pontoon train --rules british|shoot``: drill the British game's decisions, each answer graded with its
exact EV cost (analysis/british/hints.py, from the seat's view only: ruling 35).

Heads-up deals from a freshly shuffled pack (seeded), one initial stake of the table minimum; you are the
player on odd hands and the banker on even hands, against the solved bot. Keys: ``s`` stick, ``t`` twist,
``b`` buy for one initial stake, ``d`` buy for two (the model's buy grid), ``q`` quit. Shoot windows are
passed (the drill is about drawing). Only decisions with two or more choices are asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from rich.console import Console

from pontoon.analysis.british.bots import make_bots
from pontoon.analysis.british.game import check_seats as check
from pontoon.analysis.british.hints import round_hint
from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import BritishRound
from pontoon.money import fmt
from pontoon.rules.british import BritishRules

KEYS = {"s": "stick", "t": "twist", "b": "buy1", "d": "buy2"}


class DrillEnd(Exception):
    pass


def _label(rnd: BritishRound, seat: str) -> str:
    v = rnd.view(seat)
    if seat == rnd.banker:
        shown = "; ".join(f"{h['owner']} {' '.join(h['cards'])} ({h['stake']})" for h in v["hands"])
        return f"banker {' '.join(v['banker_cards'])} v {shown}"
    mine = next(h for h in v["hands"] if h["owner"] == seat)
    return f"player {' '.join(mine['cards'])} ({mine['stake']})"


def run_british_drill(
    rules: BritishRules,
    *,
    hands: int | None,
    seed: int | None,
    console: Console,
    ask: Callable[[str], str],
) -> dict[str, Any]:
    """The drill loop; ``ask(prompt)`` returns one answer or raises EOFError; returns the session summary
    (the casino drill's shape: pontoon history --drills lists it)."""
    check(rules)
    rng = np.random.default_rng(seed)
    bots = make_bots("solved", rules, np.random.default_rng(None if seed is None else [seed, 5]))
    spots: list[dict[str, Any]] = []
    played = 0
    try:
        while hands is None or played < hands:
            played += 1
            you_bank = played % 2 == 0
            players, banker = (["bot"], "you") if you_bank else (["you"], "bot")
            pack = BritishPack.shuffled(rules.packs_for(2), rng, one_pack(rules))
            rnd = BritishRound(rules, players, banker, pack, kitty=rules.kitty_max if rules.shoot else 0)
            while not rnd.is_over():
                seat = rnd.to_act()
                assert seat is not None
                if seat != "you" or rnd.phase not in ("play", "banker"):
                    if seat == "you":
                        legal = {a.verb: a for a in rnd.legal_actions()}
                        if "stake" in legal:
                            rnd.act(seat, "stake", rules.stake_min)
                        else:
                            rnd.act(seat, "pass")
                        continue
                    s, verb, amt = bots.decide(rnd)
                    rnd.act(s, verb, amt)
                    continue
                _ask_one(rnd, console, ask, spots, played)
            net = rnd.net()["you"]["total"]  # the banker included (round.net)
            console.print(
                f"  {_label(rnd, 'you')}; banker {' '.join(rnd.view('you')['banker_cards'])}; your net {fmt(net)}"
            )
    except EOFError:
        pass
    return _summary(rules, played, spots)


def _ask_one(
    rnd: BritishRound, console: Console, ask: Callable[[str], str], spots: list[dict[str, Any]], n: int
) -> None:
    hint = round_hint(rnd, "you")
    vals: dict[str, float] = hint["values"]
    legal = {a.verb: a for a in rnd.legal_actions()}
    if len(vals) < 2:  # off the model or a forced move: played as the solved bot would, unasked
        verb = next(iter(legal))
        rnd.act("you", verb, legal[verb].low)
        return
    initial = rnd.rules.stake_min
    by_key = {}
    for k, a in KEYS.items():
        label = a if not a.startswith("buy") else f"buy {fmt(initial * int(a[3:]))}"
        if label in vals:
            by_key[k] = label
    label = _label(rnd, "you")
    menu = "  ".join(f"[bold]{k}[/bold] {v}" for k, v in by_key.items())
    console.print(f"hand {n}: {label}")
    while True:
        ans = ask(f"{menu}  [bold]q[/bold] quit >").strip().lower()
        if ans in ("q", "quit"):
            raise EOFError
        if ans in by_key:
            break
        console.print(f"[red]'{ans}' is not a choice here: choose one of {', '.join(by_key)} or q[/red]")
    pick = by_key[ans]
    best = max(vals, key=lambda a: vals[a])
    cost = (vals[best] - vals[pick]) / float(initial)
    spots.append({"spot": label, "answer": pick, "best": best, "cost": cost})
    detail = "   ".join(f"{a} {vals[a]:+.4f}" for a in sorted(vals, key=lambda a: -vals[a]))
    if cost <= 1e-12:
        console.print(f"[green]correct[/green]: {pick} ({detail})")
    else:
        console.print(
            f"[red]mistake[/red]: best is [bold]{best}[/bold] {vals[best]:+.4f}, yours {pick} {vals[pick]:+.4f}: "
            f"costs {cost:.4f} of the initial stake   ({detail})"
        )
    verb = pick.split()[0]
    rnd.act("you", verb, pick.split()[1] if verb == "buy" else None)


def _summary(rules: BritishRules, hands: int, spots: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(spots)
    right = sum(1 for s in spots if s["cost"] <= 1e-12)
    cost = sum(s["cost"] for s in spots)
    worst = sorted((s for s in spots if s["cost"] > 1e-12), key=lambda s: -s["cost"])[:5]
    return {
        "rules": rules.preset,
        "only": "all",
        "hands": hands,
        "decisions": n,
        "correct": right,
        "accuracy": right / n if n else 0.0,
        "cost": cost,
        "cost_per_100_hands": 100 * cost / hands if hands else 0.0,
        "worst": worst,
    }
