"""``pontoon train``: a terminal drill that teaches exact play.

It deals hands from any casino preset (or only the hard cases: ``--only soft``, ``pairs``,
``rescue``, ``forced``; or a counting drill: ``--only count-running``, ``count-true``,
``count-index``, the drills of ``pontoon count --drill``, ``cli/count_drill.py``), asks for each decision, and after every answer tells the exact
expectation of each legal action for that hand against that shoe (``pontoon.analysis.hints``),
so a mistake is told with its cost and the best action. The session ends with a summary:
accuracy, cost per 100 hands and the worst spots.

Input works like ``pontoon play``: one key per answer in a terminal; piped input gives one answer
per line, and the end of input ends the session cleanly (exit 0, the summary printed).
Insurance is not drilled (it is never part of a chart; ``--only`` spots never offer it as an answer).

The summary is saved to the history store at the end of a session (``save_summary``: table
``drills``, listed by ``pontoon history --drills``); ``--db URL`` names the database, ``--no-history``
saves nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from pontoon.cli.dbopts import check_db, check_no_history, check_writable
from pontoon.cli.limits import InputError, check_seed
from pontoon.cli.play import KEYS, VERB_KEY, EndOfInput, Input, hand_line
from pontoon.errors import PontoonError
from pontoon.money import fmt
from pontoon.rl.casino_env import ACTION_INDEX, PLAYER, PontoonEnv
from pontoon.rules import CasinoRules, parse_set_options, resolve_rules
from pontoon.rules.british import BritishRules

if TYPE_CHECKING:  # the history stack (SQLAlchemy) is imported only when a session is saved
    from pontoon.history.store import Store

ONLY = ("all", "soft", "pairs", "rescue", "forced")
COUNT_ONLY = ("count-running", "count-true", "count-index")  # cli/count_drill.py's drills
COUNT_QUESTIONS = 20  # a counting drill's questions where --hands is left out
DRILL_VERBS = ("hit", "stand", "double", "split", "surrender", "rescue")
MAX_DEALS = 20_000  # deals tried to find one spot of the asked kind (never an endless loop)


@dataclass
class Spot:
    label: str  # e.g. "soft 18 v 9"
    answer: str
    best: str
    values: dict[str, float]

    @property
    def cost(self) -> float:
        return self.values[self.best] - self.values[self.answer]


@dataclass
class Session:
    rules: str
    only: str
    hands: int = 0
    spots: list[Spot] = field(default_factory=list)
    input_error: str | None = None  # the input ended at a line past its bound (cli/limits.py)

    def summary(self) -> dict[str, Any]:
        n = len(self.spots)
        right = sum(1 for s in self.spots if s.cost <= 1e-12)
        cost = sum(s.cost for s in self.spots)
        worst = sorted((s for s in self.spots if s.cost > 1e-12), key=lambda s: -s.cost)[:5]
        return {
            "rules": self.rules,
            "only": self.only,
            "hands": self.hands,
            "decisions": n,
            "correct": right,
            "accuracy": right / n if n else 0.0,
            "cost": cost,
            "cost_per_100_hands": 100 * cost / self.hands if self.hands else 0.0,
            "worst": [{"spot": s.label, "answer": s.answer, "best": s.best, "cost": s.cost} for s in worst],
        }


def _store(db: str | None) -> Store:
    from pontoon.history import open_store

    check_db(db, writer=True)
    return open_store(db)


def save_summary(
    summary: dict[str, Any], *, db: str | None = None, seed: int | None = None, store: Store | None = None
) -> int:
    """Keep the session summary in the history store (table ``drills``; ``pontoon history --drills``
    lists them); returns its id. ``store`` (kept open), else ``db``: the database URL (default
    ``$PONTOON_DB`` or the user data directory); a bad URL or an unwritable database is a one-line
    error (exit 2)."""
    from pontoon.history.drills import save_drill

    if store is not None:
        return save_drill(store, summary, seed=seed)
    own = _store(db)
    try:
        return save_drill(own, summary, seed=seed)
    finally:
        own.close()


def _upcard_label(env: PontoonEnv) -> str:
    rnd = env.round
    assert rnd is not None
    up = rnd.dealer[0]
    return "A" if up.rank == "A" else ("T" if up.points == 10 else up.rank)


def _spot_label(env: PontoonEnv) -> str:
    rnd = env.round
    assert rnd is not None and rnd.current is not None
    h = rnd.current
    total, soft = h.total(env.rules.double_ace_counts_one)
    if h.doubled:
        kind = f"doubled {total}"
    elif len(h.cards) == 2 and h.cards[0].points == h.cards[1].points:
        kind = f"pair {h.cards[0].rank if h.cards[0].points < 10 else 'T'}s"
    else:
        kind = f"{'soft' if soft else 'hard'} {total}" + (
            f" ({len(h.cards)} cards)" if len(h.cards) > 2 else ""
        )
    return f"{kind} v {_upcard_label(env)}"


def action_values_now(env: PontoonEnv, verbs: list[str]) -> dict[str, float]:
    """Exact expectation of each legal verb for the hand to act (analysis/hints.py), from the agent's
    view only (rul 35: a face-down hole card counts as unseen)."""
    from pontoon.analysis.hints import action_values
    from pontoon.analysis.seat_view import hint_inputs
    from pontoon.casino.seats import shown_before

    rnd = env.round
    assert rnd is not None and rnd.current is not None
    inputs = hint_inputs(env.rules, rnd.view(PLAYER), shown_before(rnd))
    inputs["legal"] = [v for v in verbs if v in inputs["legal"]]
    return action_values(**inputs)


def _matches(env: PontoonEnv, only: str) -> bool:
    rnd = env.round
    if rnd is None or rnd.current is None:
        return False
    h = rnd.current
    verbs = env.legal_verbs()
    total, soft = h.total(env.rules.double_ace_counts_one)
    if only == "soft":
        return soft and not h.doubled
    if only == "pairs":
        return "split" in verbs
    if only == "rescue":
        return "rescue" in verbs
    if only == "forced":
        return "stand" not in verbs and "hit" in verbs and not h.doubled
    return True


def _deal_spot(env: PontoonEnv, only: str) -> None:
    """Deal until a decision of the asked kind is due (a rescue spot: the hand doubles first)."""
    for _ in range(MAX_DEALS):
        env.reset()
        if not env.legal_verbs():
            continue
        if only == "rescue" and "double" in env.legal_verbs():
            env.step(ACTION_INDEX["double"])
        if _matches(env, only):
            return
    raise PontoonError(f"--only {only}: no such spot in {MAX_DEALS} deals at this table")


def _line(prompt: str) -> str:
    """One answer a line (a counting drill's numbers); EOFError at the end of the input."""
    sys.stdout.write(prompt + "\n")
    sys.stdout.flush()
    return input()


def _check_only(rules: CasinoRules, only: str) -> None:
    if only not in ONLY:
        raise PontoonError(f"--only {only!r}: accepted {', '.join(ONLY + COUNT_ONLY)}")
    if only == "rescue" and not rules.rescue:
        raise PontoonError(f"--only rescue: {rules.preset} has no rescue (000 3.11.4)")
    if only == "forced" and rules.forced_draw_below == 0:
        raise PontoonError(f"--only forced: {rules.preset} has no forced draw (rulings 14)")


def run_drill(
    rules: CasinoRules,
    *,
    only: str = "all",
    hands: int | None = None,
    seed: int | None = None,
    console: Console,
    ask: Callable[[str], str],
) -> Session:
    """The drill loop; ``ask(prompt)`` returns one answer or raises EndOfInput."""
    _check_only(rules, only)
    env = PontoonEnv(rules)
    env.reset(seed=seed)
    session = Session(rules.preset, only)
    try:
        while hands is None or session.hands < hands:
            _deal_spot(env, only)
            session.hands += 1
            asked_one = False
            while env.legal_verbs():
                rnd = env.round
                assert rnd is not None and rnd.current is not None
                h = rnd.current
                verbs = [v for v in env.legal_verbs() if v in DRILL_VERBS]
                values = action_values_now(env, verbs)
                best = max(values, key=lambda v: values[v])
                if only != "all" and asked_one:
                    env.step(ACTION_INDEX[best])  # the rest of a drilled hand is played best
                    continue
                label = _spot_label(env)
                line = hand_line(list(h.cards), h.aces_fixed if rules.double_ace_counts_one else 0)
                console.print(
                    f"hand {session.hands}: dealer shows [bold]{rnd.dealer[0]}[/bold]   you: ", line
                )
                menu = "  ".join(f"[bold]{VERB_KEY[v]}[/bold] {v}" for v in verbs)
                while True:
                    ans = ask(f"{menu}  [bold]q[/bold] quit >")
                    if ans in ("q", "quit"):
                        raise EndOfInput()
                    word = KEYS.get(ans, ans)
                    if word in verbs:
                        break
                    console.print(
                        f"[red]'{ans}' is not a choice here: choose one of {', '.join(VERB_KEY[v] for v in verbs)} or q[/red]"
                    )
                spot = Spot(label, word, best, values)
                session.spots.append(spot)
                asked_one = True
                detail = "   ".join(f"{v} {values[v]:+.4f}" for v in sorted(values, key=lambda v: -values[v]))
                if spot.cost <= 1e-12:
                    console.print(f"[green]correct[/green]: {word} ({detail})")
                else:
                    console.print(
                        f"[red]mistake[/red]: best is [bold]{best}[/bold] {values[best]:+.4f}, yours {word} "
                        f"{values[word]:+.4f}: costs {spot.cost:.4f} of the wager   ({detail})"
                    )
                env.step(ACTION_INDEX[word])
            rnd = env.round
            assert rnd is not None
            cards = "  ".join(" ".join(str(c) for c in x.cards) for x in rnd.all_hands())
            console.print(
                f"  dealer {' '.join(str(c) for c in rnd.dealer)}; your cards {cards}; net {'+' if env.net() > 0 else ''}{fmt(env.net())}"
            )
    except EndOfInput as end:
        session.input_error = end.error
    return session


def run_count_session(
    rules: CasinoRules,
    only: str,
    *,
    count: str | None,
    questions: int,
    seed: int | None,
    ask: Callable[[str], str],
    say: Callable[[str], None],
) -> dict[str, Any]:
    """A counting drill (``only`` one of ``COUNT_ONLY``) by ``pontoon count --drill``'s code; its
    summary in the shape of ``Session.summary`` (hands and decisions: the questions answered;
    the cost in expectation per unit bet, as ``count_drill`` grades it)."""
    import numpy as np

    from pontoon.analysis.counts import SYSTEMS, find_system
    from pontoon.cli.count_drill import run_count_drill

    if count is not None:
        system = find_system(count)
    else:  # as ``pontoon count``: Walker's count on 48-card decks, else the first built-in
        system = SYSTEMS["walker-hi-lo"] if rules.pack == "pontoon48" else next(iter(SYSTEMS.values()))
    sd = seed if seed is not None else int(np.random.default_rng().integers(2**63))
    d = run_count_drill(rules, system, only.removeprefix("count-"), questions, sd, ask, say)
    return {
        "rules": rules.preset,
        "only": only,
        "hands": d.asked,
        "decisions": d.asked,
        "correct": d.correct,
        "accuracy": d.correct / d.asked if d.asked else 0.0,
        "cost": d.cost,
        "cost_per_100_hands": 100 * d.cost / d.asked if d.asked else 0.0,
        "worst": [],  # the drill's mistakes are told as they happen (no per-question cost kept)
        "mistakes": d.mistakes[:10],
    }


def print_summary(console: Console, s: dict[str, Any]) -> None:
    if s["only"] in COUNT_ONLY:
        console.print(
            f"session: {s['only']}, {s['decisions']} questions, {s['correct']} correct "
            f"({100 * s['accuracy']:.1f}%); cost {s['cost']:.4f} of a bet"
        )
    else:
        console.print(
            f"session: {s['hands']} hands, {s['decisions']} decisions, {s['correct']} correct "
            f"({100 * s['accuracy']:.1f}%); cost {s['cost']:.4f} wagers, {s['cost_per_100_hands']:.3f} per 100 hands"
        )
    for w in s["worst"]:
        console.print(f"  worst: {w['spot']}: you {w['answer']}, best {w['best']} (cost {w['cost']:.4f})")
    for m in s.get("mistakes", []):
        console.print(f"  mistake: {m}")


def train_command(
    rules: str = typer.Option("mbs", "--rules", "-r", help="casino preset or a table .toml file"),
    only: str = typer.Option(
        "all",
        "--only",
        help="all, soft, pairs, rescue (doubled hands), forced (forced draws), or a counting drill: "
        "count-running, count-true or count-index (answers one a line)",
    ),
    hands: int = typer.Option(
        None, "--hands", help="stop after this many hands (default: until q or end of input)"
    ),
    seed: int = typer.Option(None, "--seed", help="seed of the shoe"),
    set_: list[str] = typer.Option([], "--set", help="override a rule field: NAME=VALUE"),
    db: str = typer.Option(
        None,
        "--db",
        help="history database URL for the session summary (default: $PONTOON_DB or the user data directory)",
    ),
    no_history: bool = typer.Option(False, "--no-history", help="do not save the session summary"),
    count: str = typer.Option(
        None,
        "--count",
        help="count system of the counting drills (hi-lo, ko, hi-opt-ii, zen, walker-hi-lo or a .json file)",
    ),
) -> None:
    """Drill decisions: each answer is graded with its exact EV cost and the best action."""
    r = resolve_rules(rules, parse_set_options(set_))
    if isinstance(r, BritishRules):
        _train_british(r, only, hands, seed, db, no_history, count)
        return
    if not isinstance(r, CasinoRules):
        raise PontoonError(
            f"--rules {rules!r}: the drill deals casino games (mbs, federal, rws-plus, rws-pandemonium, blackjack), "
            "british and shoot"
        )
    if hands is not None and not 1 <= hands <= 10**9:
        raise PontoonError(f"--hands {hands}: give 1 to 1000000000 hands (or leave it out)")
    check_seed(seed)
    check_no_history(db, no_history)
    if only in COUNT_ONLY:
        if hands is not None and hands > 10_000:
            raise PontoonError(f"--hands {hands}: a counting drill asks 1 to 10000 questions")
    elif count is not None:
        raise PontoonError(f"--count: only with --only {', '.join(COUNT_ONLY)}")
    console = Console(highlight=False, soft_wrap=True)  # one line per message, piped or not
    store = None if no_history else _store(db)  # opened first: a bad URL is told before the drill
    try:
        if store is not None:
            check_writable(store)  # a read-only store is told before the drill, not after it
        if only in COUNT_ONLY:
            from pontoon.analysis.counts import find_system

            if count is not None:
                find_system(count)  # a bad system is told before the drill
            summary = run_count_session(
                r,
                only,
                count=count,
                questions=hands or COUNT_QUESTIONS,
                seed=seed,
                ask=_line,
                say=console.print,
            )
            print_summary(console, summary)
            if store is not None:
                sid = save_summary(summary, seed=seed, store=store)
                console.print(f"saved as drill session {sid} (pontoon history --drills)")
            return
        inp = Input(sys.stdin is not None and sys.stdin.isatty(), console)
        session = run_drill(r, only=only, hands=hands, seed=seed, console=console, ask=inp.ask)
        summary = session.summary()
        print_summary(console, summary)
        if store is not None:
            sid = save_summary(summary, seed=seed, store=store)
            console.print(f"saved as drill session {sid} (pontoon history --drills)")
        if session.input_error is not None:
            raise InputError(session.input_error)
    finally:
        if store is not None:
            store.close()


def _train_british(
    r: BritishRules,
    only: str,
    hands: int | None,
    seed: int | None,
    db: str | None,
    no_history: bool,
    count: str | None,
) -> None:
    """``--rules british|shoot``: the British drill (cli/train_british.py), as player and as banker."""
    from pontoon.analysis.british.game import check_seats as check
    from pontoon.cli.train_british import run_british_drill

    if only != "all" or count is not None:
        raise PontoonError(
            "--only and --count apply to the casino drills; the British drill takes --hands, --seed"
        )
    if hands is not None and not 1 <= hands <= 10**9:
        raise PontoonError(f"--hands {hands}: give 1 to 1000000000 hands (or leave it out)")
    check_seed(seed)
    check_no_history(db, no_history)
    check(r)  # the variations the model does not cover are refused by name
    console = Console(highlight=False, soft_wrap=True)
    store = None if no_history else _store(db)
    try:
        if store is not None:
            check_writable(store)
        inp = Input(sys.stdin is not None and sys.stdin.isatty(), console)

        def ask(prompt: str) -> str:
            try:
                return inp.ask(prompt)
            except EndOfInput as end:
                if end.error is not None:
                    raise InputError(end.error) from None
                raise EOFError from None

        summary = run_british_drill(r, hands=hands, seed=seed, console=console, ask=ask)
        print_summary(console, summary)
        if store is not None:
            sid = save_summary(summary, seed=seed, store=store)
            console.print(f"saved as drill session {sid} (pontoon history --drills)")
    finally:
        if store is not None:
            store.close()
