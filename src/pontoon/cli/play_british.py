"""Terminal play of British Pontoon and Shoot Pontoon against bots.

Signature (called by ``pontoon play --rules british|shoot``)::

    play_british(
        rules: BritishRules,
        *,
        seat: str | None = "you",     # the human's name (None: "you"); "bank" or "banker": "you" start as banker
        seed: int | None = None,      # RNG seed for the pack and the first banker; None = fresh entropy
        rounds: int | None = None,    # stop after this many rounds; None = until end of input or "q"
        stdin_is_tty: bool = True,    # True: one-key choices; False: one action per line from input_stream
        players: int = 3,             # bots besides the human (1 to 9)
        input_stream: TextIO | None = None,   # default sys.stdin
        console: rich.console.Console | None = None,
        bots: Bots | None = None,     # bot policies per seat (bots.py)
        balance: Decimal | None = None,  # what each seat brings: the bank's cover (rulings 33); None: nets only
        hints: bool = False,          # before each of the human's decisions: its exact EV (analysis/british/hints.py)
    ) -> int                          # exit status: 0

The human sees only their seat's view (view.py). At their turn the legal actions are offered with
one key each: ``k`` stake, ``t`` twist, ``b`` buy, ``s`` stick, ``p`` split, ``u`` burn, ``o`` shoot,
``n`` pass, ``d`` double, ``q`` quit. Amounts default to the smallest allowed.
When standard input is not a terminal, each line is one action: a key or a verb, optionally followed
by an amount (``b 6``, ``buy 6``, ``stake 5``, ``twist``); an empty line takes the first legal action
with its smallest amount. End of input ends the game cleanly after printing the balances.
Between rounds a human banker in Shoot Pontoon is asked for a kitty when one is needed.
"""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.table import Table

from pontoon.british.bots import Bots
from pontoon.british.round import LegalAction
from pontoon.british.table import BritishGame
from pontoon.cli.fairshow import ShoeNotes
from pontoon.cli.limits import InputError, read_line
from pontoon.errors import IllegalAction, PontoonError
from pontoon.events import Event
from pontoon.fair import FairShuffler
from pontoon.money import fmt, to_money
from pontoon.rules.british import BritishRules

if TYPE_CHECKING:
    from pontoon.history.session import Session

KEYS = {
    "k": "stake",
    "t": "twist",
    "b": "buy",
    "s": "stick",
    "p": "split",
    "u": "burn",
    "o": "shoot",
    "n": "pass",
    "d": "double",
}
VERB_KEY = {v: k for k, v in KEYS.items()}
BOT_NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "joe"]


class _EndOfInput(Exception):
    def __init__(self, error: str | None = None) -> None:  # error: a line past its bound (limits.py)
        super().__init__(error or "end of input")
        self.error = error


class _Quit(Exception):
    pass


class _Input:
    """Reads one-key choices from a terminal, or lines from a pipe."""

    def __init__(self, stream: TextIO, tty: bool, console: Console) -> None:
        self.stream = stream
        self.tty = tty
        self.console = console

    def line(self, prompt: str) -> str:
        self.console.print(prompt, end="" if self.tty else "\n")
        try:
            text = read_line(self.stream)
        except InputError as err:
            raise _EndOfInput(str(err)) from None
        if not text:
            raise _EndOfInput
        return text.strip()

    def key(self, prompt: str) -> str:
        if not self.tty:
            return self.line(prompt)
        self.console.print(prompt, end="")
        try:
            import termios
            import tty

            fd = self.stream.fileno()
            old = termios.tcgetattr(fd)
            try:
                tty.setcbreak(fd)
                ch = self.stream.read(1)
            finally:
                termios.tcsetattr(fd, termios.TCSADRAIN, old)
        except (ImportError, OSError, ValueError, AttributeError):
            return self.line("")
        if ch == "" or ch == "\x04":
            raise _EndOfInput
        self.console.print(ch)
        return ch.strip()


