"""A British Pontoon (or Shoot Pontoon) table hosted by the server, through ``BritishGame``.

The table has a fixed number of seats (2 to 6, chosen when it is made); the game starts when every
seat is taken: the first banker is drawn at random (003), the bank and kitty pass as the engine says.
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
A person who leaves mid-round is played by these defaults until the round ends; then the game is
closed (the seats are the game's: 003 has no rule for a player joining or leaving a game in progress)
and every seat's buy-in plus its net result goes back to its account.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.money import fmt, to_money
from pontoon.protocol import SPECTATOR, Action
from pontoon.rules.british import BritishRules
from pontoon.settlement import KITTY
from pontoon.web.hosting import HostedTable, HostError, Member, PayOut, Settings, fair_shuffler, step_text
from pontoon.web.persistence import TablePersistence

ZERO = Decimal(0)
# events whose card data is public once logged (003: twisted, split, bust, burned, the banker's turn)
PUBLIC_CARDS = {"twist", "split", "bust", "burn", "banker_pontoon", "banker_turn", "banker_twist", "pontoon"}
NEVER = {"draw", "action"}  # the log is never a view: the pack's cards drawn in order


class BritishHost(HostedTable):
    game = "british"

    def __init__(
        self, table_id: str, title: str, rules: BritishRules, seed: int, seats: int, settings: Settings,
        store: TablePersistence, pay_out: PayOut, *, seeded: bool = False, game: BritishGame | None = None,
    ) -> None:
        """``game``: adopt a game rebuilt by the history store's recovery (then ``restore_members``)."""
        super().__init__(table_id, title, rules, settings, store, pay_out)
        self.rules: BritishRules = rules
        self.seed = seed
        self.seats = seats
        self.seeded = seeded
        self.games = 0
        self.game_obj: BritishGame | None = game
        if game is not None:
            self.games = 1
            for ev in game.log.events:  # an adopted game: its pack's commitment and reveals so far
                self.fair_event(ev)
            game.subscribe(self.watch)

    # ------------------------------------------------------------------ seats
    def join(self, name: str, box: int | None, stand_on: int | None, buy_in: Decimal) -> Member:
        self._check_new_name(name)
        if box is not None or stand_on is not None:
            raise HostError("a British table has seats, not boxes: join without box or stand_on")
        if self.game_obj is not None or len(self.members) >= self.seats:
            raise HostError(f"table {self.id} is full: its {self.seats} seats are playing; make another table")
        m = Member(name, "seat", None, buy_in)
        self.members[name] = m
        self.note_member(name, {"join": "seat", "buy_in": fmt(buy_in)})
        self.bump()
        if len(self.members) == self.seats:
            self._start()
        return m

    def _start(self) -> None:
        self.games += 1
        fair = fair_shuffler(self.seed + self.games if self.seeded else None)
        extra: dict[str, Any] = {} if fair is None else {"fair": fair}
        # 003: the first banker is drawn at random
        g = BritishGame(self.rules, list(self.members), rng=self.seed + self.games, **extra)
        self.store.attach(self.id, g, self.title)  # recorded from its first event (history store)
        g.subscribe(self.watch)
        self.game_obj = g
        self._advance()

    def leave(self, name: str) -> Decimal | None:
        m = self.member(name)
        if self.game_obj is None:
            return self._remove(m, m.buy_in)
        m.leaving = m.absent = True
        self.bump()
        self._advance()
        return None

    def _remove(self, m: Member, amount: Decimal) -> Decimal:
        del self.members[m.name]
        self.note_member(m.name, {"leave": fmt(amount)})
        self.pay_out(m.name, amount)
        self.bump()
        return amount

    def _close_game(self) -> None:
        """Book every seat's buy-in plus net to its account; the leavers go, the others wait for a new game."""
        g = self.game_obj
        assert g is not None and g.round is None
        if g.rules.shoot and g.kitty > 0:
            # 003 Shoot: the kitty is the banker's money, kept apart: it goes back to him
            g.ledger.move(KITTY, g.banker, g.kitty, kind="kitty", player=g.banker, reason="kitty retrieved")
        for m in list(self.members.values()):
            total = m.buy_in + g.balance(m.name)
            if m.leaving or (m.absent and m.connections == 0):
                self._remove(m, total)
            else:
                m.buy_in = total
                self.note_member(m.name, {"game_closed": fmt(total)})
        closer = getattr(g, "close", None)  # a fair pack's seed is revealed when the game closes
        if closer is not None:
            closer()
        self.store.detach(self.id)
        self.game_obj = None
        self.set_timer(None)
        self.bump()

    def balance(self, name: str) -> Decimal:
        m = self.members[name]
        g = self.game_obj
        if g is None:
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
            raise HostError(f"the game starts when all {self.seats} seats are taken ({len(self.members)} now)")
        if msg.type == "act":
            if g.round is None:
                raise HostError("no round is in play" + ("; the banker must put up a kitty" if g.needs_kitty else ""))
            a = msg.action
            action = Action.from_json(a.model_dump(exclude_none=True, exclude_defaults=True) | {"verb": a.verb})
            g.round.verify(name, action)  # the engine's check: whose turn, which verbs, the amount
            if action.amount is not None and name != g.banker and action.amount > self.balance(name):
                raise HostError(f"{action.verb} {fmt(action.amount)} is more than your balance {fmt(self.balance(name))}")
            g.act(name, action)
        elif msg.type == "kitty":
            if name != g.banker or g.round is not None or not g.needs_kitty:
                raise HostError("kitty: only the banker puts up a kitty, between rounds, when it is empty (003 Shoot)")
            g.put_kitty(to_money(msg.amount, "kitty"))
        else:
            raise HostError(f"{msg.type}: not an action at a British table; act with the listed verbs")
        del m
        self.bump()
        self._advance()

    # ------------------------------------------------------------------ the game's progress
    def _advance(self) -> None:
        while (g := self.game_obj) is not None:
            if g.round is None:
                if any(m.leaving for m in self.members.values()):
                    self._close_game()
                    return
                if g.needs_kitty:
                    if self.members[g.banker].absent:
                        g.put_kitty(self.rules.kitty_min)  # the default: the smallest kitty (003 Shoot)
                        continue
                    self.set_timer(self.settings.turn_timeout_s)
                    return
                g.new_round()
                continue
            rnd = g.round
            if rnd.is_over():
                self._book(g, rnd)
                continue
            who = rnd.to_act()
            if who is not None and self.members[who].absent:
                g.act(who, default_action(rnd, who))
                continue
            self.set_timer(self.settings.turn_timeout_s)
            return

    def _book(self, g: BritishGame, rnd: BritishRound) -> None:
        summary = g.end_round()
        self.add_history({
            "round": summary["round"] + 0,
            "banker": summary["banker"],
            "status": summary["status"],
            "net": {p: {k: fmt(v) for k, v in d.items()} for p, d in summary["net"].items()},
            "next_banker": summary["next_banker"],
            "_round": rnd,
        })

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
        elif g.round is not None and not g.round.is_over():
            who = g.round.to_act()
            if who is not None:
                a = default_action(g.round, who)
                g.act(who, a)
                self.notices[who] = f"time ran out: the server took the default action for you ({a})"
        self.bump()
        self._advance()

    def on_absent(self) -> None:
        if self.game_obj is None:
            for m in list(self.members.values()):
                if m.absent and m.connections == 0:
                    self._remove(m, m.buy_in)
        else:
            self._advance()

    # ------------------------------------------------------------------ views
    def legal_for(self, name: str | None) -> list[dict[str, Any]]:
        g = self.game_obj
        if g is None or name not in self.members or self.members[name].absent:
            return []
        if g.round is None:
            if g.needs_kitty and name == g.banker:
                return [{"verb": "kitty", "low": fmt(self.rules.kitty_min), "high": fmt(self.rules.kitty_max)}]
            return []
        return [a.to_json() for a in g.round.legal_actions(name)]

    def state_for(self, name: str | None, history: bool = True) -> dict[str, Any]:
        out = self.base_state(name, history)
        g = self.game_obj
        me = name if name in self.members else None
        rnd = None if g is None else g.round
        out["phase"] = "waiting" if g is None else ("kitty" if rnd is None else "play")
        out["round"] = None if rnd is None else rnd.view(me if me is not None else SPECTATOR)
        out["round_no"] = 0 if g is None else g.rounds_played + (1 if rnd is not None else 0)
        out["legal"] = self.legal_for(name)
        out["to_act"] = None if g is None else (rnd.to_act() if rnd is not None else (g.banker if g.needs_kitty else None))
        out["members"] = [dict(m.public(), balance=fmt(self.balance(m.name))) for m in self.members.values()]
        out["seats"] = self.seats
        out["banker"] = None if g is None else g.banker
        out["kitty"] = fmt(g.kitty) if g is not None and self.rules.shoot else None
        out["limits"] = {"stake_min": fmt(self.rules.stake_min), "stake_max": fmt(self.rules.stake_max)}
        out["hints_available"] = False
        return out

    def history_for(self, entry: dict[str, Any], name: str | None) -> dict[str, Any]:
        out = {k: v for k, v in entry.items() if not k.startswith("_")}
        out["steps"] = british_steps(entry["_round"], name if name in self.members else None)
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id, "title": self.title, "game": self.game, "preset": self.rules.preset,
            "name": self.rules.name or self.rules.preset, "members": [m.public() for m in self.members.values()],
            "seats": self.seats, "rounds": 0 if self.game_obj is None else self.game_obj.rounds_played,
            "stake_min": fmt(self.rules.stake_min), "stake_max": fmt(self.rules.stake_max),
            "started": self.game_obj is not None,
        }

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


def british_steps(rnd: BritishRound, seat: str | None) -> list[str]:
    """The round's steps as ``seat`` may see them: a bought card only to its holder, unless exposed."""
    final = rnd.view(seat if seat is not None else SPECTATOR)
    exposed = {(h["owner"], h["hand"]) for h in final["hands"] if "??" not in h["cards"]}
    out = []
    for ev in rnd.events():
        if ev.kind in NEVER:
            continue
        data = dict(ev.data)
        if ev.kind not in PUBLIC_CARDS:
            mine = data.get("seat") == seat and seat is not None
            if not mine and (data.get("seat"), data.get("hand")) not in exposed:
                data.pop("card", None)
                data.pop("cards", None)
        out.append(step_text(type(ev)(ev.seq, ev.kind, data, ev.clause)))
    return out
