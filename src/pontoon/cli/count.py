"""``pontoon count``: effects of removal, count systems, an index chart, a counter's simulation.

    pontoon count --rules mbs
    pontoon count --rules mbs --count zen --penetration 0.8 --plot eor.png
    pontoon count --rules mbs --simulate 10000000 --ramp 1:1,2:2,3:4,4:8 [--no-indices]
    pontoon count --rules table.toml --count my-count.json --json

(docs/counting.md). Every figure is computed from the rules and the count alone.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import typer

from pontoon.cli.echo import echo
from pontoon.errors import PontoonError, RulesError

# the default ramp and index range sit around the count's neutral true count (that of a full shoe:
# -4 for Walker's count, whose IRC makes a neutral 48-card shoe read -4 a deck)
RAMP_STEPS = ((1, 1), (2, 2), (3, 4), (4, 8), (5, 12))


def _float(text: str, flag: str, lo: float, hi: float) -> float:
    try:
        v = float(text)
    except ValueError:
        raise PontoonError(f"bad {flag} {text!r}: give a number from {lo} to {hi}") from None
    if not (math.isfinite(v) and lo <= v <= hi):
        raise PontoonError(f"bad {flag} {text!r}: give a number from {lo} to {hi}")
    return v


def _int(text: str, flag: str, lo: int, hi: int) -> int:
    try:
        v = int(text.replace("_", ""))
    except ValueError:
        raise PontoonError(f"bad {flag} {text!r}: give a whole number from {lo:,} to {hi:,}") from None
    if not lo <= v <= hi:
        raise PontoonError(f"bad {flag} {text!r}: give a whole number from {lo:,} to {hi:,}")
    return v


def _tc_range(text: str, neutral: int) -> range:
    if text == "auto":
        return range(max(-10, neutral - 4), min(10, neutral + 7) + 1)
    a, sep, b = text.partition(":")
    try:
        lo, hi = int(a), int(b)
    except ValueError:
        lo, hi = 1, 0
    if not sep or not -10 <= lo < hi <= 10 or hi - lo < 3:
        raise PontoonError(
            f"bad --tc-range {text!r}: give auto or LOW:HIGH true counts, -10 to 10, at least 3 apart"
        )
    return range(lo, hi + 1)


def _png(path: str, flag: str) -> Path:
    p = Path(path)
    if p.suffix.lower() != ".png" or p.is_dir():
        raise PontoonError(f"{flag} {path!r}: give a .png file name")
    if not p.parent.is_dir():
        raise PontoonError(f"{flag} {path!r}: the folder {str(p.parent)!r} does not exist")
    return p


def _pct(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if abs(x) < 1e-12:  # zero but for rounding (the pair bet: every rank has as many cards)
        return "0"
    if abs(x * 100) < 0.0005:  # a change too small for three decimals (the pair bet's)
        return f"{x * 100:+.0e}"
    return f"{x * 100:+.3f}"


def _eor_lines(eff: Any) -> list[str]:
    from pontoon.analysis.states import VALUE_RANKS

    head = f"{'':12}" + "".join(f"{r:>8}" for r in VALUE_RANKS)
    out = [
        f"Effects of removal, % per card, per deck ({eff.rules.decks} decks scaled by {eff.scale:.3f})",
        head,
    ]
    for w, v in eff.per_deck.items():
        out.append(f"{w:12}" + "".join(f"{_pct(x):>8}" for x in v))
    base = ", ".join(f"{w} {x * 100:+.3f}%" for w, x in eff.base.items())
    out.append(f"full shoe: {base}")
    return out


def _count_lines(rows: list[dict[str, Any]], best: list[dict[str, Any]]) -> list[str]:
    out = ["", f"{'count':28}{'balanced':>9}{'IRC':>7}{'BC':>7}{'PE':>7}{'IC':>7}"]
    for r in rows:
        ic = r.get("insurance_correlation")
        out.append(
            f"{r['system']:28}{'yes' if r['balanced'] else 'no':>9}{r['irc']:>7.0f}"
            f"{r['betting_correlation']:>7.3f}{r['playing_efficiency']:>7.3f}"
            + (f"{ic:>7.3f}" if ic is not None else f"{'-':>7}")
        )
    for b in best:
        tags = " ".join(f"{k}{v:+.0f}" for k, v in b["tags"].items())
        out.append(f"best level-{b['level']} count: {tags}  (BC {b['betting_correlation']:.3f})")
    return out


def _index_lines(ix: list[dict[str, Any]], it: Any) -> list[str]:
    names = {"S": "stand", "H": "hit", "D": "double", "P": "split", "R": "surrender", "F": "rescue"}
    out = [
        "",
        f"Index chart ({it.system.name}, penetration {it.penetration:.2f}, true counts "
        f"{it.counts[0]} to {it.counts[-1]}, {sum(it.samples)} shoes analysed exactly, {it.seconds:.1f} s)",
    ]
    ups = "23456789TA"
    kinds = {"hard": 0, "soft": 1, "pair": 2, "doubled": 3}  # doubled: rescue vs stand (004 3.25.3)

    def order(x: dict[str, Any]) -> tuple[int, int, int]:
        kind, total = x["row"].split()
        t = 1 if total == "A" else 10 if total == "T" else int(total)
        return kinds[kind], t, ups.index(x["up"])

    plays = sorted((x for x in ix if x["row"] != "side"), key=order)
    for x in plays:
        sign = ">=" if x["direction"] == "+" else "<="
        out.append(
            f"  {x['row']:9} v {x['up']:2} {names[x['play']]:>9} -> {names[x['alt']]:9} at TC {sign} {x['index']:+.1f}"
        )
    if it.rescue_play and not any(x["row"].startswith("doubled") for x in plays):
        out.append("  rescue (doubled totals v each up card): the chart's play at every true count in range")
    ex = it.excluded()
    if ex:
        why = {"other": "the other play throughout the range", "twice": "cross twice",
               "unresolved": "unresolved (more shoes: --samples)"}  # fmt: skip
        n = {w: sum(x["why"] == w for x in ex) for w in why}
        out.append(
            "  not printed: " + ", ".join(f"{v} {why[w]}" for w, v in n.items() if v) + " (--json: excluded)"
        )
    for x in ix:
        if x["row"] == "side":
            at = (
                "no break-even in range"
                if x["index"] is None
                else f"bet at TC {'>=' if x['direction'] == '+' else '<='} {x['index']:+.1f}"
            )
            out.append(f"  {x['alt']:28} {at}")
    return out


def _sim_lines(s: dict[str, Any]) -> list[str]:
    if "share_played" not in s:
        return [
            "",
            f"Simulation: {s['rounds']:,} rounds seen, {s['rounds_played']:,} played: too few for figures",
        ]
    return [
        "",
        f"Simulation: {s['rounds']:,} rounds seen, {s['rounds_played']:,} played ({s['share_played']:.1%}), "
        f"ramp {s['ramp']}, {s['index_plays']} index plays, penetration {s['penetration']:.2f}",
        f"  advantage per initial bet {s['advantage_per_initial_bet'] * 100:+.3f}% +- {s['advantage_se'] * 100:.3f}",
        f"  per round played: EV {s['ev_per_round']:+.4f} +- {s['ev_per_round_se']:.4f} units, "
        f"SD {s['sd_per_round']:.3f}, average bet {s['average_bet']:.2f} units",
        f"  win per 100 rounds: {s['win_per_100_played']:+.2f} played, {s['win_per_100_seen']:+.2f} seen",
        f"  risk of ruin ({s['bankroll_units']:.0f} units) {s.get('risk_of_ruin', float('nan')):.4f} "
        f"+- {s.get('risk_of_ruin_se', float('nan')):.4f}; N0 {s.get('n0', float('nan')):,.0f} "
        f"+- {s.get('n0_se', float('nan')):,.0f}; DI {s.get('di', float('nan')):.2f} +- {s.get('di_se', float('nan')):.2f}; "
        f"SCORE {s.get('score', float('nan')):.2f} +- {s.get('score_se', float('nan')):.2f}",
        f"  {s['rounds_per_second'] / 1e6:.2f} M rounds/s ({s['seconds']:.1f} s, compile {s['compile_seconds']:.1f} s)",
    ]


def draw_eor(eff: Any, path: Path) -> None:
    """The effects of removal as grouped bars (matplotlib, Agg): the main game above, the side
    wagers (per unit of each wager, a larger scale) below."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from pontoon.analysis.states import VALUE_RANKS

    groups = [[k for k in eff.per_deck if k in ("basic", "optimal")]]
    sides = [k for k in eff.per_deck if k not in ("basic", "optimal")]
    if sides:
        groups.append(sides)
    fig, axes = plt.subplots(len(groups), 1, figsize=(9, 3.6 * len(groups)), dpi=110, squeeze=False)
    x = np.arange(10)
    for ax, keys in zip(axes[:, 0], groups, strict=True):
        width = 0.8 / len(keys)
        for k, w in enumerate(keys):
            ax.bar(x + (k - (len(keys) - 1) / 2) * width, np.array(eff.per_deck[w]) * 100, width, label=w)
        ax.set_xticks(x, VALUE_RANKS)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_ylabel("% per card, per deck")
        ax.legend(fontsize=8)
    axes[0, 0].set_title(f"Effects of removal: {eff.rules.name} ({eff.rules.decks} decks)")
    if sides:
        axes[1, 0].set_title("side wagers (per unit of each wager)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _drill(rules: Any, system: Any, kind: str, n: int, seed: int) -> None:
    from pontoon.cli.count_drill import KINDS, run_count_drill

    if kind not in KINDS:
        raise PontoonError(f"--drill {kind!r}: accepted {', '.join(KINDS)}")

    def ask(prompt: str) -> str:
        echo(prompt)
        return input()

    s = run_count_drill(rules, system, kind, n, seed, ask, echo)
    echo(f"drill {kind}: {s.asked} asked, {s.correct} correct; cost {s.cost:.4f}")
    for m in s.mistakes[:10]:
        echo(f"  mistake: {m}")


def count_command(
    rules: str = typer.Option("mbs", "--rules", help="preset id/alias or a table's .toml file"),
    set_: list[str] = typer.Option([], "--set", help="override a rule field: NAME=VALUE (repeatable)"),
    count: list[str] = typer.Option(
        [],
        "--count",
        help="count systems to evaluate (hi-lo, ko, hi-opt-ii, zen, walker-hi-lo or a .json file; "
        "repeatable; the first one makes the index chart). Default: all built-in",
    ),
    penetration: str = typer.Option(
        "0.75", "--penetration", help="share of the shoe dealt before the shuffle"
    ),
    samples: str = typer.Option(
        "8", "--samples", help="shoes analysed exactly per true count for the indices"
    ),
    tc_range: str = typer.Option(
        "auto",
        "--tc-range",
        help="true counts of the index chart, LOW:HIGH (auto: the neutral count -4 to +7)",
    ),
    no_indices: bool = typer.Option(
        False, "--no-indices", help="no index chart (and simulate without indices)"
    ),
    simulate: str = typer.Option(
        "0", "--simulate", help="simulate this many rounds of the counter (0: none)"
    ),
    ramp: str = typer.Option(
        "auto",
        "--ramp",
        help="bet ramp TC:UNITS[xBOXES],...; below it: sit out (auto: 1, 2, 4, 8, 12 units from the neutral "
        "count +1 to +5)",
    ),
    bankroll: str = typer.Option("1000", "--bankroll", help="bankroll in table bets, for the risk of ruin"),
    seed: str = typer.Option("1", "--seed", help="seed of the sampled shoes and the simulation"),
    plot: str | None = typer.Option(None, "--plot", help="also draw the effects of removal to this PNG"),
    as_json: bool = typer.Option(False, "--json", help="print everything as JSON"),
    drill: str | None = typer.Option(
        None, "--drill", help="a counting drill instead: running, true or index (answers on standard input)"
    ),
    questions: str = typer.Option("20", "--questions", help="questions in the drill"),
    workers: str | None = typer.Option(
        None, "--workers", help="simulate on a local Dask cluster of N workers"
    ),
) -> None:
    """Card counting: effects of removal, count systems, index chart, a counter's simulation."""
    from pontoon.analysis.counts import SYSTEMS, best_linear_count, decision_effects, evaluate, find_system
    from pontoon.analysis.eor import effects_of_removal
    from pontoon.money import dumps
    from pontoon.rules.load import parse_set_options, resolve_rules
    from pontoon.rules.model import CasinoRules

    pen = _float(penetration, "--penetration", 0.1, 0.95)
    nsamp = _int(samples, "--samples", 1, 50)
    rounds = _int(simulate, "--simulate", 0, 10**12)
    bank = _float(bankroll, "--bankroll", 1, 1e9)
    sd = _int(seed, "--seed", 0, 2**63 - 1)
    nw = None if workers is None else _int(workers, "--workers", 1, 256)
    png = _png(plot, "--plot") if plot else None
    r = resolve_rules(rules, parse_set_options(set_) if set_ else None)
    if not isinstance(r, CasinoRules):
        raise RulesError(f"pontoon count covers the casino presets and blackjack, not {rules!r}")
    systems = [find_system(c) for c in count] if count else list(SYSTEMS.values())
    if count == [] and r.pack == "pontoon48":  # Walker's count first on 48-card decks
        systems.sort(key=lambda s: s.name != SYSTEMS["walker-hi-lo"].name)
    if drill is not None:
        _drill(r, systems[0], drill, _int(questions, "--questions", 1, 10_000), sd)
        return
    neutral = round(systems[0].irc(r.pack, r.decks) / r.decks)
    tcs = _tc_range(tc_range, neutral)
    ramp_rows = None
    if rounds:
        from pontoon.sim.counting import TC_HI, parse_ramp

        if ramp == "auto":
            ramp = ",".join(f"{min(neutral + d, TC_HI)}:{u}" for d, u in RAMP_STEPS)
        ramp_rows = parse_ramp(ramp)
    eff = effects_of_removal(r)
    de = decision_effects(r)
    rows = [evaluate(r, s, eff, de, pen) for s in systems]
    best = [best_linear_count(r, eff, lv) for lv in (1, 2, 3)]
    out: dict[str, Any] = {"effects_of_removal": eff.as_dict(), "counts": rows, "best_linear": best}
    lines = _eor_lines(eff) + _count_lines(rows, best)
    ix = None
    if not no_indices:
        from pontoon.analysis.indices import index_table

        it = index_table(r, systems[0], penetration=pen, counts=tcs, samples=nsamp, seed=sd, effects=de)
        ix = it.indices()
        out["indices"] = {"system": systems[0].name, "penetration": pen, "true_counts": it.counts,
                          "mean_true_count": it.mean_tc, "shoes": it.samples, "seconds": it.seconds,
                          "chart": ix, "excluded": it.excluded()}  # fmt: skip
        lines += _index_lines(ix, it)
    if rounds and ramp_rows is not None:
        from pontoon.sim.counting import simulate_count

        s = simulate_count(
            r, rounds, systems[0], ramp_rows, indices=ix, penetration=pen, seed=sd, bankroll=bank, workers=nw
        )
        out["simulation"] = s
        lines += _sim_lines(s)
    if png is not None:
        try:
            draw_eor(eff, png)
        except OSError as err:
            raise PontoonError(f"cannot write --plot {plot!r}: {err.strerror or err}") from None
        lines.append(f"plot written to {png}")
    echo(dumps(out, indent=2) if as_json else "\n".join(lines))
