"""``pontoon analyze``: exact house edge, optimal and basic strategy, side bets (issue 4)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pontoon.cli.echo import echo
from pontoon.cli.options import Command, Opt
from pontoon.errors import PontoonError, RulesError


def _bet(text: str | None) -> Decimal | None:
    if text is None:
        return None
    from pontoon.money import to_money

    b = to_money(text, "--bet")  # bounded before any arithmetic (an enormous bet hung the solver)
    if b <= 0:
        raise PontoonError(f"bad --bet {text!r}: the bet must be a positive amount")
    return b


CHART_SUFFIXES = (".png", ".svg", ".pdf")


def _check_chart(chart: str) -> None:
    """--chart names a new or existing picture file: .png, .svg or .pdf, not a directory (issue 10 item 5)."""
    p = Path(chart)
    if chart.endswith(("/", "\\")) or p.is_dir():
        raise PontoonError(f"--chart {chart!r} is a directory: give a file name such as chart.png")
    if p.suffix.lower() not in CHART_SUFFIXES:
        raise PontoonError(
            f"--chart {chart!r}: give a picture file name ending in {', '.join(CHART_SUFFIXES)}"
        )
    if not p.parent.is_dir():
        raise PontoonError(f"--chart {chart!r}: the folder {str(p.parent)!r} does not exist")


def _rules(name: str, sets: list[str]) -> Any:
    from pontoon.rules.load import parse_set_options, resolve_rules
    from pontoon.rules.model import CasinoRules

    rules = resolve_rules(name, parse_set_options(sets) if sets else None)
    if not isinstance(rules, CasinoRules):
        raise RulesError(f"pontoon analyze covers the casino presets and blackjack, not {name!r}")
    return rules


def _any_rules(name: str, sets: list[str]) -> Any:
    from pontoon.rules.load import parse_set_options, resolve_rules

    return resolve_rules(name, parse_set_options(sets) if sets else None)


def _is_casino(rules: Any) -> bool:
    from pontoon.rules.model import CasinoRules

    return isinstance(rules, CasinoRules)


def _players(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.strip().isdigit() or not 1 <= int(text) <= 7:
        raise PontoonError(
            f"--players {text!r}: give 1 to 7 players (a table of 8 people, the banker included)"
        )
    return int(text)


def _rounds(text: str | None) -> int:
    if text is None:
        return 0
    if not text.strip().isdigit() or not 1 <= int(text) <= 10**6:
        raise PontoonError(f"--sample {text!r}: give 1 to 1000000 rounds")
    return int(text)


def _stake_grid(text: str | None, rules: Any) -> tuple[Decimal, ...] | None:
    """``--stake-grid``: initial stakes within the rules' limits (003 "A minimum and maximum for initial
    bets"), two decimals at most, 1 to 6 of them; ``limits``: the minimum and the maximum."""
    if text is None:
        return None
    from pontoon.rules.british import BritishRules

    if not isinstance(rules, BritishRules):
        return None  # refused with the other British options
    if text.strip().lower() == "limits":
        return tuple(sorted({rules.stake_min, rules.stake_max}))
    accepted = (
        f"give 1 to 6 stakes from {rules.stake_min} to {rules.stake_max} (two decimals at most), "
        "separated by commas, or 'limits'"
    )
    out = set()
    for part in text.split(","):
        try:
            x = Decimal(part.strip())
        except InvalidOperation:
            raise PontoonError(
                f"--stake-grid {text!r}: {part.strip()!r} is not a number; {accepted}"
            ) from None
        if not x.is_finite() or x.as_tuple().exponent < -2 or not rules.stake_min <= x <= rules.stake_max:  # type: ignore[operator]
            raise PontoonError(f"--stake-grid {text!r}: {part.strip()!r} is off the table; {accepted}")
        out.add(x)
    if not 1 <= len(out) <= 6:
        raise PontoonError(f"--stake-grid {text!r}: {accepted}")
    return tuple(sorted(out))


def _british_double(
    rules: Any, as_json: bool, chart: str | None, players: int | None, stake_grid: tuple[Decimal, ...] | None
) -> None:
    """banker_may_double: the game with the banker's double at his first card (analysis/british/double.py)."""
    if chart or players is not None or stake_grid is not None:
        raise PontoonError(
            "with banker_may_double the British analysis gives the heads-up solution only: "
            "--chart, --players and --stake-grid are not offered"
        )
    from pontoon.analysis.british.double import analyze_double, print_double
    from pontoon.money import dumps

    report = analyze_double(rules)
    if as_json:
        echo(dumps(report, indent=2))
    else:
        print_double(report, echo)


