"""The ledger: every movement of money in a round is a transfer between accounts.

Accounts are ``"house"``, ``"layout"`` (stakes on the table) and players by name. A wager placed
moves its stake from the player to the layout; settling it moves the stake back or to the house,
and winnings from the house. Every transfer conserves money by construction, and a finished
round leaves the layout empty. ``net()`` gives each player's result per wager kind.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

HOUSE = "house"
LAYOUT = "layout"
ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class Transfer:
    source: str
    dest: str
    amount: Decimal
    kind: str  # wager kind: main, insurance, pair, bonus, pandemonium, super_bonus, stake, shoot ...
    player: str  # whose wager this concerns
    reason: str  # short text, e.g. "stake", "win 3:2", "returned (void)"


class Ledger:
    """Append-only list of transfers with running balances."""

    __slots__ = ("transfers", "balances")

    def __init__(self) -> None:
        self.transfers: list[Transfer] = []
        self.balances: defaultdict[str, Decimal] = defaultdict(lambda: ZERO)

    def move(self, source: str, dest: str, amount: Decimal, *, kind: str, player: str, reason: str) -> None:
        if amount < 0:
            raise ValueError(f"negative transfer {amount}")
        if amount == 0:
            return
        self.transfers.append(Transfer(source, dest, amount, kind, player, reason))
        self.balances[source] -= amount
        self.balances[dest] += amount

    # the four moves a wager can make --------------------------------------------------------
    def stake(self, player: str, kind: str, amount: Decimal, reason: str = "stake") -> None:
        self.move(player, LAYOUT, amount, kind=kind, player=player, reason=reason)

    def give_back(self, player: str, kind: str, amount: Decimal, reason: str) -> None:
        """Return a stake from the layout to its player."""
        self.move(LAYOUT, player, amount, kind=kind, player=player, reason=reason)

    def collect(self, player: str, kind: str, amount: Decimal, reason: str) -> None:
        """A losing stake goes from the layout to the house."""
        self.move(LAYOUT, HOUSE, amount, kind=kind, player=player, reason=reason)

    def pay(self, player: str, kind: str, amount: Decimal, reason: str, source: str = HOUSE) -> None:
        """Winnings from the house (or the banker / kitty in the British game) to the player."""
        self.move(source, player, amount, kind=kind, player=player, reason=reason)

    # views ----------------------------------------------------------------------------------
    def total(self) -> Decimal:
        """Always zero: every transfer takes from one account what it gives another."""
        return sum(self.balances.values(), ZERO)

    def net(self, accounts: list[str] | None = None) -> dict[str, dict[str, Decimal]]:
        """Each player's net result per wager kind, plus ``total`` (stakes on the layout count as out)."""
        out: dict[str, dict[str, Decimal]] = {}
        for t in self.transfers:
            for acct, sign in ((t.source, -1), (t.dest, 1)):
                if acct in (HOUSE, LAYOUT):
                    continue
                d = out.setdefault(acct, {})
                d[t.kind] = d.get(t.kind, ZERO) + sign * t.amount
        for d in out.values():
            d["total"] = sum((v for k, v in d.items() if k != "total"), ZERO)
        if accounts:
            for a in accounts:
                out.setdefault(a, {"total": ZERO})
        return out

    def on_layout(self) -> Decimal:
        return self.balances[LAYOUT]
