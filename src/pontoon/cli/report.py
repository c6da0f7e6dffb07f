"""``pontoon report``: the math report of one table or several side by side (issue 23)."""

from __future__ import annotations

import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import typer

from pontoon.errors import PontoonError, RulesError

FORMATS = ("html", "pdf", "json", "md")


def _money(text: str | None, flag: str) -> Decimal | None:
    if text is None:
        return None
    from pontoon.money import to_money

    v = to_money(text, flag)
    if v <= 0:
        raise PontoonError(f"bad {flag} {text!r}: give a positive amount")
    return v


def _rules(name: str, sets: list[str]) -> Any:
    from pontoon.rules.load import parse_set_options, resolve_rules
    from pontoon.rules.model import CasinoRules

    rules = resolve_rules(name, parse_set_options(sets) if sets else None)
    if not isinstance(rules, CasinoRules):
        raise RulesError(f"pontoon report covers the casino presets and blackjack, not {name!r}")
    return rules


def _out_path(out: str | None, fmt: str) -> Path | None:
    if out is None:
        if fmt == "pdf":
            raise PontoonError("--format pdf writes a file: give --out FILE.pdf")
        return None
    p = Path(out)
    if out.endswith(("/", "\\")) or p.is_dir():
        raise PontoonError(f"--out {out!r} is a directory: give a file name such as report.{fmt}")
    if not p.parent.is_dir():
        raise PontoonError(f"--out {out!r}: the folder {str(p.parent)!r} does not exist")
    return p


def report_command(
    rules: list[str] = typer.Option(
        ..., "--rules", "-r", help="preset id or rules file (.toml); repeat for tables side by side"
    ),
    sets: list[str] = typer.Option(None, "--set", help="override a rule for every table: key=value"),
    fmt: str = typer.Option("html", "--format", "-f", help="html, pdf, json or md"),
    out: str = typer.Option(None, "--out", "-o", help="write to this file (default: standard output)"),
    bet: str = typer.Option(None, "--bet", help="the flat bet (default: the table minimum)"),
    bankroll: str = typer.Option(
        None, "--bankroll", help="bankroll for the risk figures (default: 100 bets)"
    ),
    goal: str = typer.Option(None, "--goal", help="win goal for the risk of ruin with a goal"),
    rounds: int = typer.Option(1000, "--rounds", help="rounds for trip ruin and the bands (1 to 10**9)"),
    exact_splits: bool = typer.Option(
        False,
        "--exact-splits",
        help="every split round's outcome distribution exact (tens of minutes a preset on 6-8 decks; default: approximated, exact mean)",
    ),
) -> None:
    """The math report: outcome distributions, side wagers' pay tables, exposure, bankroll risk."""
    if fmt not in FORMATS:
        raise PontoonError(f"--format {fmt!r}: accepted {', '.join(FORMATS)}")
    if not 1 <= rounds <= 10**9:
        raise PontoonError(f"--rounds {rounds}: give 1 to 1000000000 rounds")
    if len(rules) > 8:
        raise PontoonError(f"--rules given {len(rules)} times: at most 8 tables side by side")
    path = _out_path(out, fmt)
    b, bank, g = _money(bet, "--bet"), _money(bankroll, "--bankroll"), _money(goal, "--goal")
    from pontoon.analysis.mathreport import math_report
    from pontoon.cli import report_render as R

    tables = [_rules(name, sets or []) for name in rules]  # every table read before any work
    reps = [math_report(t, b, bank, g, rounds, exact_splits) for t in tables]
    if fmt == "pdf":
        assert path is not None
        R.write_pdf(reps, path)
        return
    text = {"json": R.to_json, "html": R.to_html, "md": R.to_md}[fmt](reps)
    if path is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    else:
        path.write_text(text, encoding="utf-8")
