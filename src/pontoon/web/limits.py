"""What one account or one client address may hold at once (issue 28 item 5; docs/security.md).

Counted over the tables this process serves, when a table is made or a seat taken:
- open tables made from one address (``tables_per_address``) and in one account's login session
  (``tables_per_account``; making a table needs no account, so the address bounds the anonymous);
- tables one account sits at (``seats_per_account``) and seats taken from one address
  (``seats_per_address``);
- a buy-in below the table's minimum wager (casino ``table_min``, British ``stake_min``) is refused:
  it could never be wagered and only holds a seat.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pontoon.money import fmt
from pontoon.rules.model import CasinoRules
from pontoon.web.hosting import HostedTable, HostError, Settings


class LimitError(HostError):
    """Over one of the operator's per-account or per-address limits."""


class Limits:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.seat_address: dict[tuple[str, str], str] = {}  # (table, name) -> the address that joined

    def check_table(self, tables: dict[str, HostedTable], address: str, account: str | None) -> None:
        s = self.settings
        mine = [t for t in tables.values() if not t.closed and t.created_by[0] == address]
        if len(mine) >= s.tables_per_address:
            raise LimitError(
                f"{address} already made {len(mine)} open tables: at most {s.tables_per_address} "
                "per address; join one of them or wait until one closes"
            )
        if account is not None:
            own = [t for t in tables.values() if not t.closed and t.created_by[1] == account]
            if len(own) >= s.tables_per_account:
                raise LimitError(
                    f"account {account} already made {len(own)} open tables: at most {s.tables_per_account}"
                )

    def check_seat(self, tables: dict[str, HostedTable], host: HostedTable, name: str, address: str) -> None:
        s = self.settings
        sits = [t.id for t in tables.values() if name in t.members]
        if len(sits) >= s.seats_per_account:
            raise LimitError(
                f"account {name} sits at {len(sits)} tables: at most {s.seats_per_account}; leave one first"
            )
        held = sum(
            1
            for (tid, n), a in list(self.seat_address.items())
            if a == address and tid in tables and n in tables[tid].members
        )
        if held >= s.seats_per_address:
            raise LimitError(f"{address} holds {held} seats: at most {s.seats_per_address} per address")

    def seated(self, host: HostedTable, name: str, address: str, tables: dict[str, HostedTable]) -> None:
        """Record who took a seat from where (dropping the records of seats no longer held)."""
        for key in [k for k in self.seat_address if k[0] not in tables or k[1] not in tables[k[0]].members]:
            del self.seat_address[key]
        self.seat_address[(host.id, name)] = address


def minimum_buy_in(rules: Any) -> Decimal:
    """The least a buy-in may be: the table's minimum wager (000/004 table limits; 003 the stake)."""
    return rules.table_min if isinstance(rules, CasinoRules) else rules.stake_min


def check_buy_in(rules: Any, amount: Decimal) -> None:
    low = minimum_buy_in(rules)
    if amount < low:
        raise HostError(
            f"buy-in {fmt(amount)} is below this table's minimum wager {fmt(low)}: bring at least {fmt(low)}"
        )
