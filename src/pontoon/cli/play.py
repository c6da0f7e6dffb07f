"""``pontoon play``: a terminal table. One person plays one or more boxes against the dealer.

In a terminal every choice is one key. When standard input is not a terminal, each line of input
is one answer (an empty line is Enter), so a whole shoe can be played by piping actions in; at the
end of input the game ends cleanly (a hand still open is played out for the absent player as 004
5.3 says: the House draws to 12 or more, then stands).
"""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import TYPE_CHECKING

import click
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound
from pontoon.casino.table import CasinoTable
from pontoon.cli.dbopts import check_db, check_no_history
from pontoon.cli.fairshow import ShoeNotes, make_fair
from pontoon.cli.limits import InputError, check_seed, read_line
from pontoon.errors import PontoonError
from pontoon.fair import FairShuffler
from pontoon.hands import hand_total
from pontoon.money import fmt, to_money
from pontoon.protocol import BETTING
from pontoon.rules import CasinoRules, parse_set_options, resolve_rules
from pontoon.shoe import make_rng

if TYPE_CHECKING:
    from pontoon.cli.count_readout import CountReadout
    from pontoon.history.session import Session

KEYS = {"h": "hit", "s": "stand", "d": "double", "p": "split", "r": "rescue", "u": "surrender", "i": "insure"}
VERB_KEY = {v: k for k, v in KEYS.items()}
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


class EndOfInput(Exception):
    def __init__(self, error: str | None = None) -> None:  # error: a line past its bound (limits.py)
        super().__init__(error or "end of input")
        self.error = error


class Input:
    """One answer at a time: a key press in a terminal, a line (``limits.read_line``) otherwise."""

    def __init__(self, interactive: bool, console: Console) -> None:
        self.interactive = interactive
        self.console = console

    def ask(self, prompt: str) -> str:
        self.console.print(prompt, end=" ")
        if self.interactive:
            try:
                ch = click.getchar()  # Ctrl-C raises KeyboardInterrupt, Ctrl-D EOFError
            except EOFError:
                self.console.print()
                raise EndOfInput() from None
            self.console.print(ch if ch.isprintable() else "")
            return "" if ch in ("\r", "\n") else ch.strip().lower()
        try:
            line = read_line(sys.stdin)
        except InputError as err:
            self.console.print()
            raise EndOfInput(str(err)) from None
        if line is None:
            self.console.print()
            raise EndOfInput()
        ans = line.strip().lower()
        self.console.print(ans)
        return ans


def card_text(c: object) -> Text:
    s = str(c)
    colour = "red" if s[1] in "HD" else "white"
    return Text(f"{s[0]}{SUIT_SYMBOL[s[1]]}", style=f"bold {colour}")


def hand_line(cards: list, aces_fixed: int = 0) -> Text:
    t = Text()
    for c in cards:
        t.append_text(card_text(c))
        t.append(" ")
    if cards:
        total, soft = hand_total(cards, aces_fixed)
        t.append(f"({'soft ' if soft else ''}{total})", style="dim")
    return t


def draw_table(console: Console, rnd: CasinoRound, balance: Decimal, player: str) -> None:
    table = Table(show_header=True, header_style="bold cyan", title=f"{rnd.rules.name}", expand=False)
    table.add_column("")
    table.add_column("cards")
    table.add_column("wager", justify="right")
    table.add_column("state")
    dealer = rnd.dealer
    if rnd.rules.dealer_hole_card and not rnd.is_over() and len(dealer) > 1:
        dealer = dealer[:1]  # blackjack: the hole card stays face down until the dealer's turn
    table.add_row("dealer", hand_line(dealer), "", "")
    to_act = rnd.current
    for n in sorted(rnd.boxes):
        for h in rnd.boxes[n].hands:
            wager = sum(h.stakes.values(), Decimal(0)) + sum(h.doubles.values(), Decimal(0))
            state = (
                h.result_word()
                if h.outcome
                else ("to act" if h is to_act else ("done" if h.finished else ""))
            )
            if h.awaiting_rescue:
                state = "rescue?"
            label = f"box {n}" + (f".{h.index}" if len(rnd.boxes[n].hands) > 1 else "")
            style = "bold yellow" if h is to_act else None
            table.add_row(
                label,
                hand_line(h.cards, h.aces_fixed if rnd.rules.double_ace_counts_one else 0),
                fmt(wager),
                state,
                style=style,
            )
    console.print(table)
    console.print(f"balance: [bold]{fmt(balance)}[/bold]   player: {player}")


