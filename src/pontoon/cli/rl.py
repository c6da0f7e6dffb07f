"""``pontoon rl evaluate POLICY``: play a policy in the Gymnasium env and grade it exactly.

Also registers ``pontoon train`` (cli/train.py) so that app.py needs one line: ``rl.register(app)``.
"""

from __future__ import annotations

import json

import typer

from pontoon.cli.limits import check_seed
from pontoon.errors import PontoonError
from pontoon.rules import CasinoRules, parse_set_options, resolve_rules
from pontoon.rules.british import BritishRules

rl_app = typer.Typer(
    help="Learning environments: evaluate a policy (basic, random or a chart JSON).", no_args_is_help=True
)


def register(app: typer.Typer) -> None:  # kept for callers that build their own app
    from pontoon.cli import train

    app.add_typer(rl_app, name="rl")
    app.command("train")(train.train_command)


@rl_app.command("evaluate")
def evaluate_command(
    policy: str = typer.Argument(
        ..., help="basic (the analyser's chart), random, or a strategy chart JSON file"
    ),
    rules: str = typer.Option("mbs", "--rules", "-r", help="casino preset or a table .toml"),
    rounds: int = typer.Option(10_000, "--rounds", "-n", help="rounds to play in the env"),
    seed: int = typer.Option(None, "--seed", help="seed of the shoe and of a random policy"),
    decks: int = typer.Option(None, "--decks", help="decks in the shoe (default: the rules')"),
    penetration: float = typer.Option(None, "--penetration", help="fraction dealt before the cut card"),
    set_: list[str] = typer.Option([], "--set", help="override a rule field: NAME=VALUE"),
    exact: bool = typer.Option(
        True, "--exact/--no-exact", help="compute a chart's exact EV with the analyser"
    ),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Play POLICY for N rounds; for a chart also its exact EV and its cost against basic strategy."""
    from pontoon.rl.evaluate import evaluate

    overrides = parse_set_options(set_)
    if decks is not None:
        overrides["decks"] = decks
    if penetration is not None:
        overrides["penetration"] = penetration
    r = resolve_rules(rules, overrides)
    if isinstance(r, BritishRules):
        _evaluate_british(r, policy, rounds, seed, as_json, bool(decks or penetration))
        return
    if not isinstance(r, CasinoRules):
        raise PontoonError(
            f"--rules {rules!r}: rl evaluate plays casino games (mbs, federal, rws-plus, rws-pandemonium, blackjack), "
            "british and shoot"
        )
    if rounds < 1 or rounds > 100_000_000:
        raise PontoonError(f"--rounds {rounds}: accepted 1 to 100000000")
    check_seed(seed)
    rep = evaluate(r, policy, rounds, seed, exact=exact)
    if as_json:
        typer.echo(json.dumps(rep, indent=1))
        return
    p = rep["played"]
    typer.echo(
        f"policy {rep['policy']} on {r.preset} ({r.decks} decks, penetration {r.penetration}): {p['rounds']} rounds"
    )
    typer.echo(
        f"played: {p['mean']:+.5f} per unit wager (95% CI +/-{p['ci95']:.5f}); net {p['net']} on {p['wagered']} wagered; "
        f"{p['steps'] / p['seconds']:.0f} steps/s"
    )
    if "exact" in rep:
        e = rep["exact"]
        typer.echo(
            f"exact EV {e['ev']:+.6f} (analyser basic {e['ev_basic']:+.6f}, optimal {e['ev_optimal']:+.6f}); "
            f"cost against basic {e['cost_vs_basic']:.6f} per unit"
        )


def _evaluate_british(
    r: BritishRules, policy: str, rounds: int, seed: int | None, as_json: bool, shoe: bool
) -> None:
    """British: the policy as the player against the solved banker, and its exact exploitability."""
    from pontoon.analysis.british.game import check_seats as check
    from pontoon.rl.british_eval import evaluate_british

    if shoe:
        raise PontoonError(
            "--decks and --penetration apply to the casino games; the British game deals one pack"
        )
    if rounds < 1 or rounds > 10_000_000:
        raise PontoonError(f"--rounds {rounds}: accepted 1 to 10000000")
    check_seed(seed)
    check(r)
    rep = evaluate_british(r, policy, rounds, seed)
    if as_json:
        typer.echo(json.dumps(rep, indent=1))
        return
    p, e = rep["played"], rep["exact"]
    typer.echo(f"policy {rep['policy']} on {r.preset} against the solved banker: {p['rounds']} rounds")
    typer.echo(f"played: {p['mean']:+.5f} per initial stake (95% CI +/-{p['ci95']:.5f})")
    typer.echo(
        f"exact: {e['value_vs_solved_banker']:+.6f} against the solved banker, "
        f"{e['value_vs_banker_best_response']:+.6f} against the banker's best response"
    )
    typer.echo(
        f"exploitability {e['exploitability']:.6f} per initial stake (solution value {e['solution_value']:+.6f}, "
        f"its own exploitability {e['solution_exploitability']:.6f})"
    )
