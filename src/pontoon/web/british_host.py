"""A British Pontoon (or Shoot Pontoon) table hosted by the server, through ``BritishGame``.

The table has a fixed number of seats (2 to 6, chosen when it is made); the game starts when every
seat is taken, by people or by bots (web/bots.py: a bot's turns are played at once from its own
view; no new round is dealt while the host pauses or nobody but bots is present): the first banker is drawn at random (003), the bank and kitty pass as the engine says.
Every turn is an engine action (``stake``, ``twist``, ``buy``, ``stick``, ...) checked by the round.
Between rounds in Shoot Pontoon the banker puts up a kitty when it is empty (``kitty``).

The turn timer's default actions, "the rules' default" for each seat (docs/server.md):
- stake: the smallest stake (003 initial bets: at least the agreed minimum);
- the banker's choice to double the bets: pass (003 variation: he "can choose to");
- a shoot bet: pass (003 Shoot: "You are never forced to make a shoot bet");
- a player's hand: stick if the hand may stick (003 Stick: 15 or more, or 16 by variation), else twist
  (003 Twist; never buy: buying stakes more money);
- the banker's turn: stay (003 The Banker's Turn: "when satisfied with the hand the banker can stay");
- an empty kitty: the smallest kitty (003 Shoot: "between agreed minimum and maximum limits").
Seats during a game (003 has no rule for a player joining or leaving a game in progress; the
server's rule, docs/server.md): a person may join a running game while a seat is free: his buy-in
leaves his account at once and he is dealt in from the next round (``BritishGame.join_seat``, to the
banker's right). A person who leaves mid-round is played by the defaults above until the round ends;
between rounds he leaves with his buy-in plus his net (``BritishGame.leave_seat``; a leaving banker
passes the bank to his left) while at least two seats remain; else the game is closed and every
seat's buy-in plus net goes back to its account in ONE store transaction (``game_closed``).

Between rounds the banker may offer the bank for sale at a price (003 The New Deal: "sell the bank to
another player at a mutually agreed price"; to one named player or to any) and a player may accept
it; in Shoot Pontoon he may top the kitty up (003 Shoot: "Before each new deal the dealer has the
option to add more money to the kitty"). Rounds follow one another at once, so these are asked for
at any time and done at the next point between rounds (at once while the table waits for a kitty).
A booked round stays on the felt (``phase: "result"``) for the table's result pause before the next deal.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.errors import PontoonError
from pontoon.money import fmt, to_money
from pontoon.protocol import Action
from pontoon.rules.british import BritishRules
from pontoon.web import british_host_views
from pontoon.web.bots import british_bots, british_decision, levels_for
from pontoon.web.hosting import HostedTable, HostError, Member, PayOut, Settings, fair_shuffler
from pontoon.web.models import action_json
from pontoon.web.persistence import TablePersistence

ZERO = Decimal(0)
# events whose card data is public once logged (003: twisted, split, bust, burned, the banker's turn)


class BritishHost(HostedTable):
    game = "british"
    leave_note = (
        "you leave between rounds with your balance (ruling 34: 003 is silent on leaving a game); until "
        "then the server plays your hand by the rules' defaults (003: stick at 15 or more, else twist)"
    )

    def __init__(
        self,
        table_id: str,
        title: str,
        rules: BritishRules,
        seed: int,
        seats: int,
        settings: Settings,
        store: TablePersistence,
        pay_out: PayOut,
        *,
        seeded: bool = False,
        game: BritishGame | None = None,
        games: int = 0,
    ) -> None:
        """``game``: adopt a game rebuilt by the history store's recovery (then ``restore_members``);
        ``games``: the games the table has played (the store's count, ``game`` included), so that a
        restored table numbers its next game on and never deals an earlier game's test-mode pack again."""
        super().__init__(table_id, title, rules, settings, store, pay_out)
        self.rules: BritishRules = rules
        self.seed = seed
        self.seats = seats
        self.seeded = seeded
        self.games = games
        self.game_obj: BritishGame | None = game
        self.paid: dict[str, Decimal] = {}  # what each leaver was paid back (the REST leave answers it)
        self.offer: dict[str, Any] | None = (
            None  # the bank offered for sale: banker, buyer (None: anyone), price
        )
        self.top_up = ZERO  # a kitty top-up asked for, done before the next deal
        self.top_up_by = ""
        self.last_round: BritishRound | None = None  # the last booked round: on the felt between rounds
        if game is not None:
            self.games = max(games, 1)
            for ev in game.log.events:  # an adopted game: its pack's commitment and reveals so far
                self.fair_event(ev)
            game.subscribe(self.watch)

    # ------------------------------------------------------------------ seats
    def join(self, name: str, box: int | None, stand_on: int | None, buy_in: Decimal) -> Member:
        self._check_new_name(name)
        if box is not None or stand_on is not None:
            raise HostError("a British table has seats, not boxes: join without box or stand_on")
        if sum(1 for m in self.members.values() if not m.leaving) >= self.seats:
            raise HostError(f"table {self.id} is full: its {self.seats} seats are taken; make another table")
        g = self.game_obj
        m = Member(name, "seat", None, buy_in, pending=g is not None)  # a running game: dealt in next round
        self.members[name] = m
        try:  # the buy-in checked against the account in the move's transaction (history store)
            self.note_member(name, {"join": "seat", "buy_in": fmt(buy_in)})
        except PontoonError:  # refused (the account holds less): nothing written, the table unchanged
            del self.members[name]
            raise
        self.bump()
        if g is None and len(self.members) == self.seats:
            self._start()
        elif g is not None and g.round is None:
            self._advance()  # between rounds (a kitty to put up): seated now
        return m

    def _start(self) -> None:
        self.games += 1
        fair = fair_shuffler(self.seed + self.games if self.seeded else None)
        extra: dict[str, Any] = {} if fair is None else {"fair": fair}
        for m in self.members.values():
            m.pending = False
        # 003: the first banker is drawn at random: a test table's draw follows from its seed and the
        # game's number; a shared table's from a fresh secret seed (never an earlier game's draw again)
        draw = self.seed + self.games if self.seeded else secrets.randbits(62)
        g = BritishGame(self.rules, list(self.members), rng=draw, **extra)
        self.store.attach(self.id, g, self.title)  # recorded from its first event (history store)
        g.subscribe(self.watch)
        self.game_obj = g
        self.last_round = None
        self.offer = None
        self.top_up = ZERO
        self._advance()

    def leave(self, name: str) -> Decimal | None:
        m = self.member(name)
        if self.game_obj is None or m.pending:  # not dealt in: the buy-in goes straight back
            return self._remove(m, m.buy_in)
        m.leaving = m.absent = True
        self.note_member(name, {"leaving": True})  # kept across a restart: he still leaves between rounds
        self.paid.clear()  # (only this call's answer is wanted from it)
        self.bump()
        self._advance()
        return self.paid.pop(name, None) if name not in self.members else None

    def _remove(self, m: Member, amount: Decimal) -> Decimal:
        del self.members[m.name]
        self.note_member(m.name, {"leave": fmt(amount)})
        self.pay_out(m.name, amount)
        self.paid[m.name] = amount
        self.member_gone(m.name)
        self.bump()
        return amount

    def _gone(self, m: Member) -> bool:
        """Leaves at the next point between rounds: asked to, or absent past the grace period."""
        return m.leaving or (m.absent and m.connections == 0)

    def _between(self, g: BritishGame) -> bool:
        """The point between rounds: seat the newcomers, let the leavers go (or close the game), then a
        bank sale and a kitty top-up asked for. False when the game was closed."""
        for m in list(self.members.values()):
            if m.pending and self._gone(m):
                self._remove(m, m.buy_in)
            elif m.pending:
                g.join_seat(m.name)  # the engine's event first, then the people's snapshot
                m.pending = False
                self.note_member(m.name, {"seated": True})
        for m in [m for m in self.members.values() if self._gone(m)]:
            if len(g.seats) <= 2:
                self._close_game()
                return False
            net = g.leave_seat(m.name)  # a leaving banker passes the bank to his left
            self._remove(m, m.buy_in + net)
        if self.offer is not None and self.offer["banker"] != g.banker:  # the bank changed hands meanwhile
            self.offer = None
        if self.offer is not None and self.offer.get("accepted"):
            o, self.offer = self.offer, None
            if o["accepted"] in g.seats and self.balance(o["accepted"]) >= o["price"]:
                g.sell_bank(o["accepted"], o["price"])  # 003 The New Deal: sell the bank
                self.notices[o["accepted"]] = f"you bought the bank for {fmt(o['price'])}"
            else:
                self.notices[o["banker"]] = "the bank was not sold: the buyer left or cannot pay the price"
        if self.top_up > 0:
            amount, self.top_up = self.top_up, ZERO
            if self.top_up_by == g.banker and g.kitty > 0 and self.balance(g.banker) >= amount:
                g.top_up_kitty(amount)  # 003 Shoot: "add more money to the kitty" before the new deal
            else:
                self.notices[self.top_up_by] = (
                    f"your top-up of {fmt(amount)} was not made: the kitty is empty, "
                    "the bank changed hands or your balance is short"
                )
        return True

    def _close_game(self) -> None:
        """Book every seat's buy-in plus net to its account in one store transaction (a kill cannot
        pay some and not others); the leavers go, the others wait for a new game."""
        g = self.game_obj
        assert g is not None and g.round is None
        if not g.closed:
            g.retrieve_kitty()  # 003 Shoot: the kitty goes back to the banker (an engine event)
            g.close()  # a fair pack's seed revealed (an engine event)
        moves: list[tuple[str, Decimal, str]] = []
        gone: list[tuple[str, Decimal]] = []
        for m in list(self.members.values()):
            total = m.buy_in + (ZERO if m.pending else g.balance(m.name))
            if self._gone(m):
                del self.members[m.name]
                moves.append((m.name, total, "paid_back"))
                gone.append((m.name, total))
            else:
                m.buy_in = total
                m.pending = False
        self.store.game_closed(self.id, moves, self.members_snapshot())  # ONE transaction (history store)
        for name, total in gone:
            self.pay_out(name, total)
            self.paid[name] = total
            self.member_gone(name)
        self.game_obj = None
        self.offer = None
        self.top_up = ZERO
        self.set_timer(None)
        self.bump()

    def balance(self, name: str) -> Decimal:
        m = self.members[name]
        g = self.game_obj
        if g is None or m.pending:
            return m.buy_in
        out = m.buy_in + g.balance(name)
        if g.round is not None and not g.round.over:
            out += g.round.ledger.balances[name]
        return out

    # ------------------------------------------------------------------ messages
    def handle(self, name: str, msg: Any) -> None:
        m = self.member(name)
        g = self.game_obj
        if g is None:
            raise HostError(
                f"the game starts when all {self.seats} seats are taken ({len(self.members)} now); "
                "the host (or a lone player) may fill the empty seats with bots"
            )
        if msg.type == "act":
            if g.round is None:
                raise HostError(
                    "no round is in play" + ("; the banker must put up a kitty" if g.needs_kitty else "")
                )
            a = msg.action
            action = Action.from_json(action_json(a))
            g.round.verify(name, action)  # the engine's check: whose turn, which verbs, the amount
            if action.amount is not None and name != g.banker and action.amount > self.balance(name):
                raise HostError(
                    f"{action.verb} {fmt(action.amount)} is more than your balance {fmt(self.balance(name))}"
                )
            g.act(name, action)
        elif msg.type == "kitty":
            if name != g.banker or g.round is not None or not g.needs_kitty:
                raise HostError(
                    "kitty: only the banker puts up a kitty, between rounds, when it is empty (003 Shoot)"
                )
            amount = to_money(msg.amount, "kitty")
            if amount > self.balance(name):
                raise HostError(f"kitty {fmt(amount)} is more than your balance {fmt(self.balance(name))}")
            g.put_kitty(amount)
        elif msg.type in ("sell_bank", "buy_bank", "top_up"):
            self._bank_message(name, g, msg)
        else:
            raise HostError(f"{msg.type}: not an action at a British table; act with the listed verbs")
        del m
        self.bump()
        self._advance()

    def _bank_message(self, name: str, g: BritishGame, msg: Any) -> None:
        """Sell the bank (banker: offer; a player: accept) and top the kitty up: done between rounds."""
        seated = [s for s in g.seats if not self.members[s].leaving]
        if (
            msg.type == "sell_bank"
        ):  # 003 The New Deal: "sell the bank to another player at a mutually agreed price"
            if name != g.banker:
                raise HostError(f"sell_bank: only the banker ({g.banker}) may sell the bank")
            if msg.price is None:
                self.offer = None  # the offer withdrawn
                return
            if msg.buyer is not None and (msg.buyer == name or msg.buyer not in seated):
                raise HostError(
                    f"sell_bank: buyer {msg.buyer!r} must be a seated player other than you: "
                    f"{', '.join(s for s in seated if s != name) or 'none'}"
                )
            self.offer = {"banker": name, "buyer": msg.buyer, "price": to_money(msg.price, "price")}
            self.notices[name] = (
                f"the bank is offered for {fmt(self.offer['price'])}; it passes between rounds"
            )
        elif msg.type == "buy_bank":
            o = self.offer
            if o is None or o["banker"] != g.banker or name == g.banker or o.get("accepted"):
                raise HostError("buy_bank: the bank is not offered for sale to you now")
            if o["buyer"] not in (None, name):
                raise HostError(f"buy_bank: the bank is offered to {o['buyer']}, not to you")
            if name not in seated:
                raise HostError("buy_bank: only a seated player who is not leaving may buy the bank")
            price = to_money(msg.price, "price") if msg.price is not None else None
            if price != o["price"]:
                raise HostError(
                    f'buy_bank: the asking price is {fmt(o["price"])}; send price "{fmt(o["price"])}"'
                )
            if price > self.balance(name):
                raise HostError(
                    f"buy_bank: the price {fmt(price)} is more than your balance {fmt(self.balance(name))}"
                )
            o["accepted"] = name
        else:  # top_up: 003 Shoot "Before each new deal the dealer has the option to add more money to the kitty"
            if not self.rules.shoot or name != g.banker:
                raise HostError("top_up: only the banker of a Shoot Pontoon table tops the kitty up")
            amount = to_money(msg.amount, "top-up")
            if amount <= 0 or amount > self.balance(name) - self.top_up:
                raise HostError(
                    f"top_up {fmt(amount)}: accepted above 0 and up to your balance "
                    f"{fmt(self.balance(name) - self.top_up)} (003 Shoot: add, never take out)"
                )
            if g.kitty <= 0 and g.round is None:
                raise HostError("top_up: the kitty is empty; put up a new kitty (kitty) or sell the bank")
            self.top_up += amount
            self.top_up_by = name

    # ------------------------------------------------------------------ the game's progress
    def _advance(self) -> None:
        while (g := self.game_obj) is not None:
            if g.round is None:
                if g.closed:  # closed in the store's events, its pay-backs not yet booked (a restart)
                    self._close_game()
                    return
                if not self._between(g):
                    return
                if g.needs_kitty:
                    banker = self.members[g.banker]
                    if banker.bot and not self.paused:  # a bot banker's kitty (web/bots.py)
                        g.put_kitty(min(self.bots.kitty_for(self.rules, g.banker), self.balance(g.banker)))
                        continue
                    if banker.absent:
                        g.put_kitty(self.rules.kitty_min)  # the default: the smallest kitty (003 Shoot)
                        self.act_note(f"{g.banker} is away: the smallest kitty was put up (003 Shoot)")
                        continue
                    self.set_timer(self.settings.turn_timeout_s)
                    return
                if self.paused or not self.humans_present():  # no new deal: paused, or nobody but bots
                    self.set_timer(None)
                    return
                if self.resting():  # the last round's results stay on the felt (the result pause)
                    self.set_timer(self.result_until - time.monotonic())
                    return
                self.note = None
                g.stacks = {s: self.members[s].buy_in for s in g.seats}  # rul 33: bank cover on buy-ins
                g.new_round()
                continue
            rnd = g.round
            if rnd.is_over():
                self._book(g, rnd)
                continue
            who = rnd.to_act()
            if who is not None and self.members[who].bot and not self.paused:
                if self._slow_bot(rnd, who):  # taken off the event loop: the server's tick runs bot_job
                    self.set_timer(None)
                    return
                g.act(who, british_decision(rnd, who, self.bots))  # the bot's own view (web/bots.py)
                continue
            if who is not None and self.members[who].absent:
                a = default_action(rnd, who)
                self.act_note(f"{who} is away: the server played the default ({a.verb})")
                g.act(who, a)
                continue
            self.set_timer(self.settings.turn_timeout_s)
            return

    def bot_levels(self) -> list[str]:
        return list(levels_for(self.rules))  # the solved levels where a solution is shipped

    @property
    def bots(self) -> Any:
        made = getattr(self, "_bots", None)
        if (
            made is None or made[0] != self.bot_level
        ):  # the ONE place British bots are chosen (kept per level)
            made = (self.bot_level, british_bots(self.rules, self.bot_level))
            self._bots = made
        return made[1]

    def _slow_bot(self, rnd: BritishRound, who: str) -> bool:
        """A bot's decision that reads the analysis for long, taken in a worker thread (``bot_job``), not on
        the event loop under the table's lock: a solved or best banker's turn (the best banker's reading of
        every hand: its Reader built on the first turn, about 1 s compiled and 20 s with numba's first
        compile, then 20 ms a turn heads-up and seconds with 6 or 7 players; facing a split, the profile's
        split play). Not while the table closes (every member leaving: the round is played out at once)."""
        m = self.members[who]
        return (
            self.bot_level in ("solved", "best")
            and rnd.phase == "banker"
            and who == rnd.banker
            and not m.absent
        )

    def bot_job(self) -> tuple[str, Callable[[], Any]] | None:
        """The bot banker's slow decision (``_slow_bot``) as a job for a worker thread; the other bots act at
        once inside ``_advance`` (their policies are cheap)."""
        g = self.game_obj
        rnd = None if g is None else g.round
        if self.paused or rnd is None or rnd.is_over():
            return None
        who = rnd.to_act()
        m = self.members.get(who) if isinstance(who, str) else None
        if m is None or not m.bot or not self._slow_bot(rnd, m.name):
            return None
        bots = self.bots
        # the round itself is read in the thread (from the bot's own view): only the bot may move it now,
        # and a decision taken while the table changed is dropped (Server.bots checks the version)
        return m.name, lambda: british_decision(rnd, m.name, bots)

    def bot_act(self, name: str, action: Any) -> None:
        """The bot's decision taken off the loop (``bot_job``); none (the analyser failed) or one refused: the
        turn timer's default (``default_action``)."""
        g = self.game_obj
        rnd = None if g is None else g.round
        if g is None or rnd is None or rnd.is_over() or rnd.to_act() != name:
            return
        try:
            g.act(name, action if action is not None else default_action(rnd, name))
        except PontoonError:
            g.act(name, default_action(rnd, name))
        self.bump()
        self._advance()

    def _book(self, g: BritishGame, rnd: BritishRound) -> None:
        self.last_round = rnd
        self.result_until = time.monotonic() + self.result_pause_s
        summary = g.end_round()
        self.add_history(
            {
                "round": summary["round"] + 0,
                "banker": summary["banker"],
                "status": summary["status"],
                "net": {p: {k: fmt(v) for k, v in d.items()} for p, d in summary["net"].items()},
                "next_banker": summary["next_banker"],
                "_round": rnd,
            }
        )

    def restore_members(self, snapshot: list[dict[str, Any]], now: float | None = None) -> None:
        """The people as last written, reconciled with the recovered game: a newcomer whose seat the
        game's events hold is seated; a seat whose leave the game committed (``seat_leaves``) but whose
        pay-back was not (a kill between the two transactions) is paid now, once: the pay-back is
        written with the snapshot that no longer holds him."""
        super().restore_members(snapshot, now)
        if self.bot_level != "simple":  # the solution read while restoring (at startup), not on the loop
            self.bots  # noqa: B018 - at a bot's first turn with players connected (a few seconds)
        g = self.game_obj
        if g is None or g.closed:
            return
        for m in list(self.members.values()):
            if m.pending and m.name in g.seats:
                m.pending = False
                self.note_member(m.name, {"seated": True})
            elif not m.pending and m.name not in g.seats:
                self._remove(m, m.buy_in + g.left.get(m.name, ZERO))

    def resume(self) -> None:
        self._advance()

    def on_timer(self, now: float) -> None:
        self.deadline = None
        g = self.game_obj
        if g is None:
            return
        if g.round is None and g.needs_kitty:
            g.put_kitty(self.rules.kitty_min)  # the default: the smallest kitty (003 Shoot)
            self.notices[g.banker] = "time ran out: the server put up the smallest kitty for you"
            self.act_note(f"time ran out: the server put up the smallest kitty for {g.banker}")
        elif g.round is not None and not g.round.is_over():
            who = g.round.to_act()
            if who is not None:
                a = default_action(g.round, who)
                g.act(who, a)
                self.notices[who] = f"time ran out: the server took the default action for you ({a})"
                self.act_note(f"time ran out: the server played {a.verb} for {who}")
        self.bump()
        self._advance()

    def on_absent(self) -> None:
        if self.game_obj is None:
            for m in list(self.members.values()):
                if m.absent and m.connections == 0:
                    self._remove(m, m.buy_in)
        else:
            self._advance()

    # ------------------------------------------------------------------ views (web/british_host_views.py)
    def legal_for(self, name: str | None) -> list[dict[str, Any]]:
        return british_host_views.legal_for(self, name)

    def state_for(
        self, name: str | None, history: bool = True, memo: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return british_host_views.state_for(self, name, history, memo)

    def hint_inputs(self, name: str) -> dict[str, Any]:
        """What ``british_hint`` needs for ``name`` to act (rul 35: nothing another seat holds face down)."""
        return british_host_views.hint_inputs(self, name)

    def history_for(self, entry: dict[str, Any], name: str | None) -> dict[str, Any]:
        return british_host_views.history_for(self, entry, name)

    def summary(self) -> dict[str, Any]:
        return british_host_views.summary(self)

    def close_all(self) -> None:
        for m in self.members.values():
            m.leaving = m.absent = True
        if self.game_obj is not None:
            self._advance()
        for m in list(self.members.values()):
            self._remove(m, m.buy_in)
        self.closed = True


def default_action(rnd: BritishRound, seat: str) -> Action:
    """The turn timer's default for ``seat`` (see the module docstring)."""
    legal = {a.verb: a for a in rnd.legal_actions(seat)}
    if "stake" in legal:
        low = legal["stake"].low
        return Action("stake", amount=low)  # 003 initial bets: the smallest stake
    for verb in ("pass", "stick", "twist"):  # never forced to double or shoot; stick, else twist
        if verb in legal:
            return Action(verb)
    a = next(iter(legal.values()))
    return Action(a.verb, amount=a.low)