def show_hints(console: Console, rnd: CasinoRound, player: str) -> None:
    if rnd.current is None:
        return
    try:
        from pontoon.analysis.seat_view import view_hint
        from pontoon.casino.seats import shown_before
    except ImportError:
        console.print("[dim]hints: the analyser is not available[/dim]")
        return
    try:  # rul 35: from the player's view only (a face-down hole card counts as unseen)
        values = view_hint(rnd.rules, rnd.view(player), shown_before(rnd))
    except Exception as err:  # hints must never break the game
        console.print(f"[dim]hints unavailable: {err}[/dim]")
        return
    if not values:
        return
    best = max(values, key=lambda v: values[v])
    parts = [
        f"{'[bold green]' if v == best else ''}{v} {values[v]:+.4f}{'[/bold green]' if v == best else ''}"
        for v in values
    ]
    console.print("hint: " + "   ".join(parts))


def choose(inp: Input, console: Console, rnd: CasinoRound, hints: bool, player: str) -> Action | None:
    """Ask for one action among ``player``'s legal ones; None means quit."""
    while True:
        legal = rnd.legal_actions(player)
        h = rnd.current
        legal = [a for a in legal if a.verb in VERB_KEY]
        mine = [
            a for a in legal if h is not None and a.box == h.box and a.verb not in ("insure", "surrender")
        ]
        window = [a for a in legal if a.verb in ("insure", "surrender")]
        options: dict[str, Action] = {}
        for a in mine:
            options[VERB_KEY[a.verb]] = a
        # window choices for the box to act (or the first box offering one)
        for a in window:
            key = VERB_KEY[a.verb]
            if key not in options and (h is None or a.box == h.box):
                options[key] = a
        if hints:
            show_hints(console, rnd, player)
        menu = "  ".join(
            f"[bold]{k}[/bold] {options[k].verb}"
            + (f" {fmt(options[k].amount or Decimal(0))}" if options[k].amount else "")
            for k in options
        )
        ans = inp.ask(f"{menu}  [bold]q[/bold] quit >")
        if ans in ("q", "quit"):
            return None
        word = KEYS.get(ans, ans)
        picked = options.get(VERB_KEY.get(word, ""))
        if picked is None:
            console.print(f"[red]'{ans}' is not a choice here: choose one of {', '.join(options)} or q[/red]")
            continue
        return picked


def _round_line(console: Console, rnd: CasinoRound, player: str, balance: Decimal) -> None:
    res = rnd.result()
    net = res.net.get(player, {}).get("total", Decimal(0))
    draw_table(console, rnd, balance, player)
    if res.status == "void":
        console.print(f"[yellow]round void: {res.void_reason}; every wager returned[/yellow]")
        return
    colour = "green" if net > 0 else "red" if net < 0 else "white"
    kinds = {k: v for k, v in res.net.get(player, {}).items() if k != "total"}
    detail = ", ".join(f"{k} {'+' if v > 0 else ''}{fmt(v)}" for k, v in kinds.items())
    console.print(f"[{colour}]round result: {'+' if net > 0 else ''}{fmt(net)}[/{colour}]  ({detail})")


def _ask_round(
    inp: Input, console: Console, rules: CasinoRules, played: int, boxes: int, bet: Decimal
) -> str | Decimal:
    """Between rounds: 'deal', 'quit', or a new bet."""
    while True:
        ans = inp.ask(
            f"round {played + 1}: [bold]Enter[/bold] deal {boxes} x {fmt(bet)}  [bold]b[/bold] change bet  [bold]q[/bold] quit >"
        )
        if ans in ("q", "quit"):
            return "quit"
        if ans in ("", "n", "deal"):
            return "deal"
        if ans in ("b", "bet"):
            raw = inp.ask(f"new bet ({fmt(rules.table_min)} to {fmt(rules.table_max)}) >")
            try:
                new = to_money(raw, "bet")
                if not rules.table_min <= new <= rules.table_max:
                    raise PontoonError(
                        f"bet {fmt(new)} is outside {fmt(rules.table_min)} to {fmt(rules.table_max)}"
                    )
                return new
            except PontoonError as err:
                console.print(f"[red]{err}[/red]")
            continue
        console.print(f"[red]'{ans}' is not a choice here: Enter, b or q[/red]")


