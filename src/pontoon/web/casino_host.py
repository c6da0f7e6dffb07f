"""A casino table hosted by the server: boxes with their seated and standing bettors, wagers
collected before the deal, rounds driven through ``CasinoTable`` and the table protocol.

Flow: between rounds people place wagers (``bet``: main or a side bet the rules offer, within the
table limits and their balance); the round is dealt when everyone present has a main wager, when
one of them asks (``deal``), or when the betting timer runs out. The round is then played through
``CasinoTable.act`` (checked by the engine); when it is over it is booked and the next betting opens.
A standing bettor's wager waits for the seated bettor's main wager on that box (004 3.3: the box is
played by its seated bettor). The turn timer's default is ``stand``; an absent person's hand is
drawn by the House to 12 or more, then stood (004 5.3).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pontoon.cards import pack_cards
from pontoon.casino.round import CasinoRound
from pontoon.casino.seats import shown_before
from pontoon.casino.table import CasinoTable
from pontoon.errors import PontoonError
from pontoon.history.words import round_words
from pontoon.money import fmt, to_money
from pontoon.protocol import TABLE, Action
from pontoon.rules.model import CasinoRules
from pontoon.web.bots import casino_decision
from pontoon.web.felt import Kept, dealer_total
from pontoon.web.hosting import HostedTable, HostError, Member, PayOut, Settings, fair_shuffler
from pontoon.web.models import action_json
from pontoon.web.persistence import TablePersistence
from pontoon.web.shoes_ahead import shuffle_ahead

ZERO = Decimal(0)


class CasinoHost(HostedTable):
    game = "casino"
    leave_note = "you leave when the round in play ends; until then the House plays your hand (004 5.3)"

    def __init__(
        self,
        table_id: str,
        title: str,
        rules: CasinoRules,
        seed: int,
        settings: Settings,
        store: TablePersistence,
        pay_out: PayOut,
        *,
        seeded: bool = False,
        table: CasinoTable | None = None,
    ) -> None:
        """``table``: adopt a table rebuilt by the history store's recovery instead of making one."""
        super().__init__(table_id, title, rules, settings, store, pay_out)
        self.rules: CasinoRules = rules
        if table is None:
            fair = fair_shuffler(seed if seeded else None)
            extra: dict[str, Any] = {} if fair is None else {"fair": fair}
            table = CasinoTable(rules, rng=seed, window_size=settings.history_rounds, **extra)
            store.attach(table_id, table, title)  # recorded from its first event (history store)
        self.table = table
        for ev in table.log.events:  # an adopted table: its shoe's commitment and reveals so far
            self.fair_event(ev)
        self.table.subscribe(self.watch)
        self.prepare_shoe()
        self.bets: dict[str, dict[str, Decimal]] = {}
        self._limits: dict[str, Any] | None = None  # the state's "limits" (the rules': made once)
        self._shoe_size = rules.decks * len(pack_cards(rules.pack))  # the state's "shoe" "size"
        self._held = Kept(self._shoe_size)  # the public round view and "shoe", kept while the same
        self.closed_by = "its wagers were placed"  # how the betting of the last round dealt closed

    def fair_event(self, ev: Any) -> None:
        super().fair_event(ev)
        if ev.kind == "new_shoe":  # the next one ahead while this one is dealt, behind other tables'
            self.prepare_shoe(queued=True)

    def prepare_shoe(self, queued: bool = False) -> None:
        """The next fair shoe shuffled ahead in a worker thread (``FairShuffler.prepare``): no table's
        first deal nor new shoe shuffles on the event loop; nothing without a running loop. ``queued``:
        one at a time behind the other tables' (web/shoes_ahead.py), else at once (a table made)."""
        fair = getattr(self.table, "fair", None)
        if fair is None or not hasattr(fair, "prepare"):
            return
        shuffle_ahead(functools.partial(fair.prepare, self.rules.pack, self.rules.decks), queued)

    # ------------------------------------------------------------------ seats
    def seated_at(self, box: int) -> Member | None:
        return next((m for m in self.members.values() if m.role == "seated" and m.box == box), None)

    def join(self, name: str, box: int | None, stand_on: int | None, buy_in: Decimal) -> Member:
        self._check_new_name(name)
        r = self.rules
        if (box is None) == (stand_on is None):
            raise HostError(
                "join a casino table with either box (to sit) or stand_on (to stand behind a box)"
            )
        n = box if box is not None else stand_on
        assert n is not None
        if not 1 <= n <= r.max_boxes:
            raise HostError(f"box {n} does not exist: boxes are 1 to {r.max_boxes} at this table")
        if box is not None and self.seated_at(box) is not None:
            raise HostError(f"box {box} is taken; sit at a free box or stand behind this one (stand_on)")
        if stand_on is not None:
            if self.seated_at(stand_on) is None:
                raise HostError(f"nobody sits at box {stand_on}: sit there (box) instead of standing")
            on_box = sum(1 for m in self.members.values() if m.box == stand_on)
            if on_box >= r.max_bettors_per_box:  # 004 3.3 / the rules' bettors per box
                raise HostError(
                    f"box {stand_on} already has {on_box} bettors: at most {r.max_bettors_per_box}"
                )
        m = Member(name, "seated" if box is not None else "standing", n, buy_in)
        m.pending = self.table.in_round  # sits down when the round ends (CasinoTable: join between rounds)
        # the people's snapshot first, then the table's join (its deposit): a restart keeps a member
        # only if the table holds him, so a kill between the two moves no money (history store)
        self.members[name] = m
        try:  # the buy-in checked against the account in the snapshot's transaction (history store)
            self.note_member(name, {"join": m.role, "box": n, "buy_in": fmt(buy_in)})
        except PontoonError:  # refused (the account holds less): nothing written, the table unchanged
            del self.members[name]
            raise
        if not m.pending:
            try:
                self.table.join(name, buy_in)
            except PontoonError:
                del self.members[name]
                self.note_member(name, {"join_refused": True})
                raise
        self.bump()
        return m

    def leave(self, name: str) -> Decimal | None:
        """Stand up: the balance goes back to the account now, or when the round holding it ends."""
        m = self.member(name)
        if self.table.in_round and not m.pending:  # CasinoTable: leave between rounds
            m.leaving = m.absent = True
            self.bump()
            self._advance()
            return None
        return self._remove(m)

    def _remove(self, m: Member) -> Decimal:
        amount = m.buy_in if m.pending else self.table.leave(m.name)
        del self.members[m.name]
        self.bets.pop(m.name, None)
        heir: Member | None = None
        if m.role == "seated":  # the first standing bettor behind the box takes the seat
            heir = next((x for x in self.members.values() if x.box == m.box and x.role == "standing"), None)
            if heir is not None:
                heir.role = "seated"
            for x in self.members.values():
                if x.box == m.box and x.role == "standing":
                    self.bets.pop(x.name, None)
        self.note_member(m.name, {"leave": fmt(amount)} | ({"seated": heir.name} if heir is not None else {}))
        self.pay_out(m.name, amount)
        self.member_gone(m.name)
        self.bump()
        return amount

    def balance(self, name: str) -> Decimal:
        m = self.members[name]
        return m.buy_in if m.pending else self.table.balance(name)

    # ------------------------------------------------------------------ messages
    def handle(self, name: str, msg: Any) -> None:
        m = self.member(name)
        kind = msg.type
        if kind == "bet":
            self._bet(m, msg.kind, to_money(msg.amount, "wager"), msg.round)
        elif kind == "clear_bets":
            self._clear(m)
        elif kind == "deal":
            if self.table.in_round:
                raise HostError(f"deal: round {self.next_round - 1} was dealt already ({self.closed_by})")
            if not self.bets.get(name, {}).get("main"):
                raise HostError("deal: place a main wager first")
            self._deal(f"{name} pressed Deal")
        elif kind == "act":
            if not self.table.in_round:
                raise HostError("no round is in play: place a wager (bet) and deal")
            a = msg.action
            action = Action.from_json(action_json(a))
            self.table.act(name, action)  # checked by the engine (verify) and the balance
        elif kind == "kitty":
            raise HostError("kitty: there is no kitty at a casino table")
        else:
            raise HostError(f"{kind}: not an action")
        self.bump()
        self._advance()

    @property
    def next_round(self) -> int:
        """The number of the round the wagers are for: the next one dealt (the one in play + 1)."""
        return self.table.rounds_played + (2 if self.table.in_round else 1)  # (rounds_played: finished)

    def _late(self, kind: str, meant: int | None) -> None:
        """A wager for a round other than the one open for betting (a client acting on a state the table
        has left; under load, a bet sent as the betting timer dealt) is refused, never placed on another
        round: after "No more bets" every wager is refused (000 5.3, 002 5.2, 004 5.8), and a wager is
        placed only on the round its bettor saw open. ``meant``: the round the client named (the page
        names the round it showed open); None: the round open when it comes (older clients)."""
        rnd = self.next_round - 1 if self.table.in_round else None
        if rnd is not None and meant in (None, rnd):
            raise HostError(
                f"{kind} wager not placed: round {rnd} was dealt before it came ({self.closed_by}; no more "
                f"bets, 000 5.3, 002 5.2, 004 5.8); nothing was taken from your balance: bet again for "
                f"round {rnd + 1} when round {rnd} is over"
            )
        if rnd is not None:
            raise HostError(
                f"{kind} wager not placed: round {meant} is not open for betting (round {rnd} is in play; "
                f"bets for round {rnd + 1} open when it is over)"
            )
        if meant is not None and meant < self.next_round:
            raise HostError(
                f"{kind} wager not placed: round {meant} was dealt before it came (no more bets, 000 5.3, "
                f"002 5.2, 004 5.8) and is over; betting is open for round {self.next_round}: bet again to "
                "play it"
            )
        if meant is not None and meant > self.next_round:
            raise HostError(
                f"{kind} wager not placed: round {meant} is not open for betting; betting is open for round "
                f"{self.next_round}"
            )

    def _bet(self, m: Member, kind: str, amount: Decimal, meant: int | None = None) -> None:
        r = self.rules
        self._late(kind, meant)
        if m.pending:
            raise HostError("you sit down when this round ends")
        if kind == "main":
            lo, hi = r.table_min, r.table_max
        elif kind in r.side_bets:
            lo, hi = r.side_min, r.side_max
            if "main" not in self.bets.get(m.name, {}):
                raise HostError(f"a {kind} side bet needs your main wager first (000 3.5.2, 004 3.9)")
        else:
            raise HostError(
                f"wager kind {kind!r} is not offered: accepted {', '.join(('main', *r.side_bets))}"
            )
        if not lo <= amount <= hi:
            raise HostError(f"{kind} wager {fmt(amount)} is outside the limits {fmt(lo)} to {fmt(hi)}")
        if m.role == "standing":
            seated = self.seated_at(m.box or 0)
            if seated is None or "main" not in self.bets.get(seated.name, {}):
                raise HostError(f"box {m.box}: the seated bettor's main wager comes first (004 3.3)")
        mine = dict(self.bets.get(m.name, {}))
        mine[kind] = amount
        total = sum(mine.values(), ZERO)
        if total > self.balance(m.name):
            raise HostError(f"wagers of {fmt(total)} are more than your balance {fmt(self.balance(m.name))}")
        self.bets[m.name] = mine
        if len(self.bets) == 1 and len(mine) == 1:
            self.set_timer(self.settings.bet_timeout_s)
        present = [x for x in self.members.values() if not x.absent and not x.pending]
        if present and all("main" in self.bets.get(x.name, {}) for x in present):
            self._deal("every person present had a main wager")

    def _clear(self, m: Member) -> None:
        if self.table.in_round:
            raise HostError("the wagers of a round in play cannot be taken back (000 5.4)")
        self.bets.pop(m.name, None)
        if m.role == "seated":
            for x in self.members.values():
                if x.box == m.box and x.role == "standing":
                    self.bets.pop(x.name, None)
        if not self.bets:
            self.set_timer(None)

    def _deal(self, closed_by: str = "its wagers were placed") -> None:
        """Open the round, place the wagers (seated bettors first, main before side) and deal.

        The wagers are first tried on a scratch round (no card is drawn before the deal), so that the
        table's round is opened only when the deal will go through: a refused wager is dropped with
        its reason, and no round is ever left open without wagers."""
        if self.table.in_round or not any("main" in b for b in self.bets.values()):
            return
        if self.paused:
            raise HostError("the host paused the table: the next round is dealt when the host resumes it")
        order = sorted(self.bets, key=lambda n: (self.members[n].role != "seated", self.members[n].box or 0))
        scratch = CasinoRound(self.rules, self.table.shoe, jackpot=())  # (no card, no button: no generator)
        placed: list[tuple[str, int, str, Decimal]] = []
        for name in order:
            box = self.members[name].box or 0
            for kind, amount in sorted(self.bets[name].items(), key=lambda kv: kv[0] != "main"):
                try:
                    scratch.place_bet(box, name, kind, amount)
                    placed.append((name, box, kind, amount))
                except PontoonError as err:
                    self.notices[name] = f"wager not placed: {err}"
        try:
            scratch.verify_close_bets()
        except PontoonError as err:
            self.bets.clear()
            for name in order:
                self.notices[name] = f"not dealt: {err}"
            raise HostError(f"not dealt: {err}") from None
        self.bets.clear()
        self.note = None
        self.closed_by = closed_by
        self.table.new_round()
        for name, box, kind, amount in placed:
            self.table.place_bet(box, name, kind, amount)
        self.table.deal()

    # ------------------------------------------------------------------ the round's progress
    def _advance(self) -> None:
        """Take absent people's turns (004 5.3); book a finished round; restart the timer."""
        rnd = self.table.round
        while rnd is not None and self.table.in_round and not rnd.is_over():
            who = rnd.to_act()
            m = self.members.get(who) if isinstance(who, str) else None
            if m is None or not m.absent:
                break
            self.act_note(f"{who} is away: the House plays the hand (004 5.3)")
            self._play_out_hand()
        if rnd is not None and self.table.in_round and rnd.is_over():
            self._book()
            self.result_until = time.monotonic() + self.result_pause_s
        if self.table.in_round:
            self.set_timer(self.settings.turn_timeout_s)
        elif not self.bets:
            self.set_timer(None)

    def _play_out_hand(self) -> None:
        """004 5.3: a player who walks away: the House draws his hand to 12 or more, then stands."""
        rnd = self.table.round
        assert rnd is not None
        h = rnd.current
        if h is None:
            return
        total, _ = h.total(rnd.rules.double_ace_counts_one)
        want = "hit" if (not h.awaiting_rescue and total < rnd.rules.walk_away_draw_to) else "stand"
        a = Action(want, h.box)
        if not rnd.can(TABLE, a):
            a = Action("hit" if want == "stand" else "stand", h.box)
        self.table.act(TABLE, a)

    def _book(self) -> None:
        rnd = self.table.round
        assert rnd is not None
        summary = self.table.end_round()
        self.add_history(
            {
                "round": summary["round"],
                "status": summary["status"],
                "dealer": summary["dealer"],
                "net": summary["net"],
                "steps": round_words(rnd.events(), self._held.round(rnd), game="casino", net=summary["net"]),
            }
        )
        for m in list(self.members.values()):
            if m.leaving or (m.absent and m.connections == 0):
                self._remove(m)
            elif m.pending:
                self.table.join(m.name, m.buy_in)
                m.pending = False
                self.note_member(m.name, {"sits_down": m.box})

    def resume(self) -> None:
        self._advance()

    def on_timer(self, now: float) -> None:
        self.deadline = None
        rnd = self.table.round
        if not self.table.in_round:
            try:
                self._deal("the betting timer ran out")  # betting time is over: deal the wagers placed
            except HostError:
                pass
        elif rnd is not None and not rnd.is_over():
            who = rnd.to_act()
            h = rnd.current
            if isinstance(who, str) and h is not None:
                a = Action("stand", h.box)  # the documented default: stand
                if rnd.can(who, a):
                    self.table.act(who, a)
                else:
                    self._play_out_hand()
                self.notices[who] = "time ran out: the server stood for you"
                self.act_note(f"time ran out: the server stood for {who}")
        self.bump()
        self._advance()

    def on_absent(self) -> None:
        self._advance()
        if not self.table.in_round:
            for m in list(self.members.values()):
                if m.absent and m.connections == 0:
                    self._remove(m)

    # ------------------------------------------------------------------ views
    def legal_for(self, name: str | None) -> list[dict[str, Any]]:
        m = self.members.get(name or "")
        if m is None:
            return []
        rnd = self.table.round
        if self.table.in_round and rnd is not None:
            return [a.to_json() for a in rnd.legal_actions(m.name)] if not m.absent else []
        if m.pending:
            return []
        r = self.rules
        room = self.balance(m.name) - sum(self.bets.get(m.name, {}).values(), ZERO)
        out: list[dict[str, Any]] = []
        has_main = "main" in self.bets.get(m.name, {})
        if not has_main and room >= r.table_min:
            out.append(
                {"verb": "bet", "kind": "main", "low": fmt(r.table_min), "high": fmt(min(r.table_max, room))}
            )
        for kind in r.side_bets:
            if has_main and kind not in self.bets[m.name] and room >= r.side_min:
                out.append(
                    {"verb": "bet", "kind": kind, "low": fmt(r.side_min), "high": fmt(min(r.side_max, room))}
                )
        if has_main:
            out += [{"verb": "deal"}, {"verb": "clear_bets"}]
        return out

    def state_for(
        self, name: str | None, history: bool = True, memo: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """``name``'s state (None: the public one). ``memo``: one change's shared parts (web/frames.py
        builds every view kind of a change with one memo): what every kind sees alike is built once."""
        memo = {} if memo is None else memo
        out = self.base_state(name, history, memo)
        rnd = self.table.round
        m = self.members.get(name or "")
        me = name if m is not None and not m.pending else None
        shared = memo.get("casino")
        if shared is None:
            shared = memo["casino"] = self._shared_state()
        out["phase"] = shared["phase"]
        spec = shared["round"]
        if spec is None or me is None:
            out["round"] = spec
        else:  # the seat's own view (casino/seats.py ``view``): the public one, its seat and its actions
            own = dict(spec)
            own["seat"], own["spectator"] = me, False
            own["legal_actions"] = [a.to_json() for a in rnd.legal_actions(me)] if rnd is not None else []
            out["round"] = own
        out["round_no"] = shared["round_no"]
        if m is not None and self.table.in_round and rnd is not None:
            # (the listing of the round view above: the engine's legal actions, built once)
            out["legal"] = [] if m.absent else out["round"]["legal_actions"] if me is not None else []
        else:
            out["legal"] = self.legal_for(name)
        for k in ("to_act", "members", "bets", "limits", "shoe", "dealer_total"):
            out[k] = shared[k]
        out["hints_available"] = True
        return out

    def own_ops(self, name: str, memo: dict[str, Any]) -> list[list[Any]]:
        """What turns the public state (``state_for(None)``, of the same ``memo``) into member ``name``'s
        (web/frames.py ``Change.own``), made as ``state_for`` makes them: its ``you``, its seat and legal
        actions in the round, its ``legal``; from its own view alone (ruling 35)."""
        m, rnd = self.members[name], self.table.round
        shared = memo.get("casino")
        if shared is None:
            shared = memo["casino"] = self._shared_state()
        ops: list[list[Any]] = [[["you"], name]]
        la: list[dict[str, Any]] = []
        if shared["round"] is not None and not m.pending:
            la = [a.to_json() for a in rnd.legal_actions(name)] if rnd is not None else []
            ops += [
                [["round", "seat"], name],
                [["round", "spectator"], False],
                [["round", "legal_actions"], la],
            ]
        in_round = self.table.in_round and rnd is not None
        ops.append([["legal"], ([] if m.absent or m.pending else la) if in_round else self.legal_for(name)])
        return ops

    def _member_shown(self, m: Member) -> dict[str, Any]:
        """A member's entry in the state: ``Member.public``'s keys, then his balance (one dict)."""
        return {
            "name": m.name,
            "bot": m.bot,
            "role": m.role,
            "box": m.box,
            "connected": m.connections > 0,
            "absent": m.absent,
            "leaving": m.leaving,
            "pending": m.pending,
            "balance": fmt(m.buy_in if m.pending else self.table.balance(m.name)),
        }

    def _shared_state(self) -> dict[str, Any]:
        """The parts of a state every view kind sees alike (nothing hidden: the public round view)."""
        rnd = self.table.round
        in_round = self.table.in_round
        spec = None if rnd is None else self._held.round(rnd)
        limits = self._limits
        if limits is None:  # the rules do not change
            limits = self._limits = {
                "table_min": fmt(self.rules.table_min),
                "table_max": fmt(self.rules.table_max),
                "side_bets": list(self.rules.side_bets),
                "boxes": self.rules.max_boxes,
            }
        shoe = self.table.shoe
        used = self.table.shoes_used
        return {
            "phase": "play" if in_round else "betting",
            "round": spec,
            "round_no": self.table.rounds_played + (1 if in_round else 0),
            "to_act": None if not in_round or spec is None else spec["to_act"],
            "members": self._kept_text("members", [self._member_shown(m) for m in self.members.values()]),
            "bets": {n: {k: fmt(v) for k, v in b.items()} for n, b in self.bets.items()},
            "limits": limits,
            "shoe": self._held.shoe(
                used, shoe.remaining if used else None, bool(used) and shoe.needs_shuffle
            ),
            "dealer_total": dealer_total(spec),
        }

    # ------------------------------------------------------------------ bots (web/bots.py)
    def bots_bet(self) -> bool:
        """Bots place the table minimum once a person present has placed a main wager and the last
        round's results have had their time on the felt (the result pause)."""
        if self.paused or self.table.in_round or self.resting():
            return False
        if not any("main" in self.bets.get(m.name, {}) for m in self.members.values() if not m.bot):
            return False
        done = False
        for m in list(self.members.values()):
            if self.table.in_round:
                break
            if m.bot and not m.pending and not m.absent and "main" not in self.bets.get(m.name, {}):
                if self.balance(m.name) >= self.rules.table_min:
                    self._bet(m, "main", self.rules.table_min)
                    done = True
        if done:
            self.bump()
            self._advance()
        return done

    def bot_job(self) -> tuple[str, Callable[[], Any]] | None:
        rnd = self.table.round
        if self.paused or rnd is None or not self.table.in_round or rnd.is_over():
            return None
        who = rnd.to_act()
        m = self.members.get(who) if isinstance(who, str) else None
        if m is None or not m.bot:
            return None
        rules, view, seen, legal = self.rules, rnd.view(m.name), shown_before(rnd), rnd.legal_actions(m.name)
        return m.name, lambda: casino_decision(rules, view, seen, legal)  # the bot's own view only

    def bot_act(self, name: str, action: Any) -> None:
        rnd = self.table.round
        if rnd is None or rnd.to_act() != name:
            return
        if action is not None and rnd.can(name, action):
            self.table.act(name, action)
        else:  # no decision, or one refused: the House's default play (004 5.3: draw to 12, then stand)
            self._play_out_hand()
        self.bump()
        self._advance()

    def hint_inputs(self, name: str) -> dict[str, Any]:
        """What the analyser needs for ``name``'s hand to act (casino only), from ``name``'s view
        alone (rul 35: the face-down hole card counts as unseen)."""
        rnd = self.table.round
        if rnd is None or not self.table.in_round or rnd.to_act() != name or rnd.current is None:
            raise HostError("hints: it is not your hand to act")
        from pontoon.analysis.seat_view import hint_inputs
        from pontoon.casino.seats import shown_before

        return hint_inputs(rnd.rules, rnd.view(name), shown_before(rnd))

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "game": self.game,
            "preset": self.rules.preset,
            "name": self.rules.name,
            "members": [m.public() for m in self.members.values()],
            "boxes": self.rules.max_boxes,
            "rounds": self.table.rounds_played,
            "table_min": fmt(self.rules.table_min),
            "table_max": fmt(self.rules.table_max),
            "free_boxes": [b for b in range(1, self.rules.max_boxes + 1) if self.seated_at(b) is None],
        }

    def close_all(self) -> None:
        if self.table.in_round:
            for m in self.members.values():
                m.absent = m.leaving = True
            self._advance()
        for m in list(self.members.values()):
            self._remove(m)
        closer = getattr(self.table, "close", None)  # a fair shoe's seed is revealed when the table closes
        if closer is not None:
            closer()
        self.closed = True
