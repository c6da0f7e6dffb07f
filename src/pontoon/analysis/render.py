"""Showing a report: coloured strategy chart and summary in the terminal (rich), chart as a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pontoon.analysis.states import UPCARD_LABELS

if TYPE_CHECKING:  # rich is imported by print_report only: the math report's charts read the cells
    from rich.console import Console

COLOURS = {
    "H": ("black", "#d9d9d9"),
    "S": ("black", "#f4d03f"),
    "D": ("white", "#2e86c1"),
    "Ds": ("white", "#5dade2"),
    "P": ("white", "#28b463"),
    "R": ("white", "#c0392b"),
    "Rs": ("white", "#e74c3c"),
    "F": ("white", "#8e44ad"),
}
RICH = {
    "H": "black on grey70",
    "S": "black on yellow",
    "D": "white on blue",
    "Ds": "white on dodger_blue2",
    "P": "white on green4",
    "R": "white on red3",
    "Rs": "white on red1",
    "F": "white on purple",
}


def _head(cell: str) -> str:
    return cell.split(";")[0].strip()


def _short(cell: str) -> str:
    """'H; S with 5+ cards' -> 'H*' in the grid (the footnotes give the exceptions)."""
    return _head(cell) + ("*" if ";" in cell else "")


def chart_rows(strategy: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    rows: list[tuple[str, dict[str, str]]] = []
    for t, cells in strategy.get("hard", {}).items():
        rows.append((f"hard {t}", cells))
    for t, cells in strategy.get("soft", {}).items():
        rows.append((f"soft {t}", cells))
    for p, cells in strategy.get("pair", {}).items():
        rows.append((f"pair {p}-{p}", cells))
    for t, cells in strategy.get("rescue", {}).items():
        rows.append((f"rescue {t}", cells))
    return rows


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    con = console or Console()
    rules = report["rules"]
    he = report["house_edge"]
    summary = Table(
        title=f"{rules.get('name') or rules['preset']}: {rules['decks']} decks", show_header=False
    )
    summary.add_column("item")
    summary.add_column("value", justify="right")
    summary.add_row("house edge, basic strategy", f"{he['basic'] * 100:.4f}%")
    summary.add_row("house edge, composition-dependent", f"{he['optimal'] * 100:.4f}%")
    for name, sb in report["side_bets"].items():
        if "house_edge" in sb:
            extra = f" (hit rate {sb['hit_rate'] * 100:.3f}%)" if "hit_rate" in sb else ""
            summary.add_row(f"{name} side bet house edge", f"{sb['house_edge'] * 100:.3f}%{extra}")
        if "probability" in sb:
            summary.add_row(f"{name} per round", f"{sb['probability']:.3e}")
    summary.add_row("analysis time", f"{report['seconds']:.2f} s")
    con.print(summary)
    chart = Table(title="Basic strategy (player hand down, dealer's card across)")
    chart.add_column("hand", no_wrap=True)
    for u in UPCARD_LABELS:
        chart.add_column(u, justify="center")
    notes: list[str] = []
    for name, cells in chart_rows(report["strategy"]):
        out = []
        for u in UPCARD_LABELS:
            c = cells.get(u, "")
            if ";" in c:
                notes.append(f"{name} vs {u}: {c}")
            out.append(f"[{RICH.get(_head(c), '')}]{_short(c):^4}[/]" if c else "")
        chart.add_row(name, *out)
    con.print(chart)
    if notes:
        con.print("[bold]* card-count exceptions[/bold]")
        for n in notes:
            con.print("  " + n)
    con.print(report["notation"], style="dim")


def save_chart(report: dict[str, Any], path: str | Path) -> Path:
    """The chart as a PNG (matplotlib, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    rows = chart_rows(report["strategy"])
    fig_h = 0.28 * (len(rows) + 4)
    fig, ax = plt.subplots(figsize=(7.5, fig_h))
    ax.set_xlim(0, len(UPCARD_LABELS) + 1.6)
    ax.set_ylim(len(rows) + 1, 0)
    ax.axis("off")
    for k, u in enumerate(UPCARD_LABELS):
        ax.text(1.6 + k + 0.5, 0.5, u, ha="center", va="center", fontsize=9, weight="bold")
    for r, (name, cells) in enumerate(rows, start=1):
        ax.text(1.5, r + 0.5, name, ha="right", va="center", fontsize=8)
        for k, u in enumerate(UPCARD_LABELS):
            c = cells.get(u)
            if not c:
                continue
            fg, bg = COLOURS.get(_head(c), ("black", "white"))
            ax.add_patch(Rectangle((1.6 + k, r), 1, 1, facecolor=bg, edgecolor="white"))
            ax.text(1.6 + k + 0.5, r + 0.5, _short(c), ha="center", va="center", fontsize=7, color=fg)
    rules = report["rules"]
    he = report["house_edge"]
    ax.set_title(
        f"{rules.get('name') or rules['preset']} ({rules['decks']} decks): house edge "
        f"{he['basic'] * 100:.3f}% basic, {he['optimal'] * 100:.3f}% optimal\n"
        "* card-count exception (see the JSON report)",
        fontsize=8,
    )
    p = Path(path)
    fig.savefig(p, dpi=130, bbox_inches="tight")
    plt.close(fig)
    return p