def play_casino(
    rules: CasinoRules,
    *,
    boxes: int,
    bet: Decimal,
    balance: Decimal,
    seed: int | None,
    hints: bool,
    player: str,
    shoes: int | None,
    sides: dict[str, Decimal] | None = None,
    rounds: int | None,
    console: Console,
    interactive: bool,
    session: Session | None = None,
    fair: FairShuffler | None = None,
    counter: CountReadout | None = None,
) -> Decimal:
    """A terminal view over ``CasinoTable``: one person, one or more boxes, the table protocol.

    End of input (Ctrl-D, or the end of a pipe) and Ctrl-C both end the session: a round in progress
    is finished by the rules for the absent player (004 5.3: the House draws his hand to 12 or more,
    then stands) and booked, then the summary is printed. Ctrl-C exits with 130 (``KeyboardInterrupt``
    is re-raised after the summary), end of input with 0.

    ``session`` (history on): the table is recorded as it is played, or it is the recovered table of
    a killed session (``--resume``), which goes on where its last committed event left it.
    ``fair``: the table deals provably fair shoes (recorded sessions); each shoe's commitment is shown
    when it is shuffled and its server seed when it is retired.
    """
    if session is not None and session.table is not None:
        table = session.table
        assert isinstance(table, CasinoTable)
        start = session.start_balance
    else:
        table = CasinoTable(rules, rng=make_rng(seed), fair=fair)
        if session is not None:
            session.attach(table)
        table.join(player, balance)
        start = balance
    inp = Input(interactive, console)
    notes = ShoeNotes(table, session)
    played = 0
    console.print(
        f"[bold]{rules.name}[/bold] - {rules.decks} decks, table {fmt(rules.table_min)} to {fmt(rules.table_max)}"
    )
    interrupted: KeyboardInterrupt | None = None
    bad_input: str | None = None
    try:
        while True:
            if table.in_round and table.round is not None:  # --resume: the round the crash left open
                rnd = table.round
                console.print(f"[cyan]resuming round {table.rounds_played + 1} where it stopped[/cyan]")
            else:
                if table.shoe.needs_shuffle:
                    if shoes is not None and table.shoes_used >= shoes:
                        console.print(f"the cut card is out: end of shoe {table.shoes_used}")
                        break
                    if table.shoes_used:
                        console.print("[cyan]the cut card is out: shuffling a new shoe[/cyan]")
                if rounds is not None and table.rounds_played >= rounds:
                    break
                stake = (bet + sum((sides or {}).values(), Decimal(0))) * boxes
                if table.balance(player) < stake:
                    console.print(
                        f"balance {fmt(table.balance(player))} is below the stake {fmt(stake)}: game over"
                    )
                    break
                what = _ask_round(inp, console, rules, table.rounds_played, boxes, bet)
                if what == "quit":
                    break
                if isinstance(what, Decimal):
                    bet = what
                    if session is not None:
                        session.note_bet(bet)
                    continue
                rnd = table.new_round()
                notes.show(console)
            if rnd.to_act() is BETTING:  # (a resumed round may stop anywhere in its wagers)
                plan = [
                    (b, kind, amount)
                    for b in range(1, boxes + 1)
                    for kind, amount in [("main", bet), *(sides or {}).items()]
                ]
                done = sum(1 for e in rnd.log.events if e.kind == "bet")
                for b, kind, amount in plan[done:]:
                    table.place_bet(b, player, kind, amount)
                table.deal()
            quit_now = False
            try:
                while not rnd.is_over():
                    draw_table(console, rnd, table.balance(player), player)
                    action = choose(inp, console, rnd, hints, player)
                    if action is None:
                        quit_now = True
                        break
                    table.act(player, action)
            finally:
                if not rnd.is_over():
                    console.print(
                        f"[yellow]round {table.rounds_played + 1} unfinished: played out for you by the rules (004 5.3)[/yellow]"
                    )
                    table.play_out_for_absent()
                table.end_round()
                played += 1
                _round_line(console, rnd, player, table.balance(player))
                if counter is not None:  # --count: the cards this seat saw (cli/count_readout.py)
                    counter.after_round(console, rnd, table.shoes_used)
            if quit_now:
                break
    except EndOfInput as end:
        bad_input = end.error
    except KeyboardInterrupt as err:
        console.print()
        interrupted = err
    final = table.balance(player)
    if session is not None:
        session.close()
    notes.show(console)
    total = table.rounds_played
    more = f" ({played} this session)" if total != played else ""
    console.print(
        f"played {total} rounds{more}; balance {fmt(final)} ({'+' if final >= start else ''}{fmt(final - start)})"
    )
    if interrupted is not None:
        raise interrupted
    if bad_input is not None:
        raise InputError(bad_input)
    return final


