"""A British Pontoon table across rounds (003 The New Deal, Shoot Pontoon kitty).

``BritishGame`` holds the seats (clockwise), the banker, the pack, the balances (a Ledger of every
transfer since the table opened, so each seat's balance is its net result) and, in Shoot Pontoon,
the kitty. Between rounds:
- used cards go to the bottom of the pack without a shuffle, unless there was a Pontoon; then the
  whole pack is shuffled with the injected RNG (003 The New Deal); with ``fair=FairShuffler()`` the
  first pack and every such shuffle are provably fair, each with its own commitment (``new_shoe``)
  and reveal (``shoe_retired``) (``docs/fairness.md``);
- the bank passes to the player with an unsplit Pontoon nearest the banker's left when the banker
  had none (003 The New Deal), or to a buyer at an agreed price (003 "sell the bank");
- Shoot Pontoon: the banker may top the kitty up but not take from it; an empty kitty must be
  replaced or the bank sold; when the bank changes hands the old banker takes back the kitty and
  the new banker puts up a new one (003 Shoot Pontoon).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import KITTY, ZERO, BritishRound
from pontoon.errors import BetError, IllegalAction
from pontoon.events import Event, EventLog, Publisher
from pontoon.fair import FairShuffler, canonical_shoe
from pontoon.money import fmt, to_money
from pontoon.protocol import Action, Actor
from pontoon.rules.british import BritishRules
from pontoon.settlement import Ledger
from pontoon.shoe import RngLike, make_rng


class BritishGame(Publisher):
    """Seats in clockwise order; the round's players are the seats from the banker's left.

    Like ``casino.table.CasinoTable``: ``subscribe(fn)`` hands every event (with the transfers it
    caused) to ``fn`` as it happens, when the round is driven through ``act``; each round keeps its own
    log, and only the last ``window_size`` round summaries stay in memory (``history``).
    """

    game = "british"

    def __init__(
        self,
        rules: BritishRules,
        seats: Sequence[str],
        *,
        banker: str | None = None,
        rng: RngLike = None,
        pack: BritishPack | None = None,
        window_size: int = 50,
        fair: FairShuffler | None = None,
        stacks: dict[str, Decimal] | None = None,
    ) -> None:
        """``stacks``: what each seat brought to the table (its buy-in); given, every round checks bank
        cover (rul 33: no balance goes below 0) against stack plus net; None: net results only."""
        super().__init__()
        if fair is not None and pack is not None:
            raise IllegalAction("a fair table shuffles its own pack: give fair or pack, not both")
        if len(seats) < 2:
            raise IllegalAction("003: Pontoon needs two or more players (the banker included)")
        if len(set(seats)) != len(seats):
            raise IllegalAction(f"seat names must be distinct: {list(seats)}")
        self.rules = rules
        self._shoot = rules.shoot  # read before every round (needs_kitty)
        self.seats = list(seats)
        self.rng = make_rng(rng)
        if banker is None:
            # 003: "the first banker is chosen at random (whoever cuts the highest card)"
            banker = self.seats[int(self.rng.integers(len(self.seats)))]
        if banker not in self.seats:
            raise IllegalAction(f"banker {banker!r} is not seated; seats are {', '.join(self.seats)}")
        self.banker = banker
        self.fair = fair
        self.closed = False
        n = rules.packs_for(len(self.seats))
        if fair is not None and rules.reduced_pack:  # the fair shuffle commits to 003's 52-card pack
            raise IllegalAction(
                "a provably fair table deals 52-card packs; pack_ranks/pack_suits are for checks"
            )
        if fair is not None:  # shuffled when the first round needs it: its commitment reaches the subscribers
            self.pack = BritishPack([], packs=n)
        else:
            one = one_pack(rules) if rules.reduced_pack else None  # a reduced pack (rules pack_ranks)
            self.pack = pack if pack is not None else BritishPack.shuffled(n, self.rng, one)
        self.ledger = Ledger()
        self.stacks = None if stacks is None else {s: to_money(v, f"stack of {s}") for s, v in stacks.items()}
        self.log = EventLog(maxlen=200)  # the table's own events; each round has its own log
        self.round: BritishRound | None = None
        self.rounds_played = 0
        self.departed = ZERO  # the nets that seats took with them when they left (leave_seat)
        self.left: dict[str, Decimal] = {}  # each seat that left: the net it took (its latest leave)
        self.history: deque[dict[str, Any]] = deque(maxlen=window_size)
        self._seen = 0
        self._moved = 0
        self._table_moved = 0  # table-ledger transfers already published

    # ---------------------------------------------------------------------------------------
    @property
    def players(self) -> list[str]:
        """The seats other than the banker, from the banker's left (003 "starting with the player to dealer's left")."""
        i = self.seats.index(self.banker)
        return self.seats[i + 1 :] + self.seats[:i]

    @property
    def kitty(self) -> Decimal:
        return self.ledger.balances[KITTY]

    def balance(self, seat: str) -> Decimal:
        return self.ledger.balances[seat]

    def balances(self) -> dict[str, Decimal]:
        return {s: self.ledger.balances[s] for s in self.seats}

    @property
    def in_round(self) -> bool:
        return self.round is not None and not self.round.over

    @property
    def needs_kitty(self) -> bool:
        """003 Shoot: an empty kitty must be replaced (or the bank sold) before the next deal."""
        return self._shoot and self.kitty <= 0

    def _between_rounds(self, what: str) -> None:
        if self.round is not None:
            raise IllegalAction(
                f"{what}: only between rounds; the current round must be finished (end_round)"
            )

    # ---------------------------------------------------------------------------------------
    # the kitty (003 Shoot Pontoon)
    def verify_put_kitty(self, amount: object) -> Decimal:
        self._between_rounds("put_kitty")
        if not self.rules.shoot:
            raise IllegalAction("put_kitty: there is no kitty outside Shoot Pontoon")
        if self.kitty > 0:
            raise IllegalAction(
                f"put_kitty: the kitty already holds {fmt(self.kitty)}; use top_up_kitty to add to it"
            )
        amt = to_money(amount, "kitty")
        # 003 Shoot: "any amount of money, between agreed minimum and maximum limits"
        if not self.rules.kitty_min <= amt <= self.rules.kitty_max:
            raise BetError(
                f"kitty {fmt(amt)} is out of range: accepted {fmt(self.rules.kitty_min)} to {fmt(self.rules.kitty_max)}"
            )
        self._check_holds(self.banker, amt, "kitty")
        return amt

    def _check_holds(self, seat: str, amount: Decimal, what: str) -> None:
        """rul 33: with stacks, nobody pays out more than he holds at the table."""
        held = self.holdings()
        if held is not None and amount > held.get(seat, ZERO):
            raise BetError(
                f"{what} {fmt(amount)} is more than {seat} holds ({fmt(held.get(seat, ZERO))}; rulings 33)"
            )

    def can_put_kitty(self, amount: object) -> bool:
        try:
            self.verify_put_kitty(amount)
        except IllegalAction:
            return False
        return True

    def put_kitty(self, amount: object) -> None:
        amt = self.verify_put_kitty(amount)
        self.ledger.move(self.banker, KITTY, amt, kind="kitty", player=self.banker, reason="new kitty")
        self._table_event(
            "kitty", "003 Shoot Pontoon: the dealer forms a kitty", seat=self.banker, amount=fmt(amt)
        )

    def verify_top_up_kitty(self, amount: object) -> Decimal:
        self._between_rounds("top_up_kitty")
        if not self.rules.shoot:
            raise IllegalAction("top_up_kitty: there is no kitty outside Shoot Pontoon")
        if self.kitty <= 0:
            raise IllegalAction(
                "top_up_kitty: the kitty is empty; put up a new kitty (put_kitty) or sell the bank"
            )
        amt = to_money(amount, "top-up")
        if amt <= 0:  # 003 Shoot: "add more money to the kitty, but must not take anything out of it"
            raise BetError(
                f"top-up {fmt(amt)} must be above 0: the banker may add to the kitty, never take out"
            )
        self._check_holds(self.banker, amt, "top-up")
        return amt

    def can_top_up_kitty(self, amount: object) -> bool:
        try:
            self.verify_top_up_kitty(amount)
        except IllegalAction:
            return False
        return True

    def top_up_kitty(self, amount: object) -> None:
        amt = self.verify_top_up_kitty(amount)
        self.ledger.move(self.banker, KITTY, amt, kind="kitty", player=self.banker, reason="top-up")
        self._table_event(
            "kitty_top_up",
            "003 Shoot Pontoon: add more money to the kitty",
            seat=self.banker,
            amount=fmt(amt),
        )

    # ---------------------------------------------------------------------------------------
    # the bank changing hands
    def _pass_bank(self, new: str, clause: str) -> None:
        old = self.banker
        if self.kitty > 0:
            # 003 Shoot: "the old dealer retrieves anything that was left in the kitty"
            self.ledger.move(KITTY, old, self.kitty, kind="kitty", player=old, reason="kitty retrieved")
        self.banker = new
        self._table_event("bank_passes", clause, old=old, new=new)

    def verify_sell_bank(self, buyer: str, price: object) -> Decimal:
        self._between_rounds("sell_bank")
        if buyer not in self.seats or buyer == self.banker:
            raise IllegalAction(
                f"sell_bank: buyer {buyer!r} must be a seated player other than the banker {self.banker!r}"
            )
        amt = to_money(price, "price")
        if amt < 0:
            raise BetError(f"sell_bank: price {fmt(amt)} must not be negative")
        self._check_holds(buyer, amt, "sell_bank: the price")
        return amt

    def can_sell_bank(self, buyer: str, price: object) -> bool:
        try:
            self.verify_sell_bank(buyer, price)
        except IllegalAction:
            return False
        return True

    def sell_bank(self, buyer: str, price: object) -> None:
        """003: "sell the bank to another player at a mutually agreed price"."""
        amt = self.verify_sell_bank(buyer, price)
        self.ledger.move(buyer, self.banker, amt, kind="sale", player=buyer, reason="bank sold")
        self._pass_bank(buyer, "003 The New Deal: sell the bank")

    # ---------------------------------------------------------------------------------------
    # seats joining and leaving between rounds (003 has no clause: the server's rule, docs/server.md)
    def verify_join_seat(self, seat: object) -> None:
        self._between_rounds("join_seat")
        if self.closed:
            raise IllegalAction("join_seat: the table is closed")
        if not isinstance(seat, str) or not seat or seat in self.seats:
            raise IllegalAction(
                f"join_seat: {seat!r} must be a name not already seated ({', '.join(self.seats)})"
            )
        if self.rules.packs_for(len(self.seats) + 1) != self.pack.packs:
            raise IllegalAction(
                f"join_seat: a table of {len(self.seats) + 1} would need another number of packs "
                f"than its {self.pack.packs} (003: two packs for 8 or more players)"
            )

    def join_seat(self, seat: object) -> None:
        """A new seat between rounds, to the banker's right (the last to play: 003 play goes clockwise
        from the dealer's left); its balance starts at 0 (what it brings is the host's buy-in)."""
        self.verify_join_seat(seat)
        assert isinstance(seat, str)  # checked just now
        i = self.seats.index(self.banker)
        self.seats.insert(i, seat)  # just before the banker, clockwise: the last player from his left
        self.ledger.balances[seat] = ZERO
        if self.stacks is not None:
            self.stacks.setdefault(
                seat, ZERO
            )  # what he brings is set by the host (``stacks``) before a round
        self._table_event("seat_joins", "", seat=seat, seats=list(self.seats))

    def verify_leave_seat(self, seat: str) -> None:
        self._between_rounds("leave_seat")
        if seat not in self.seats:
            raise IllegalAction(f"leave_seat: {seat!r} is not seated; seats are {', '.join(self.seats)}")
        if len(self.seats) <= 2:
            raise IllegalAction("leave_seat: 003 needs two or more players; close the table instead (close)")

    def leave_seat(self, seat: str) -> Decimal:
        """The seat leaves between rounds with its net result (returned; its balance is taken off the
        table). A leaving banker first passes the bank to the player on his left (003 has no clause for
        a banker leaving; as the bank passes on a Pontoon, to the one nearest the dealer's left), who
        in Shoot Pontoon puts up a new kitty while the old banker takes back what was left in it (003
        Shoot Pontoon: "the old dealer retrieves anything that was left in the kitty")."""
        self.verify_leave_seat(seat)
        if seat == self.banker:
            self._pass_bank(
                self.players[0], "003 The New Deal: the bank passes to the dealer's left (the banker left)"
            )
        net = self.ledger.balances.pop(seat, ZERO)
        self.seats.remove(seat)
        self.departed += net
        self.left[seat] = net
        self._table_event("seat_leaves", "", seat=seat, net=fmt(net), seats=list(self.seats))
        return net

    # ---------------------------------------------------------------------------------------
    # the fair pack (docs/fairness.md)
    def _fair_shuffle(self) -> None:
        """003 "shuffled and cut": a fair shuffle of the whole pack (the cut is part of the shuffle)."""
        fair = self.fair
        if fair is None:
            return
        self._retire_pack()
        cards, commit = fair.new_shoe("standard52", self.pack.packs)
        self.pack = BritishPack(cards, packs=self.pack.packs)
        self._table_event(
            "new_shoe", "003 The New Deal: shuffled and cut", shoe=commit["nonce"], cut=None, **commit
        )

    def _retire_pack(self) -> None:
        reveal = self.fair.retire() if self.fair is not None else None
        if reveal is not None:
            self._table_event("shoe_retired", shoe=reveal["nonce"], dealt=self.pack.drawn, **reveal)

    def close(self) -> None:
        """Close the table (between rounds): a fair pack's seed is revealed."""
        self._between_rounds("close")
        if not self.closed:
            self._retire_pack()
            self.closed = True

    def retrieve_kitty(self) -> Decimal:
        """The banker takes back the kitty (between rounds; a table closing): 003 Shoot, the kitty is
        the banker's money kept apart ("the old dealer retrieves anything that was left in the kitty")."""
        self._between_rounds("retrieve_kitty")
        kitty = self.kitty
        if kitty > 0:
            self.ledger.move(
                KITTY, self.banker, kitty, kind="kitty", player=self.banker, reason="kitty retrieved"
            )
            self._table_event(
                "kitty_retrieved",
                "003 Shoot Pontoon: the old dealer retrieves the kitty",
                seat=self.banker,
                amount=fmt(kitty),
            )
        return kitty

    # ---------------------------------------------------------------------------------------
    # rounds
    def holdings(self) -> dict[str, Decimal] | None:
        """What each seat holds at the table now, stack plus net (None: no stacks; rul 33)."""
        if self.stacks is None:
            return None
        return {s: self.stacks.get(s, ZERO) + self.ledger.balances[s] for s in self.seats}

    def new_round(self, funds: dict[str, Decimal] | None = None) -> BritishRound:
        """The next round; ``funds`` (recovery: the logged round's) overrides ``holdings()``."""
        self._between_rounds("new_round")
        if self.closed:
            raise IllegalAction("new_round: the table is closed")
        if self.needs_kitty:
            raise IllegalAction(
                "new_round: the kitty is empty; the banker must put up a new kitty (put_kitty) "
                "or sell the bank (sell_bank) (003 Shoot Pontoon)"
            )
        if self.fair is not None and not self.fair.live:
            self._fair_shuffle()  # the first pack (003 "shuffled and cut")
        self.round = BritishRound(
            self.rules,
            self.players,
            self.banker,
            self.pack,
            kitty=self.kitty,
            funds=funds if funds is not None else self.holdings(),
        )
        self._seen = self._moved = 0
        self._flush()
        return self.round

    def act(self, seat: Actor, action: Action | str, amount: object = None) -> tuple[Event, ...]:
        """Take an action in the current round (checked), publishing its events."""
        if self.round is None:
            raise IllegalAction("no round is open: start one with new_round")
        evs = self.round.act(seat, action, amount)
        self._flush()
        return evs

    def _flush(self) -> None:
        rnd = self.round
        if rnd is None:
            return
        if not self.watched:  # nobody to hand them to (``_publish`` would drop them)
            self._seen = len(rnd.log.events)
            self._moved = len(rnd.ledger.transfers)
            return
        evs = rnd.log.events[self._seen :]
        moved = rnd.ledger.transfers[self._moved :]
        self._seen += len(evs)
        self._moved += len(moved)
        self._publish(self.rounds_played + 1, evs, moved)

    def end_round(self) -> dict[str, Any]:
        """Book the finished round, return the used cards to the pack, pass the bank if due."""
        rnd = self.round
        if rnd is None or not rnd.over:
            raise IllegalAction("end_round: the round is not over yet")
        # the round's transfers on the table's balances: they are published with the round's own events,
        # so the table's ledger would only drop them again (``_forget_published``); added account by
        # account (the round's running balances: the same exact sums)
        balances = self.ledger.balances
        for account, moved in rnd.ledger.balances.items():
            balances[account] += moved
        self._table_moved = len(self.ledger.transfers)
        used = rnd.in_play_cards()
        shuffled = rnd.had_pontoon
        if shuffled and self.fair is not None:
            self._flush()  # the round's draws are published before the reveal and the next commitment
            self._check_whole_pack(used)
            self._fair_shuffle()  # 003 "If there was a Pontoon, the cards are shuffled and cut"
        elif shuffled:
            self.pack.reshuffle(
                used, self.rng
            )  # 003 "If there was a Pontoon, the cards are shuffled and cut"
        else:
            self.pack.to_bottom(
                used
            )  # 003 "adds all the used cards to the bottom of the pack and without shuffling"
        summary = {
            "round": self.rounds_played + 1,
            "banker": rnd.banker,
            "status": rnd.phase,
            "net": rnd.net(),
            "next_banker": rnd.next_banker,
            "shuffled": shuffled,
        }
        if rnd.next_banker != self.banker:
            self._pass_bank(rnd.next_banker, "003 The New Deal: a Pontoon takes the bank")
        self._flush()
        self._forget_published()  # the round's transfers went out with its events
        self.round = None
        self.rounds_played += 1
        self.history.append(summary)
        return summary

    def _check_whole_pack(self, used: list[Any]) -> None:
        """A fair shuffle starts from the whole pack in canonical order: the cards must all be back."""
        have = sorted(c.code for c in self.pack.cards() + list(used))
        want = sorted(c.code for c in canonical_shoe("standard52", self.pack.packs))
        if have != want:
            raise IllegalAction(
                f"the pack is not whole ({len(have)} cards, {len(want)} expected): cannot shuffle fairly"
            )

    def cards_accounted(self) -> list[Any]:
        """Every card of the table: the pack plus the cards on the table (for invariant checks)."""
        out = self.pack.cards()
        if self.round is not None:
            out += self.round.in_play_cards()
        return out

    def total_money(self) -> Decimal:
        """Seats plus kitty plus the layout plus what leavers took: always 0 (every seat started from 0)."""
        total = sum((self.ledger.balances[s] for s in self.seats), ZERO) + self.kitty + self.departed
        if self.round is not None:
            rb = self.round.ledger.balances
            total += sum((rb[s] for s in self.seats), ZERO) + rb[KITTY] + self.round.ledger.on_layout()
        return total

    def _table_event(self, kind: str, clause: str = "", **data: Any) -> None:
        """An event between rounds (kitty, bank passing), with the transfers it made."""
        ev = self.log.add(kind, clause, **data)
        self._publish(0, [ev], self._table_moves())

    def _table_moves(self) -> list[Any]:
        """The table-ledger transfers not yet published; once handed out they are dropped from memory
        (the balances stay; the history store keeps every transfer), so memory does not grow with the
        rounds played (issue 10 item 7)."""
        moved = self.ledger.transfers[self._table_moved :]
        self._forget_published()
        return moved

    def _forget_published(self) -> None:
        del self.ledger.transfers[:]
        self._table_moved = 0

    # ---------------------------------------------------------------------------------------
    # recovery (the history store): the table between rounds as plain data, and back
    def snapshot(self) -> dict[str, Any]:
        """The table between rounds, or right after ``new_round`` (the cards that round has drawn
        are put back on top: recovery deals them again): seats, banker, balances and kitty, the pack
        order, the RNG state, the fair shuffler's state with its secret seeds. Private data: never shown."""
        pack = [str(c) for c in self.pack.cards()]
        since_shuffle = self.pack.drawn
        if self.round is not None:
            drawn = [str(e.data["card"]) for e in self.round.log.events if e.kind == "draw"]
            pack = drawn + pack
            since_shuffle -= len(drawn)
        st = self.rng.bit_generator.state
        return {
            "seats": list(self.seats),
            "banker": self.banker,
            "balances": {s: fmt(self.ledger.balances[s]) for s in self.seats},
            "kitty": fmt(self.kitty),
            "departed": fmt(self.departed),
            "stacks": None if self.stacks is None else {s: fmt(v) for s, v in self.stacks.items()},
            "left": {s: fmt(v) for s, v in self.left.items()},
            "rounds_played": self.rounds_played,
            "log_seq": self.log.count,
            "rng": {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in st.items()},
            "pack": " ".join(pack),
            "packs": self.pack.packs,
            "drawn": since_shuffle,  # cards drawn since the last shuffle (a fair pack's reveal counts them)
            # the fair shuffler with its secret seeds (this pack's and the next one's): private, like the order
            "fair": self.fair.state() if self.fair is not None else None,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """The inverse of ``snapshot``: no round open, the same pack order, the same RNG stream."""
        import numpy as np

        from pontoon.cards import parse_cards

        self.seats = list(state["seats"])
        self.banker = str(state["banker"])
        self.pack = BritishPack(
            parse_cards(str(state["pack"])) if state["pack"] else [], packs=int(state["packs"])
        )
        self.pack.drawn = int(state.get("drawn", 0))
        if state.get("fair") is not None:  # the same next commitment, reveal and packs as without the crash
            self.fair = FairShuffler.from_state(state["fair"])
        self.ledger = Ledger()
        for s, b in state["balances"].items():
            self.ledger.balances[s] = to_money(b, "balance")
        self.ledger.balances[KITTY] = to_money(state["kitty"], "kitty")
        self.departed = to_money(state.get("departed", "0"), "departed")
        stacks = state.get("stacks")
        self.stacks = None if stacks is None else {str(s): to_money(v, "stack") for s, v in stacks.items()}
        self.left = {str(k): to_money(v, "net") for k, v in dict(state.get("left") or {}).items()}
        self.rounds_played = int(state["rounds_played"])
        self.log = EventLog(maxlen=200)
        self.log._seq = int(state["log_seq"])
        self.rng.bit_generator.state = {
            k: (np.asarray(v, dtype=np.uint32) if isinstance(v, list) else v) for k, v in state["rng"].items()
        }
        self.round, self._seen, self._moved, self._table_moved = None, 0, 0, 0
