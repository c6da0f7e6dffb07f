"""``pontoon simulate``: the fast Monte Carlo simulator (numba kernels, optional Dask cluster)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import typer

from pontoon.errors import PontoonError


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def simulate_command(
    rules: str = typer.Option(
        "mbs",
        "--rules",
        help="preset (mbs, federal, rws-plus, rws-pandemonium, blackjack, british, shoot) or a table .toml",
    ),
    rounds: int = typer.Option(1_000_000, "--rounds", "-n", help="rounds to play"),
    boxes: int = typer.Option(1, "--boxes", help="boxes played each round (one bettor each)"),
    strategy: str = typer.Option("basic", "--strategy", help="basic, optimal or a JSON chart file"),
    side_bets: str = typer.Option(
        "", "--side-bets", help="comma-separated side bets to place on every box: pair,bonus,pandemonium"
    ),
    insurance: str = typer.Option(
        "never", "--insurance", help="never or always (half the wager, when the dealer shows an Ace)"
    ),
    penetration: float | None = typer.Option(
        None, "--penetration", help="fraction of the shoe dealt before the cut card"
    ),
    csm: bool = typer.Option(False, "--csm", help="continuous shuffler: reshuffle before every round"),
    seed: int | None = typer.Option(
        None, "--seed", help="seed: the same seed gives the same totals on any number of workers"
    ),
    workers: int | None = typer.Option(
        None, "--workers", help="start a local Dask cluster of this many worker processes"
    ),
    scheduler: str | None = typer.Option(
        None, "--scheduler", help="address of an existing Dask scheduler, e.g. tcp://10.0.0.5:8786"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the report as one JSON object"),
    plot: Path | None = typer.Option(
        None, "--plot", help="draw the distribution of session results to this PNG"
    ),
    session_length: int = typer.Option(100, "--session-length", help="rounds per session for --plot"),
    bet: str | None = typer.Option(None, "--bet", help="main wager per box (default: the table minimum)"),
    set_: list[str] = typer.Option([], "--set", help="override a rule field: NAME=VALUE (repeatable)"),
    chunk_rounds: int = typer.Option(
        500_000, "--chunk-rounds", help="rounds per work chunk (part of what a seed reproduces)"
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="progress bar on standard error"),
) -> None:
    """Simulate many rounds fast and report the house edge, its 95% CI and every pay line."""
    from pontoon.rules import parse_set_options, resolve_rules
    from pontoon.sim.api import simulate

    try:
        if rounds < 1:
            _fail(f"--rounds {rounds}: give a positive number of rounds")
        table = resolve_rules(rules, parse_set_options(set_) if set_ else None)
        sides = [s for s in side_bets.split(",") if s.strip()]
        if plot is not None and plot.suffix.lower() != ".png":
            _fail(f"--plot {str(plot)!r}: the picture is written as PNG, give a .png file name")
        sess = session_length if plot is not None else 0
        if plot is not None and session_length < 1:
            _fail(f"--session-length {session_length}: give a positive number of rounds")
        bar = None
        cb = None
        if progress and not as_json and rounds >= 2 * chunk_rounds:
            from tqdm import tqdm

            bar = tqdm(
                total=rounds, unit="rd", unit_scale=True, file=sys.stderr, desc="simulate", smoothing=0.1
            )
            cb = bar.update
        try:
            out = simulate(
                table,
                rounds,
                boxes=boxes,
                strategy=strategy,
                side_bets=sides,
                insurance=insurance,
                penetration=penetration,
                csm=csm,
                seed=seed,
                workers=workers,
                scheduler=scheduler,
                session_length=sess,
                bet=bet,
                chunk_rounds=chunk_rounds,
                progress=cb,
            )
        finally:
            if bar is not None:
                bar.close()
    except PontoonError as err:
        _fail(str(err))
        return
    nets = out.pop("_session_nets", None)
    if plot is not None:
        if nets is None:
            _fail(f"--plot: no complete session of {session_length} rounds was played")
        draw_sessions(nets, out, plot)
        out["plot"] = str(plot)
    if as_json:
        typer.echo(json.dumps(out, indent=2, default=str))
    else:
        print_report(out)


def draw_sessions(nets: Any, out: dict[str, Any], path: Path) -> None:
    """A histogram of the net result of each session, in main wagers (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    s = out["sessions"]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    lo, hi = float(np.min(nets)), float(np.max(nets))
    step = max(1.0, float(math.ceil((hi - lo) / 90)))  # results are in half wagers: whole-wager bins
    bins: Any = np.arange(math.floor(lo) - step / 2, math.ceil(hi) + step, step)
    ax.hist(nets, bins=bins, color="#2f6f9f", alpha=0.85, density=True, label="sessions")
    xs = np.linspace(lo, hi, 400)
    if s["sd"] > 0:
        ax.plot(
            xs,
            np.exp(-0.5 * ((xs - s["mean"]) / s["sd"]) ** 2) / (s["sd"] * math.sqrt(2 * math.pi)),
            color="#c0392b",
            lw=1.5,
            label="normal, same mean and sd",
        )
    ax.axvline(0, color="black", lw=0.8)
    ax.axvline(s["mean"], color="#c0392b", lw=1, ls="--", label=f"mean {s['mean']:+.2f}")
    ax.set_xlabel(f"net result of a session of {s['length']} rounds (main wagers, {out['boxes']} box)")
    ax.set_ylabel("density")
    ax.set_title(
        f"{out['rules']}: {s['count']:,} sessions; ahead {100 * s['p_ahead']:.1f}%, behind {100 * s['p_behind']:.1f}%; "
        f"house edge {100 * out['house_edge']:.2f}%"
    )
    ax.title.set_fontsize(9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as err:
        raise PontoonError(f"--plot {str(path)!r}: cannot write the picture: {err}") from None
    finally:
        plt.close(fig)


def print_report(out: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console()
    if "boxes" in out:
        con.print(
            f"[bold]{out['rules']}[/bold]: {out['rounds']:,} rounds x {out['boxes']} box, strategy {out['strategy']}, "
            f"{out['shuffle']}, seed {out['seed']}"
        )
    else:  # British Pontoon: the British engine's simulator (edge from the banker's side)
        con.print(
            f"[bold]{out.get('rules', 'british')}[/bold]: {out['rounds']:,} rounds (British engine, bots)"
        )
    con.print(
        f"house edge [bold]{100 * out['house_edge']:.3f}%[/bold] +/- {100 * out['ci95']:.3f}% (95% CI), "
        f"sd {out['sd']:.3f} per round"
    )
    con.print(
        f"{out['seconds']:.2f} s, [bold]{out['rounds_per_second']:,.0f}[/bold] rounds/s"
        + (f" on {out['workers']} worker(s)" if "workers" in out else "")
    )
    t = Table(title="pay lines (per box-round; return per main wager; side bets per side wager)")
    t.add_column("line")
    t.add_column("hits", justify="right")
    t.add_column("hit rate", justify="right")
    t.add_column("return", justify="right")
    for name, v in out["lines"].items():
        hits = v.get("hits")
        t.add_row(name, "" if hits is None else f"{hits:,}", f"{v['hit_rate']:.6f}", f"{v['return']:+.6f}")
    con.print(t)
    c = out.get("counts")
    if c:
        con.print(
            f"doubles {c['doubles']:,}, splits {c['splits']:,}, dealer Pontoons {c['dealer_pontoon']:,}, "
            f"void rounds {c['void_rounds']:,}"
        )
    if "sessions" in out:
        s = out["sessions"]
        con.print(
            f"sessions of {s['length']} rounds: mean {s['mean']:+.3f}, sd {s['sd']:.3f}, ahead {100 * s['p_ahead']:.1f}%"
            + (f"; plot written to {out['plot']}" if "plot" in out else "")
        )
    for note in out.get("notes", []):
        con.print(f"[yellow]note:[/yellow] {note}")