def play_command(
    rules: str = typer.Option("mbs", "--rules", "-r", help="preset id or alias, or a .toml table file"),
    set_: list[str] = typer.Option([], "--set", help="override a rule field: NAME=VALUE"),
    boxes: int = typer.Option(None, "--boxes", "-b", help="casino: how many boxes you play (default 1)"),
    bet: str = typer.Option(None, "--bet", help="main wager per box (default: table minimum)"),
    balance: str = typer.Option(
        None,
        "--balance",
        help="starting balance (default 1000); British: each seat's, the bank's cover (rulings 33)",
    ),
    seed: int = typer.Option(
        None,
        "--seed",
        help=(
            "seed: with history the fair shuffle's TEST mode (server seeds follow from it: NOT secret, for "
            "tests and reproducible games); with --no-history the seeded numpy shoe (default: random)"
        ),
    ),
    client_seed: str = typer.Option(
        None,
        "--client-seed",
        help=(
            "your client seed for the provably fair shuffle (1 to 64 printable ASCII characters; default: "
            "random, shown); recorded sessions only"
        ),
    ),
    hints: bool = typer.Option(False, "--hints", help="show the best action and each action's expectation"),
    player: str = typer.Option(
        None, "--player", help="casino: your name at the table (default 'you'; any printable name)"
    ),
    shoes: int = typer.Option(None, "--shoes", help="stop when the cut card of this many shoes has come out"),
    rounds: int = typer.Option(None, "--rounds", help="stop after this many rounds"),
    side: list[str] = typer.Option(
        [], "--side", help="a side bet on each of your boxes: KIND=AMOUNT (pair, bonus, pandemonium)"
    ),
    seat: str = typer.Option(None, "--seat", help="British game: your seat (a player name or 'banker')"),
    bots: str = typer.Option(
        None,
        "--bots",
        help="British game: the bots' level: simple (rules of thumb), house (the house banker and the best "
        "response to it) or solved (the heads-up solution); default simple",
    ),
    db: str = typer.Option(
        None, "--db", help="history database URL (default: $PONTOON_DB or the user data directory)"
    ),
    no_history: bool = typer.Option(False, "--no-history", help="do not record this session"),
    resume: bool = typer.Option(
        False, "--resume", help="continue the last unfinished (killed) terminal session"
    ),
    count: str = typer.Option(
        None,
        "--count",
        help="casino: show a count of the cards you saw (hi-lo, ko, hi-opt-ii, zen, walker-hi-lo, a .json)",
    ),
) -> None:
    """Play at a table in the terminal (one key per choice; pipe lines in to script it)."""
    console = Console(highlight=False)
    interactive = sys.stdin is not None and sys.stdin.isatty()
    check_db(db)
    if count is not None and (resume or seat is not None):
        raise PontoonError("--count applies to a new casino session (not with --resume or --seat)")
    if resume:
        _resume(
            db,
            no_history,
            rounds,
            shoes,
            hints,
            console,
            interactive,
            given=[
                n
                for n, v in (
                    ("--rules", rules != "mbs"),
                    ("--set", set_),
                    ("--boxes", boxes),
                    ("--bet", bet),
                    ("--balance", balance),
                    ("--seed", seed),
                    ("--player", player),
                    ("--side", side),
                    ("--seat", seat),
                    ("--bots", bots),
                    ("--client-seed", client_seed),
                )
                if v
            ],
        )
        return
    check_no_history(db, no_history)
    r = resolve_rules(rules, parse_set_options(set_))
    check_seed(seed)
    fair = make_fair(history=not no_history, seed=seed, client_seed=client_seed)
    if rounds is not None and not 1 <= rounds <= 10**9:
        raise PontoonError(
            f"--rounds {rounds}: give 1 to 1000000000 rounds (or leave it out to play until you quit)"
        )
    if shoes is not None and not 1 <= shoes <= 10**6:
        raise PontoonError(f"--shoes {shoes}: give 1 to 1000000 shoes (or leave it out)")
    if not isinstance(r, CasinoRules):
        given = [
            n
            for n, v in (
                ("--boxes", boxes),
                ("--bet", bet),
                ("--player", player),
                ("--shoes", shoes),
            )
            if v is not None
        ]
        given += ["--side"] if side else []
        if given:
            raise PontoonError(
                f"{', '.join(given)} apply to the casino games, not {r.preset}; the British game takes --seat, "
                "--seed, --rounds, --balance, --bots, --hints"
            )
        from pontoon.cli.play_british import make_level_bots, play_british

        level_bots = make_level_bots(r, bots or "simple", seed, console)

        stack = to_money("1000" if balance is None else balance, "--balance")
        if stack <= 0:
            raise PontoonError("--balance must be positive")
        bsession = (
            None
            if no_history
            else _session(
                db, {"game": "british", "seat": seat or "you", "seed": seed, "bots": bots or "simple"}
            )
        )
        try:
            play_british(
                r,
                seat=seat,
                seed=seed,
                rounds=rounds,
                stdin_is_tty=interactive,
                session=bsession,
                fair=fair,
                balance=stack,
                bots=level_bots,
                hints=hints,
                console=console,
            )
        except KeyboardInterrupt:
            raise typer.Exit(130) from None  # Ctrl-C: the unfinished round is void, the summary printed
        return
    if bots is not None:
        raise PontoonError(f"--bots applies to the British game, not {r.preset}")
    if seat is not None:
        raise PontoonError(
            f"--seat applies to the British game, not {r.preset}; at a casino table use --player"
        )
    counter = None
    if count is not None:  # issue 24: a count readout from this seat's view (ruling 35)
        from pontoon.cli.count_readout import CountReadout

        counter = CountReadout(r, count)
    boxes = 1 if boxes is None else boxes
    player = "you" if player is None else player
    balance = "1000" if balance is None else balance
    if not 1 <= boxes <= r.max_boxes:
        raise PontoonError(f"--boxes {boxes}: give 1 to {r.max_boxes} boxes at this table")
    if not player or not player.isprintable() or len(player) > 64:
        raise PontoonError(f"--player {player!r}: a name is 1 to 64 printable characters")
    stake = r.table_min if bet is None else to_money(bet, "--bet")
    if not r.table_min <= stake <= r.table_max:
        raise PontoonError(
            f"--bet {fmt(stake)} is outside the table limits {fmt(r.table_min)} to {fmt(r.table_max)}"
        )
    sides: dict[str, Decimal] = {}
    for item in side:
        kind, _, amount = item.partition("=")
        if kind not in r.side_bets:
            raise PontoonError(
                f"--side {item!r}: {r.preset} offers {', '.join(r.side_bets) or 'no side bets'}; write KIND=AMOUNT"
            )
        sides[kind] = to_money(amount, f"--side {kind}")
        if not r.side_min <= sides[kind] <= r.side_max:
            raise PontoonError(f"--side {item!r}: side bets are {fmt(r.side_min)} to {fmt(r.side_max)}")
    bal = to_money(balance, "--balance")
    if bal <= 0:
        raise PontoonError("--balance must be positive")
    session = (
        None
        if no_history
        else _session(
            db,
            {
                "game": "casino",
                "player": player,
                "boxes": boxes,
                "bet": str(stake),
                "balance": str(bal),
                "sides": {k: str(v) for k, v in sides.items()},
                "seed": seed,
            },
        )
    )
    try:
        play_casino(
            r,
            boxes=boxes,
            bet=stake,
            balance=bal,
            seed=seed,
            hints=hints,
            player=player,
            sides=sides,
            shoes=shoes,
            rounds=rounds,
            console=console,
            interactive=interactive,
            session=session,
            fair=fair,
            counter=counter,
        )
    except KeyboardInterrupt:
        raise typer.Exit(130) from None  # Ctrl-C: the summary is printed, the round played out (004 5.3)


