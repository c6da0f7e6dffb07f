"""``pontoon simulate``: the fast Monte Carlo simulator (numba kernels, optional Dask cluster)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import typer

from pontoon.errors import PontoonError
from pontoon.money import dumps


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


# options that describe casino play: refused for the British games, not ignored (issue 10 item 5)
CASINO_ONLY = (
    "--boxes",
    "--side-bets",
    "--insurance",
    "--penetration",
    "--bet",
    "--plot",
    "--session-length",
    "--dashboard",
)
# the British kernel runs in chunks on Dask as the casino one; the engine path takes none of these
KERNEL_ONLY = ("--workers", "--scheduler", "--chunk-rounds")
BRITISH_ONLY = ("--players", "--engine")


def simulate_command(
    rules: str = typer.Option(
        "mbs",
        "--rules",
        help="preset (mbs, federal, rws-plus, rws-pandemonium, blackjack, british, shoot) or a table .toml",
    ),
    rounds: int = typer.Option(1_000_000, "--rounds", "-n", help="rounds to play (1 to 10**15)"),
    boxes: int | None = typer.Option(
        None, "--boxes", help="boxes played each round (one bettor each; default 1)"
    ),
    strategy: str | None = typer.Option(
        None,
        "--strategy",
        help="basic (default), optimal or a JSON chart file; British: bots (default) or solved (the heads-up solution)",
    ),
    side_bets: str | None = typer.Option(
        None, "--side-bets", help="comma-separated side bets to place on every box: pair,bonus,pandemonium"
    ),
    insurance: str | None = typer.Option(
        None, "--insurance", help="never (default) or always (half the wager, when the dealer shows an Ace)"
    ),
    penetration: float | None = typer.Option(
        None, "--penetration", help="fraction of the shoe dealt before the cut card"
    ),
    csm: bool = typer.Option(
        False,
        "--csm",
        help="continuous shuffler: reshuffle before every round (British: a fresh pack each round)",
    ),
    seed: int | None = typer.Option(
        None,
        "--seed",
        help="seed (0 to 2**128-1): the same seed gives the same totals on any number of workers",
    ),
    workers: int | None = typer.Option(
        None, "--workers", help="start a local Dask cluster of this many worker processes (1 to 256)"
    ),
    scheduler: str | None = typer.Option(
        None, "--scheduler", help="address of an existing Dask scheduler, e.g. tcp://10.0.0.5:8786"
    ),
    dashboard: bool = typer.Option(
        False,
        "--dashboard",
        help="with --workers: open the Dask dashboard on 127.0.0.1:8787 (off by default)",
    ),
    as_json: bool = typer.Option(False, "--json", help="print the report as one JSON object"),
    plot: Path | None = typer.Option(
        None, "--plot", help="draw the distribution of session results to this PNG"
    ),
    session_length: int | None = typer.Option(
        None, "--session-length", help="rounds per session for --plot (default 100)"
    ),
    bet: str | None = typer.Option(None, "--bet", help="main wager per box (default: the table minimum)"),
    set_: list[str] = typer.Option([], "--set", help="override a rule field: NAME=VALUE (repeatable)"),
    chunk_rounds: int | None = typer.Option(
        None, "--chunk-rounds", help="rounds per work chunk, 1 to 5,000,000 (part of what a seed reproduces)"
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="progress bar on standard error"),
    players: int | None = typer.Option(
        None, "--players", help="British: players besides the banker, 1 to 12 (default 4)"
    ),
    engine: bool = typer.Option(
        False, "--engine", help="British: play the rounds through the engine (slow; for checking the kernel)"
    ),
) -> None:
    """Simulate many rounds fast and report the house edge, its 95% CI and every pay line."""
    from pontoon.rules import parse_set_options, resolve_rules
    from pontoon.sim.api import DEFAULT_CHUNK, simulate

    try:
        if rounds < 1:
            _fail(f"--rounds {rounds}: give a positive number of rounds")
        table = resolve_rules(rules, parse_set_options(set_) if set_ else None)
        given = {
            "--boxes": boxes is not None, "--strategy": strategy is not None, "--side-bets": side_bets is not None,
            "--insurance": insurance is not None, "--penetration": penetration is not None, "--csm": csm,
            "--bet": bet is not None, "--plot": plot is not None, "--session-length": session_length is not None,
            "--workers": workers is not None, "--scheduler": scheduler is not None,
            "--chunk-rounds": chunk_rounds is not None, "--dashboard": dashboard,
            "--players": players is not None, "--engine": engine,
        }  # fmt: skip
        _refuse_casino_only(table, given)
        if dashboard and workers is None:
            _fail("--dashboard needs --workers N (it shows the local Dask cluster)")
        sl, sess = _sessions_option(plot, session_length)
        cr = DEFAULT_CHUNK if chunk_rounds is None else chunk_rounds
        bar = _ProgressBar(rounds)
        try:
            out = simulate(
                table,
                rounds,
                boxes=1 if boxes is None else boxes,
                strategy=strategy or "basic",
                side_bets=[s for s in (side_bets or "").split(",") if s.strip()],
                insurance=insurance or "never",
                penetration=penetration,
                csm=csm,
                seed=seed,
                workers=workers,
                scheduler=scheduler,
                session_length=sess,
                bet=bet,
                chunk_rounds=cr,
                progress=bar.update if progress and not as_json and rounds >= 2 * cr else None,
                dashboard=dashboard,
                players=4 if players is None else players,
                engine=engine,
            )
        finally:
            bar.close()
    except PontoonError as err:
        _fail(str(err))
        return
    _emit(out, plot, sl, as_json)


def _refuse_casino_only(table: Any, given: dict[str, bool]) -> None:
    """The British games take --rounds, --seed, --set and --json only (issue 10 item 5)."""
    from pontoon.rules.model import CasinoRules

    if isinstance(table, CasinoRules):
        bad = [k for k in BRITISH_ONLY if given[k]]
        if bad:
            _fail(f"{', '.join(bad)} applies to the British games (british, shoot), not to {table.preset}")
        return
    bad = [k for k in CASINO_ONLY if given[k]]
    if bad:
        _fail(
            f"{', '.join(bad)} does not apply to {table.preset}: the British simulator plays the bots' tables "
            "(accepted: --rounds, --seed, --set, --json, --players, --strategy bots|solved, --csm, --engine, "
            "--workers, --scheduler, --chunk-rounds)"
        )
    bad = [k for k in (*KERNEL_ONLY, "--strategy", "--csm") if given[k]]
    if given["--engine"] and bad:
        _fail(f"{', '.join(bad)} does not apply to --engine: the engine plays in this process")


def _sessions_option(plot: Path | None, session_length: int | None) -> tuple[int, int]:
    """(session length for the plot, session length for the simulator: 0 without --plot)."""
    if plot is not None:
        _check_plot_path(plot)
    sl = 100 if session_length is None else session_length
    if session_length is not None and plot is None:
        _fail("--session-length applies to --plot: give --plot FILE.png too")
    if plot is not None and sl < 1:
        _fail(f"--session-length {sl}: give a positive number of rounds")
    return sl, sl if plot is not None else 0


class _ProgressBar:
    """A tqdm bar on standard error that appears with the first finished chunk (never before an
    error)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar: Any = None

    def update(self, n: int) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=self.total, unit="rd", unit_scale=True, file=sys.stderr, desc="simulate", smoothing=0.1
            )
        self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _emit(out: dict[str, Any], plot: Path | None, sl: int, as_json: bool) -> None:
    """Draw the plot (when asked) and print the report, as JSON or as tables."""
    hist_w = out.pop("_session_hist", None)
    if plot is not None:
        if hist_w is None:
            _fail(f"--plot: no complete session of {sl} rounds was played")
        draw_sessions(hist_w, out, plot)
        out["plot"] = str(plot)
    if as_json:
        typer.echo(dumps(out, indent=2, default=str))  # exact decimals as JSON numbers (issue 10 item 10)
    else:
        print_report(out)


