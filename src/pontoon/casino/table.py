"""A casino table across rounds: seats, balances, the shoe with its cut card, a bounded window of rounds.

``CasinoTable`` is the multi-round object beside ``british.table.BritishGame``, with the same shape:
- people ``join`` with a balance and ``leave`` between rounds; a balance is exact money, and a wager is
  accepted only when the bettor's balance covers it (the round's own checks, limits and clause rules,
  come from the engine);
- the shoe carries across rounds; when the cut card has come out the next round starts from a new
  shoe (000 3.2, 004 3.6: the cut card; rulings 3), made by the table's ``shuffler`` (default: a
  seeded numpy shuffle); with ``fair=FairShuffler()`` (recorded tables) each shoe is a provably fair
  shuffle whose commitment is logged (``new_shoe``) before its first card and whose seed is revealed
  (``shoe_retired``) when it is replaced or the table closes (``docs/fairness.md``);
- ``subscribe(fn)`` hands every event, with the ledger transfers it caused, to ``fn`` as it happens,
  before anything is shown (the history store records them); ``window`` keeps only the last
  ``window_size`` finished rounds' summaries in memory, so memory does not grow with the rounds played.
Rounds are driven through the table protocol: ``table.round`` is a ``CasinoRound``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, Final

import numpy as np

from pontoon.cards import Card
from pontoon.casino.round import CasinoRound
from pontoon.errors import BetError, IllegalAction
from pontoon.events import Event, EventLog, Publisher
from pontoon.fair import FairShuffler
from pontoon.money import fmt, to_money
from pontoon.protocol import TABLE, Action, Actor
from pontoon.rules.model import CasinoRules
from pontoon.shoe import RngLike, Shoe, make_rng

ZERO: Final = Decimal(0)
Shuffler = Callable[[Sequence[Card]], Sequence[Card]]


class CasinoTable(Publisher):
    game = "casino"

    def __init__(
        self,
        rules: CasinoRules,
        *,
        rng: RngLike = None,
        shuffler: Shuffler | None = None,
        window_size: int = 50,
        shoe: Shoe | None = None,
        fair: FairShuffler | None = None,
    ) -> None:
        super().__init__()
        if fair is not None and (shoe is not None or shuffler is not None):
            raise IllegalAction("a fair table shuffles its own shoes: give fair, or shoe/shuffler, not both")
        self.rules = rules
        self.rng: np.random.Generator = make_rng(rng)
        self.shuffler = shuffler
        self.fair = fair
        self.closed = False
        self.balances_: dict[str, Decimal] = {}
        self.round: CasinoRound | None = None
        self.rounds_played = 0
        self.shoes_used = 0
        self.window: deque[dict[str, Any]] = deque(maxlen=window_size)
        self.log = EventLog(maxlen=200)  # the table's own events (joins, shoes); the store keeps them all
        self._seen = 0  # events of the current round already published
        self._moved = 0  # transfers of the current round already published
        self._booked = True  # the last round is booked into the balances (no round open)
        if fair is not None:  # shuffled when the first round needs it: its commitment reaches the subscribers
            self.shoe = Shoe([], cut_index=0, pack=rules.pack, decks=rules.decks)
        else:
            self.shoe = shoe if shoe is not None else self._new_shoe()

    # ---------------------------------------------------------------------------------------
    # seats and money
    def join(self, name: object, balance: object) -> None:
        """Sit down with ``balance`` (between rounds). Any printable name (rulings 32)."""
        self._between_rounds("join")
        if not isinstance(name, str) or not name or not name.isprintable() or len(name) > 64:
            raise IllegalAction(f"a player name is 1 to 64 printable characters, not {name!r:.80}")
        if name in self.balances_:
            raise IllegalAction(f"{name!r} is already at the table")
        amt = to_money(balance, "balance")
        if amt < 0:
            raise BetError(f"balance {fmt(amt)} must not be negative")
        self.balances_[name] = amt
        self._table_event("join", player=name, balance=fmt(amt))

    def leave(self, name: str) -> Decimal:
        """Stand up (between rounds); returns the balance taken away."""
        self._between_rounds("leave")
        if name not in self.balances_:
            raise IllegalAction(
                f"{name!r} is not at the table; seated: {', '.join(self.balances_) or 'nobody'}"
            )
        amt = self.balances_.pop(name)
        self._table_event("leave", player=name, balance=fmt(amt))
        return amt

    def balance(self, name: str) -> Decimal:
        """The balance now: what the round has taken or paid so far included."""
        base = self.balances_.get(name, ZERO)
        if self.round is not None and not self._booked:
            base += self.round.ledger.balances[name]
        return base

    def balances(self) -> dict[str, Decimal]:
        return {n: self.balance(n) for n in self.balances_}

    def seats(self) -> tuple[str, ...]:
        return tuple(self.balances_)

    # ---------------------------------------------------------------------------------------
    # the shoe
    def _new_shoe(self) -> Shoe:
        r = self.rules
        if self.fair is not None:
            self._retire_shoe()
            cards, commit = self.fair.new_shoe(r.pack, r.decks)
            self.shoes_used += 1
            shoe = Shoe(
                cards, cut_index=int(len(cards) * r.penetration), pack=r.pack, decks=r.decks
            )  # 000 3.2, 004 3.6
            self._table_event("new_shoe", shoe=self.shoes_used, cut=shoe.cut_index, **commit)
            return shoe
        self.shoes_used += 1
        if self.shuffler is None:
            shoe = Shoe.shuffled(r.decks, self.rng, pack=r.pack, penetration=r.penetration)
        else:
            base = Shoe.shuffled(r.decks, self.rng, pack=r.pack, penetration=r.penetration)
            cards = list(self.shuffler(base.remaining_cards()))
            shoe = Shoe(cards, cut_index=base.cut_index, pack=r.pack, decks=r.decks)
        self._table_event("new_shoe", shoe=self.shoes_used, cards=len(shoe), cut=shoe.cut_index)
        return shoe

    def _retire_shoe(self) -> None:
        reveal = self.fair.retire() if self.fair is not None else None
        if reveal is not None:
            self._table_event("shoe_retired", shoe=self.shoes_used, dealt=self.shoe.dealt, **reveal)

    def close(self) -> None:
        """Close the table (between rounds): the shoe is retired, a fair shoe's seed revealed."""
        self._between_rounds("close")
        if not self.closed:
            self._retire_shoe()
            self.closed = True

    # ---------------------------------------------------------------------------------------
    # rounds
    @property
    def in_round(self) -> bool:
        return self.round is not None and not self._booked

    def _between_rounds(self, what: str) -> None:
        if self.in_round:
            raise IllegalAction(
                f"{what}: only between rounds; the current round must be finished (end_round)"
            )

    def new_round(self) -> CasinoRound:
        """Open betting for the next round (a new shoe first if the cut card has come out)."""
        self._between_rounds("new_round")
        if self.closed:
            raise IllegalAction("new_round: the table is closed")
        if self.shoe.needs_shuffle:
            self.shoe = self._new_shoe()  # 000 3.2, 004 3.6: the cut card; rul 3
        self.round = CasinoRound(self.rules, self.shoe, rng=self.rng)
        self._booked = False
        self._seen = self._moved = 0
        self.round.log.add(
            "round_start",
            round=self.rounds_played + 1,
            shoe=self.shoes_used,
            dealt=self.shoe.dealt,
            preset=self.rules.preset,
            seats=list(self.balances_),
        )
        self._flush()
        return self.round

    def _open(self) -> CasinoRound:
        if self.round is None or self._booked:
            raise IllegalAction("no round is open: start one with new_round")
        return self.round

    def place_bet(self, box: object, player: object, kind: object, amount: object) -> None:
        rnd = self._open()
        if not isinstance(player, str) or player not in self.balances_:
            raise IllegalAction(f"{player!r} is not at the table; join first")
        amt = rnd.verify_place_bet(box, player, kind, amount)
        if self.balance(player) < amt:
            raise BetError(f"{player} has {fmt(self.balance(player))}, not enough for a wager of {fmt(amt)}")
        rnd.place_bet(box, player, kind, amt)
        self._flush()

    def withdraw_bet(self, box: int, player: str, kind: str) -> None:
        self._open().withdraw_bet(box, player, kind)
        self._flush()

    def deal(self) -> None:
        """'No more bets': the engine deals and makes the interim settlement."""
        self._open().close_bets()
        self._flush()

    def _extra_stake(self, seat: Actor, action: Action) -> tuple[str, Decimal] | None:
        """What a split or double would take from the acting bettor's balance."""
        rnd = self.round
        if rnd is None or not isinstance(seat, str) or action.verb not in ("split", "double"):
            return None
        h = rnd.current
        if h is None or seat not in h.stakes:
            return None
        if action.verb == "split":
            return seat, h.stakes[seat]
        return seat, h.stakes[seat] if action.amount is None else action.amount

    def verify(self, seat: Actor, action: Action) -> None:
        rnd = self._open()
        rnd.verify(seat, action)
        extra = self._extra_stake(seat, action)
        if extra is not None and self.balance(extra[0]) < extra[1]:
            raise BetError(
                f"{extra[0]} has {fmt(self.balance(extra[0]))}, not enough to {action.verb} ({fmt(extra[1])})"
            )

    def can(self, seat: Actor, action: Action) -> bool:
        try:
            self.verify(seat, action)
        except IllegalAction:
            return False
        return True

    def act(self, seat: Actor, action: Action) -> tuple[Event, ...]:
        """Take ``action`` for ``seat`` (checked by the engine, and the balance for a split or double)."""
        extra = self._extra_stake(seat, action)
        if extra is not None and self.balance(extra[0]) < extra[1]:
            raise BetError(
                f"{extra[0]} has {fmt(self.balance(extra[0]))}, not enough to {action.verb} ({fmt(extra[1])})"
            )
        evs = self._open().act(seat, action)
        self._flush()
        return evs

    def interrupt(self) -> str:
        """004 5.4: a technical interruption, declared by the table."""
        out = self._open().interrupt()
        self._flush()
        return out

    def _flush(self) -> None:
        rnd = self.round
        if rnd is None:
            return
        if not self.watched:  # nobody to hand the records to: only move the marks on
            self._seen, self._moved = len(rnd.log.events), len(rnd.ledger.transfers)
            return
        evs = rnd.log.events[self._seen :]
        moved = rnd.ledger.transfers[self._moved :]
        self._seen += len(evs)
        self._moved += len(moved)
        self._publish(self.rounds_played + 1, list(evs), moved)

    def end_round(self) -> dict[str, Any]:
        """Book the finished round into the balances and the window; returns its summary."""
        rnd = self._open()
        if not rnd.is_over():
            raise IllegalAction("end_round: the round is not over yet")
        # what rnd.result() gives, less its per-hand records (not part of the summary)
        players = rnd.players()
        net = rnd.ledger.net(players)
        house = -sum((d["total"] for d in net.values()), ZERO)
        void = rnd.void_reason
        for p in players:
            self.balances_[p] = self.balances_.get(p, ZERO) + rnd.ledger.balances[p]
        self._booked = True
        self.rounds_played += 1
        summary = {
            "round": self.rounds_played,
            "status": "void" if void else "settled",
            "void_reason": void,
            "dealer": [str(c) for c in rnd.dealer],
            "net": {p: {k: fmt(v) for k, v in d.items()} for p, d in net.items()},
            "house": fmt(house),
        }
        self.window.append(summary)
        return summary

    def _table_event(self, kind: str, **data: Any) -> None:
        ev = self.log.add(kind, **data)
        self._publish(0, [ev])

    def play_out_for_absent(self) -> None:
        """004 5.3: a player who walks away: the House draws the hand to 12 or more, then stands."""
        rnd = self._open()
        while not rnd.is_over():
            h = rnd.current
            if h is None:
                break
            total, _ = h.total(rnd.rules.double_ace_counts_one)
            want = "hit" if (not h.awaiting_rescue and total < rnd.rules.walk_away_draw_to) else "stand"
            a = Action(want, h.box)
            if not rnd.can(TABLE, a):
                a = Action("hit" if want == "stand" else "stand", h.box)
            rnd.act(TABLE, a)
        self._flush()

    # ---------------------------------------------------------------------------------------
    # recovery (the history store): the table between rounds as plain data, and back
    def snapshot(self) -> dict[str, Any]:
        """The table as it stands between rounds (or right after ``new_round``, before a wager):
        balances, rounds played, the shoe (its whole order and how far it is dealt), the RNG state,
        the fair shuffler's state with its secret seeds. Private data: never shown."""
        return {
            "balances": {n: fmt(b) for n, b in self.balances_.items()},
            "rounds_played": self.rounds_played,
            "shoes_used": self.shoes_used,
            "log_seq": self.log.count,
            "rng": _rng_state(self.rng),
            "shoe": {
                "cards": self._shoe_text(),
                "cut": self.shoe.cut_index,
                "dealt": self.shoe.dealt,
            },
            # the fair shuffler with its secret seeds (this shoe's and the next one's): private, like the order
            "fair": self.fair.state() if self.fair is not None else None,
        }

    def _shoe_text(self) -> str:
        """The shoe's whole order as text (a shoe's order never changes: made once per shoe, not at
        every round's snapshot)."""
        held = getattr(self, "_order_text", None)
        if held is None or held[0] is not self.shoe:
            held = (
                self.shoe,
                " ".join(str(c) for c in self.shoe.dealt_cards() + self.shoe.remaining_cards()),
            )
            self._order_text = held
        return held[1]

    def restore(self, state: dict[str, Any]) -> None:
        """The inverse of ``snapshot``: no round open, the same cards to come, the same RNG stream."""
        from pontoon.cards import parse_cards

        r = self.rules
        cards = parse_cards(str(state["shoe"]["cards"]))
        self.shoe = Shoe(cards, cut_index=int(state["shoe"]["cut"]), pack=r.pack, decks=r.decks)
        for _ in range(int(state["shoe"]["dealt"])):
            self.shoe.draw()
        self.balances_ = {n: to_money(b, "balance") for n, b in state["balances"].items()}
        self.rounds_played = int(state["rounds_played"])
        self.shoes_used = int(state["shoes_used"])
        self.log = EventLog(maxlen=200)
        self.log._seq = int(state["log_seq"])
        self.rng.bit_generator.state = _rng_unstate(state["rng"])
        if state.get("fair") is not None:  # the same next commitment, reveal and shoes as without the crash
            self.fair = FairShuffler.from_state(state["fair"])
            self.shuffler = None
        self.round, self._booked, self._seen, self._moved = None, True, 0, 0


def _rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """A numpy bit generator's state as JSON data (PCG64: two big integers)."""
    st = rng.bit_generator.state
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in st.items()}


def _rng_unstate(st: dict[str, Any]) -> dict[str, Any]:
    return {k: (np.asarray(v, dtype=np.uint32) if isinstance(v, list) else v) for k, v in st.items()}