def _names(seat: str, players: int) -> tuple[list[str], str, str]:
    if not 1 <= players <= 9:
        raise PontoonError(f"players must be 1 to 9 bots, got {players}")
    as_bank = seat.strip().lower() in ("bank", "banker")
    human = "you" if as_bank else (seat.strip() or "you")
    bots = [n for n in BOT_NAMES if n != human]
    if as_bank:
        seats = [human, *bots[:players]]
        return seats, human, human
    # the bot banker first, the human on the banker's left (first to play)
    seats = [bots[0], human, *bots[1:players]]
    return seats, bots[0], human


def _render(console: Console, view: dict[str, Any], human: str) -> None:
    t = Table(title=f"British Pontoon - {view['phase']}", show_lines=False)
    t.add_column("seat")
    t.add_column("cards")
    t.add_column("stake", justify="right")
    if "kitty" in view:
        t.add_column("shoot", justify="right")
    t.add_column("state")
    for h in view["hands"]:
        who = h["owner"] + (f" #{h['hand']}" if h["split"] else "")
        if h["owner"] == human:
            who = f"[bold]{who}[/bold]"
        cards = " ".join(h["cards"])
        if h["burned"]:
            cards += f"  (burned {' '.join(h['burned'])})"
        state = h.get("outcome") or h["status"]
        if h.get("result"):
            state += f" - {h['result']}"
        row = [who, cards, h["stake"]]
        if "kitty" in view:
            row.append(h.get("shoot", "0"))
        row.append(state)
        t.add_row(*row)
    banker = view["banker"]
    brow = [f"[bold]bank: {banker}[/bold]", " ".join(view["banker_cards"]), ""]
    if "kitty" in view:
        brow.append(f"kitty {view['kitty']}")
    brow.append(view.get("banker_outcome", "") or "")
    t.add_row(*brow)
    console.print(t)


def _public_line(ev: Event, human: str) -> str | None:
    """A line describing an event, using only what the human may see (003 face up / face down)."""
    d = ev.data
    seat = d.get("seat", "")
    mine = seat == human
    if ev.kind == "stake":
        return f"{seat} stakes {d['amount']}"
    if ev.kind == "banker_double":
        return f"{seat} doubles the bets"
    if ev.kind == "shoot":
        return f"{seat} shoots {d['amount']}"
    if ev.kind == "twist":
        return f"{seat} twists {d['card']}"  # face up
    if ev.kind == "buy":
        return f"{seat} buys a card for {d['amount']}" + (f": {d['card']}" if mine else "")  # face down
    if ev.kind == "stick":
        return f"{seat} sticks"
    if ev.kind == "split":
        return f"{seat} splits {' '.join(d['cards'])}"
    if ev.kind == "burn":
        return f"{seat} burns {' '.join(d['burned'])}"
    if ev.kind == "banker_twist":
        return f"{seat} (bank) deals himself {d['card']}"
    if ev.kind == "banker_stick":
        return f"{seat} (bank) stays"
    return None