def _check_plot_path(plot: Path) -> None:
    if plot.suffix.lower() != ".png":
        _fail(f"--plot {str(plot)!r}: the picture is written as PNG, give a .png file name")
    if plot.is_dir():
        _fail(f"--plot {str(plot)!r} is a directory: give a .png file name")
    if not plot.parent.is_dir():
        _fail(f"--plot {str(plot)!r}: the folder {str(plot.parent)!r} does not exist")


def draw_sessions(hist_w: tuple[Any, int], out: dict[str, Any], path: Path) -> None:
    """A histogram of the net result of each session, in main wagers (matplotlib, Agg), drawn from
    the streamed fixed-size histogram (``sim/sessions.py``): no session is kept in memory."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    s = out["sessions"]
    hist, wager_quanta = hist_w  # the histogram is in money quanta; a main wager is wager_quanta of them
    edges, counts = hist.bins()
    left = edges / wager_quanta
    width = hist.width / wager_quanta
    # regroup to about 90 bars of whole wagers
    group = max(1, int(math.ceil(len(counts) / 90)), int(math.ceil(1.0 / width)) if width < 1 else 1)
    k = int(math.ceil(len(counts) / group)) * group
    c = np.zeros(k, dtype=np.float64)
    c[: len(counts)] = counts
    c = c.reshape(-1, group).sum(axis=1)
    e = left[0] + np.arange(len(c) + 1) * width * group
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    ax.stairs(c / (c.sum() * width * group), e, fill=True, color="#2f6f9f", alpha=0.85, label="sessions")
    lo, hi = float(e[0]), float(e[-1])
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
    else:  # British Pontoon: the banker's edge (the kernel's tables, or the engine with bots)
        how = (
            f"British kernel, {out['strategy']}, {out['pack']}"
            if out.get("simulator") == "kernel"
            else "British engine, bots"
        )
        con.print(
            f"[bold]{out.get('rules', 'british')}[/bold]: {out['rounds']:,} rounds, "
            f"{out.get('players', 4)} player(s) and the banker ({how}), seed {out.get('seed')}"
        )
    con.print(
        f"house edge [bold]{100 * out['house_edge']:.3f}%[/bold] +/- {100 * out['ci95']:.3f}% (95% CI), "
        f"sd {out['sd']:.3f} per round"
    )
    con.print(
        f"{out['seconds']:.2f} s, [bold]{out['rounds_per_second']:,.0f}[/bold] rounds/s"
        + (f" on {out['workers']} worker(s)" if "workers" in out else "")
        + (
            f" (simulation only; compiling or loading the kernels took {out['compile_seconds']:.2f} s more)"
            if "compile_seconds" in out
            else ""
        )
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