def _british(
    rules: Any,
    as_json: bool,
    chart: str | None,
    players: int | None = None,
    rounds: int = 0,
    stake_grid: tuple[Decimal, ...] | None = None,
    split_reading: bool = False,
    resplits: bool = False,
    resplits_exact: bool = False,
) -> None:
    """``--rules british|shoot`` (or a British rules file): the solved heads-up game (issue 27)."""
    from pontoon.rules.british import BritishRules

    if not isinstance(rules, BritishRules):
        raise RulesError(
            f"pontoon analyze covers the casino presets, blackjack, british and shoot, not {rules.preset!r}"
        )
    from pontoon.analysis.british.report import analyze_british, print_british, save_british_chart
    from pontoon.money import dumps

    resplits = resplits or resplits_exact
    if rules.banker_may_double:
        if split_reading or resplits:
            raise PontoonError(
                "with banker_may_double the British analysis has no splits: --split-reading, --resplits"
            )
        _british_double(rules, as_json, chart, players, stake_grid)
        return
    if split_reading and (rules.max_split_hands < 2 or rules.reduced_pack):
        raise PontoonError(
            "--split-reading needs splits (max_split_hands 2 or more) on a full pack (not pack_ranks/pack_suits)"
        )
    if resplits and (rules.max_split_hands < 3 or rules.reduced_pack):
        raise PontoonError(
            "--resplits needs resplits (max_split_hands 3 or more) on a full pack (not pack_ranks/pack_suits)"
        )
    report = analyze_british(
        rules, split_reading=split_reading, resplits=resplits, resplits_exact=resplits_exact
    )
    if stake_grid is not None:
        from pontoon.analysis.british.stakes import print_stake_game, stake_game

        report["stake_game"] = stake_game(rules, stake_grid, log=None if as_json else echo)
    if players is not None:
        from pontoon.analysis.british.several import print_several, several

        report["several_players"] = several(
            rules, players, rounds=rounds, seed=27, log=None if as_json else echo
        )
    if chart:
        try:
            save_british_chart(report, chart)
        except OSError as err:
            raise PontoonError(f"cannot write chart {chart!r}: {err.strerror or err}") from None
    if as_json:
        echo(dumps(report, indent=2))
    else:
        print_british(report, echo)
        if stake_grid is not None:
            print_stake_game(report["stake_game"], echo)
        if players is not None:
            print_several(report["several_players"], echo)
        if chart:
            echo(f"chart written to {chart}")


def _differences(all_rules: list[Any]) -> list[str]:
    base = all_rules[0].model_dump()
    skip = {"preset", "name", "document"}
    fields = [k for k in base if k not in skip and any(r.model_dump()[k] != base[k] for r in all_rules[1:])]
    return fields


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, dict) and set(v) == {"min_wager", "amount"}:
        return f"{_fmt(v['amount'])} from {_fmt(v['min_wager'])}"
    if isinstance(v, tuple | list):
        return ", ".join(_fmt(x) for x in v) if len(v) <= 4 else f"{len(v)} items"
    if isinstance(v, dict):
        return ", ".join(f"{k} {_fmt(x)}" for k, x in v.items())
    if isinstance(v, Decimal):
        return f"{v.normalize():f}"
    return str(v)


def _compare(
    names: list[str], sets: list[str], bet: Decimal | None, as_json: bool, split: str = "cdp1"
) -> None:
    from rich.console import Console  # rich only where a table is printed (a --json process skips it)
    from rich.table import Table

    from pontoon.analysis.report import analyze, to_json

    all_rules = [_rules(n, sets) for n in names]
    reports = [analyze(r, bet, split_strategy=split) for r in all_rules]
    if as_json:
        echo(
            to_json(
                {
                    "compare": {
                        r.preset if i == 0 or r.preset != all_rules[0].preset else f"{r.preset}#{i}": rep
                        for i, (r, rep) in enumerate(zip(all_rules, reports, strict=True))
                    }
                }
            )
        )
        return
    con = Console(width=max(Console().width, 30 + 16 * len(all_rules)))
    t = Table(title="Presets side by side")
    t.add_column("", no_wrap=True)
    for r in all_rules:
        t.add_column(r.preset, justify="right")
    t.add_row("house edge, basic", *[f"{rep['house_edge']['basic'] * 100:.3f}%" for rep in reports])
    t.add_row("house edge, optimal", *[f"{rep['house_edge']['optimal'] * 100:.3f}%" for rep in reports])
    kinds = sorted({k for rep in reports for k in rep["side_bets"]})
    for k in kinds:
        cells = []
        for rep in reports:
            sb = rep["side_bets"].get(k)
            if sb is None:
                cells.append("-")
            elif "house_edge" in sb:
                cells.append(f"{sb['house_edge'] * 100:.2f}%")
            else:
                cells.append(f"{sb['probability']:.2e}")
        t.add_row(f"{k} ({'per round' if k == 'super_bonus' else 'house edge'})", *cells)
    for f in _differences(all_rules):
        t.add_row(f, *[_fmt(r.model_dump()[f]) for r in all_rules])
    con.print(t)