def play_british(
    rules: BritishRules,
    *,
    seat: str | None = "you",
    seed: int | None = None,
    rounds: int | None = None,
    stdin_is_tty: bool = True,
    players: int = 3,
    input_stream: TextIO | None = None,
    console: Console | None = None,
    bots: Bots | None = None,
    session: Session | None = None,
    fair: FairShuffler | None = None,
    balance: Decimal | None = None,
    hints: bool = False,
) -> int:
    console = console or Console()
    stream = input_stream if input_stream is not None else sys.stdin
    inp = _Input(stream, stdin_is_tty, console)
    bots = bots or Bots()
    seats, banker, human = _names(seat or "you", players)
    if session is not None and isinstance(session.table, BritishGame):
        game = session.table  # --resume: the recovered table, where its last committed event left it
    else:
        stacks = None if balance is None else dict.fromkeys(seats, balance)  # rul 33: bank cover
        game = BritishGame(rules, seats, banker=banker, rng=seed, fair=fair, stacks=stacks)
        if session is not None:
            session.attach(game)
    console.print(
        f"[bold]{rules.name or rules.preset}[/bold]: you are [bold]{human}[/bold]; "
        f"stakes {fmt(rules.stake_min)} to {fmt(rules.stake_max)}, stick on {rules.stick_minimum}."
    )
    if hints:  # the solution first (shipped, cached, or solved now with its progress shown)
        try:
            from pontoon.analysis.british.strategy import solved

            solved(rules, log=lambda m: console.print(f"[dim]{m}[/dim]"))
        except PontoonError as err:
            console.print(f"[dim]hints unavailable: {err}[/dim]")
    notes = ShoeNotes(game, session)
    played = 0
    interrupted = False
    bad_input: str | None = None
    try:
        while rounds is None or game.rounds_played < rounds:
            if game.round is not None:  # --resume: the round the crash left open
                rnd = game.round
                console.rule(f"Round {game.rounds_played + 1} resumed: {rnd.banker} holds the bank")
            else:
                _between_rounds(game, human, inp, console, bots)
                rnd = game.new_round()
                notes.show(console)
                console.rule(f"Round {game.rounds_played + 1}: {rnd.banker} holds the bank")
            seen = 0
            while not rnd.is_over():
                who = rnd.to_act()
                assert who is not None
                if who == human:
                    _render(console, rnd.view(human), human)
                    if hints:
                        show_hint(console, rnd, human)
                    _human_turn(game, human, inp, console)
                else:
                    s, verb, amt = bots.decide(rnd)
                    game.act(s, verb, amt)
                for ev in rnd.log.events[seen:]:
                    line = _public_line(ev, human)
                    if line:
                        console.print(line)
                seen = len(rnd.log)
            _render(console, rnd.view(human), human)
            if rnd.phase == "void":
                console.print(f"Round void: {rnd.void_reason}; every stake returned.")
            summary = game.end_round()
            played += 1
            console.print(
                f"Your result this round: {fmt(summary['net'].get(human, {}).get('total', Decimal(0)))}"
            )
            if summary["next_banker"] != summary["banker"]:
                console.print(f"The bank passes to {summary['next_banker']}.")
            if summary["shuffled"]:
                console.print("There was a Pontoon: the pack is shuffled.")
            notes.show(console)
    except _EndOfInput as end:
        console.print("End of input.")
        bad_input = end.error
    except _Quit:
        console.print("Goodbye.")
    except KeyboardInterrupt:
        interrupted = True
    _leave_round(game, console, game.rounds_played)
    _balances(game, console)
    if session is not None:
        session.close()
    notes.show(console)
    if interrupted:
        raise KeyboardInterrupt
    if bad_input is not None:
        raise InputError(bad_input)
    return 0


def make_level_bots(rules: BritishRules, level: str, seed: int | None, console: Console) -> Bots:
    """The bots of ``--bots LEVEL`` (analysis/british/bots.py), their mixed decisions seeded from ``seed``;
    a rules set without a shipped solution is solved first (progress shown) and cached."""
    from pontoon.analysis.british.bots import LEVELS, make_bots
    from pontoon.analysis.british.game import check_seats as check

    if level not in LEVELS:
        raise PontoonError(f"--bots {level!r}: accepted {', '.join(LEVELS)}")
    if level != "simple":
        check(rules)  # the variations the model does not cover are refused by name
    import numpy as np

    rng = np.random.default_rng(None if seed is None else [seed, 27])
    return make_bots(level, rules, rng, log=lambda m: console.print(f"[dim]{m}[/dim]"))