def _session(db: str | None, meta: dict[str, object]) -> Session:
    from pontoon.history.session import Session

    check_db(db, writer=True)
    return Session.open(db, meta)


def _resume(
    db: str | None,
    no_history: bool,
    rounds: int | None,
    shoes: int | None,
    hints: bool,
    console: Console,
    interactive: bool,
    *,
    given: list[str],
) -> None:
    """``--resume``: the last unfinished terminal session of the database, from its last committed event."""
    if no_history:
        raise PontoonError("--resume reads the history: it cannot be combined with --no-history")
    if given:
        raise PontoonError(
            f"--resume goes on with the stored session's settings: leave out {', '.join(given)}"
        )
    from pontoon.history.session import Session

    session = Session.resume(db)
    meta = session.meta
    for note in session.notes:
        console.print(f"[cyan]recovered: {note}[/cyan]")
    try:
        if meta.get("game") == "british":
            from pontoon.cli.play_british import make_level_bots, play_british

            play_british(
                session.rules,
                bots=make_level_bots(session.rules, str(meta.get("bots", "simple")), None, console),
                seat=meta.get("seat"),
                rounds=rounds,
                stdin_is_tty=interactive,
                session=session,
                hints=hints,
            )
            return
        play_casino(
            session.rules,
            boxes=int(meta["boxes"]),
            bet=to_money(meta["bet"], "bet"),
            balance=to_money(meta["balance"], "balance"),
            seed=None,
            hints=hints,
            player=str(meta["player"]),
            shoes=shoes,
            sides={k: to_money(v, k) for k, v in meta.get("sides", {}).items()},
            rounds=rounds,
            console=console,
            interactive=interactive,
            session=session,
        )
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