# the options of ``pontoon analyze``, declared once: typer's command (``--help``, its messages) and
# the fast reader of well-formed command lines (``cli/options.py``) are both built from this table
OPTIONS: tuple[Opt, ...] = (
    Opt("rules", "--rules", "value", "mbs", "preset id/alias or a table's .toml file"),
    Opt("set_", "--set", "multiple", [], "override a rule field: NAME=VALUE (repeatable)"),
    Opt("bet", "--bet", "value", None, "main wager for the Super Bonus (default: table minimum)"),
    Opt("as_json", "--json", "flag", False, "print the report as JSON"),
    Opt("chart", "--chart", "value", None, "also write the strategy chart to this PNG file"),
    Opt(
        "compare",
        "--compare",
        "multiple",
        None,
        "presets to show side by side, e.g. --compare mbs federal rws-plus blackjack",
    ),
    Opt(
        "split_strategy",
        "--split-strategy",
        "value",
        "cdp1",
        "play of split hands under optimal play: cdz (as unsplit hands), cdp1 (re-optimised for the "
        "removed pair cards, the default) or cdp (also by the number of pair cards out)",
    ),
    Opt(
        "players",
        "--players",
        "value",
        None,
        "British: the banker's edge against N players (1 to 7) playing the solved strategy, one pack and two",
    ),
    Opt(
        "sample",
        "--sample",
        "value",
        None,
        "British, with --players: also play this many engine rounds of the banker reading every hand (seed 27)",
    ),
    Opt(
        "stake_grid",
        "--stake-grid",
        "value",
        None,
        "British: also solve the stake game, the initial stake chosen after the first card from these amounts "
        "(e.g. 1,100; 'limits': the rules' stake_min and stake_max)",
    ),
    Opt(
        "split_reading",
        "--split-reading",
        "flag",
        False,
        "British: also the banker facing a split reading the split hands (his exact best response; about a "
        "minute per pair the player's best response splits)",
    ),
    Opt(
        "resplits",
        "--resplits",
        "flag",
        False,
        "British: also a rigorous upper bound on what resplits (003: up to four hands) add to the exploitability, "
        "the game without splits solved to a tenth of the target for it (tens of minutes of CPU on a full pack; "
        "docs/analysis.md 'Resplits')",
    ),
    Opt(
        "resplits_exact",
        "--resplits-exact",
        "flag",
        False,
        "British: with --resplits, also value the player's splits with resplits exactly (compiled, but hours of "
        "CPU and gigabytes of memory a pair on 52 or 104 cards: docs/analysis.md 'Resplits')",
    ),
    Opt("extra", "", "arguments", None, hidden=True),
)


def analyze_main(
    rules: str,
    set_: list[str],
    bet: str | None,
    as_json: bool,
    chart: str | None,
    compare: list[str] | None,
    split_strategy: str,
    extra: list[str] | None,
    players: str | None = None,
    sample: str | None = None,
    stake_grid: str | None = None,
    split_reading: bool = False,
    resplits: bool = False,
    resplits_exact: bool = False,
) -> None:
    """Exact analysis of a table: house edge, optimal and basic strategy, side bets."""
    from pontoon.analysis.report import analyze, to_json

    b = _bet(bet)
    if chart:
        _check_chart(chart)  # before the analysis: a bad name answers at once
    split = split_strategy.strip().lower()
    if split not in ("cdz", "cdp1", "cdp"):
        raise PontoonError(f"bad --split-strategy {split_strategy!r}: accepted cdz, cdp1, cdp")
    if compare:
        _compare(list(compare) + list(extra or []), set_, b, as_json, split)
        return
    if extra:
        raise PontoonError(f"unexpected argument {extra[0]!r}: use --rules PRESET or --compare PRESET ...")
    r = _any_rules(rules, set_)
    if not _is_casino(r):
        if b is not None:
            raise PontoonError(
                "--bet is the main wager of a casino table's Super Bonus; the British analysis is per stake"
            )
        if sample is not None and players is None:
            raise PontoonError("--sample goes with --players N")
        _british(
            r,
            as_json,
            chart,
            _players(players),
            _rounds(sample),
            _stake_grid(stake_grid, r),
            split_reading,
            resplits,
            resplits_exact,
        )
        return
    if (
        players is not None
        or sample is not None
        or stake_grid is not None
        or split_reading
        or resplits
        or resplits_exact
    ):
        raise PontoonError(
            "--players, --sample, --stake-grid, --split-reading, --resplits and --resplits-exact apply to the British game "
            "(--rules british|shoot)"
        )
    report = analyze(r, b, split_strategy=split)
    if chart:
        from pontoon.analysis.render import save_chart

        try:
            save_chart(report, chart)
        except OSError as err:
            raise PontoonError(f"cannot write chart {chart!r}: {err.strerror or err}") from None
    if as_json:
        echo(to_json(report))
    else:
        from pontoon.analysis.render import print_report  # rich: only for the terminal report

        print_report(report)
        if chart:
            echo(f"chart written to {chart}")


analyze_command = Command(analyze_main, OPTIONS)