def show_hint(console: Console, rnd: Any, human: str) -> None:
    """The exact EV of each of the human's decisions, from his view only (ruling 35)."""
    try:
        from pontoon.analysis.british.hints import round_hint

        h = round_hint(rnd, human)
    except Exception as err:  # hints must never break the game
        console.print(f"[dim]hints unavailable: {err}[/dim]")
        return
    vals = h["values"]
    if not vals:
        if h["role"] is not None:
            console.print(
                "[dim]hint: this position is outside the solved model (a split hand or an odd buy)[/dim]"
            )
        return
    parts = [
        f"{'[bold green]' if a == h['best'] else ''}{a} {v:+.4f}{'[/bold green]' if a == h['best'] else ''}"
        for a, v in vals.items()
    ]
    console.print(f"hint ({h['role']}, expected net): " + "   ".join(parts))


def _leave_round(game: BritishGame, console: Console, played: int) -> None:
    """Leaving mid-round: the British documents have no walk-away rule, so the unfinished round is
    void and every stake returned (rulings 2's void); a finished round is booked as usual."""
    rnd = game.round
    if rnd is None:
        return
    if not rnd.is_over():
        rnd.abandon("the player left the table mid-round")
        console.print(f"Round {played + 1} unfinished: void, every stake returned.")
    game.end_round()


def _balances(game: BritishGame, console: Console) -> None:
    held = game.holdings()  # rul 33: with stacks, what each seat holds (never below 0)
    parts = [
        f"{s} {fmt(b)}" + ("" if held is None else f" (holds {fmt(held[s])})")
        for s, b in game.balances().items()
    ]
    if game.rules.shoot:
        parts.append(f"kitty {fmt(game.kitty)} (held by {game.banker})")
    console.print(f"After {game.rounds_played} rounds: " + ", ".join(parts))


def _between_rounds(game: BritishGame, human: str, inp: _Input, console: Console, bots: Bots) -> None:
    if not game.rules.shoot:
        return
    if game.banker != human:
        bots.prepare_table(game)
        return
    while game.needs_kitty:
        r = game.rules
        text = inp.line(f"Put up a kitty ({fmt(r.kitty_min)} to {fmt(r.kitty_max)}) [{fmt(r.kitty_max)}]: ")
        if text.lower() in ("q", "quit"):
            raise _Quit
        try:
            game.put_kitty(text or r.kitty_max)
        except PontoonError as err:
            console.print(f"[red]{err}[/red]")


def _parse(text: str, legal: dict[str, LegalAction]) -> tuple[str, str | None] | None:
    parts = text.split()
    if not parts:
        first = next(iter(legal.values()))
        return first.verb, None
    word = parts[0].lower()
    verb = KEYS.get(word, word)
    amount = parts[1] if len(parts) > 1 else None
    return verb, amount


def _human_turn(game: BritishGame, human: str, inp: _Input, console: Console) -> None:
    rnd = game.round
    assert rnd is not None
    while True:
        legal = {a.verb: a for a in rnd.legal_actions()}
        menu = "  ".join(f"\\[{VERB_KEY.get(v, '?')}] {a}" for v, a in legal.items())
        text = inp.key(f"{menu}  \\[q] quit > ")
        if text.lower() in ("q", "quit"):
            raise _Quit
        parsed = _parse(text, legal)
        if parsed is None:
            continue
        verb, amount = parsed
        if verb not in legal:
            console.print(
                f"[red]{text!r} is not one of the legal actions: {', '.join(str(a) for a in legal.values())}[/red]"
            )
            continue
        la = legal[verb]
        if la.low is not None and amount is None:
            if inp.tty:
                amount = (
                    inp.line(f"{verb} amount ({fmt(la.low)} to {fmt(la.high or la.low)}) [{fmt(la.low)}]: ")
                    or None
                )
            if amount is None:
                amount = str(la.low)
        try:
            if amount is not None:
                to_money(amount, f"{verb} amount")
            game.act(human, verb, amount)
            return
        except IllegalAction as err:
            console.print(f"[red]{err}[/red]")
