"""The ledger: every movement of money in a round is a transfer between accounts.

An account is either a person, by name (any string: a name is data, never a key of the house), or
one of the table's own accounts, members of the ``System`` enum: ``HOUSE``, ``LAYOUT`` (stakes on the
table), ``KITTY`` (Shoot Pontoon) and ``BANK``. A ``System`` member is never equal to any string, so a
player called ``house``, ``layout``, ``kitty`` or ``bank`` keeps his own account (rulings 32).

A wager placed moves its stake from the player to the layout; settling it moves the stake back or to
the house, and winnings from the house. Every transfer conserves money by construction, and a
finished round leaves the layout empty. ``net()`` gives each person's result per wager kind.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal
from enum import Enum
from typing import Any, Final, TypeGuard

from pontoon.errors import PontoonError
from pontoon.money import fmt

try:  # mypyc reads this decorator when it compiles the module (setup.py); without mypy_extensions it does nothing
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover  (an install without mypy: the pure-Python engine)

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[type], type]:  # type: ignore[misc]
        return lambda cls: cls


class System(Enum):
    """The table's own accounts (rul 32): a namespace of their own, never a player's name.

    A plain ``Enum`` (not a ``str`` enum), so ``System.HOUSE != "house"`` and the two are different
    dictionary keys.
    """

    HOUSE = "house"  # the casino's bank: wins collected, winnings paid
    LAYOUT = "layout"  # stakes on the table, not yet settled
    KITTY = "kitty"  # 003 Shoot Pontoon: the kitty (the banker's money, kept apart)
    BANK = "bank"  # a bank that is nobody's seat (reserved: the British banker pays from his own seat)

    def __str__(self) -> str:
        return f"<{self.value}>"

    # members are singletons compared by identity: hash them as objects (Enum's own hash is a
    # Python function, and balances are keyed by these accounts several times a round)
    __hash__ = object.__hash__


Account = str | System  # a person's name, or one of the table's own accounts

HOUSE: Final = System.HOUSE
LAYOUT: Final = System.LAYOUT
KITTY: Final = System.KITTY
BANK: Final = System.BANK
ZERO: Final = Decimal(0)


def is_system(account: object) -> TypeGuard[System]:
    """True for the table's own accounts; False for every name, whatever it spells (rul 32)."""
    return isinstance(account, System)


def account_json(account: Account) -> str | dict[str, str]:
    """An account as JSON: a person's name as itself, a system account as ``{"system": "house"}``."""
    if isinstance(account, System):
        return {"system": account.value}
    return account


def account_from_json(value: Any) -> Account:
    """The inverse of ``account_json``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"system"}:
        try:
            return System(value["system"])
        except ValueError:
            pass
    accepted = ", ".join(f'{{"system": "{s.value}"}}' for s in System)
    raise PontoonError(f"account {value!r:.80} is neither a name nor a system account ({accepted})")


@mypyc_attr(native_class=False)  # a tuple subclass: mypyc keeps it a Python class
class Transfer(tuple):  # type: ignore[type-arg]
    """One movement of money: ``Transfer(source, dest, amount, kind, player, reason)``.

    ``kind`` is the wager kind (main, insurance, pair, bonus, pandemonium, super_bonus, stake, shoot
    ...), ``player`` whose wager it concerns, ``reason`` a short text ("stake", "win 3:2", "returned
    (void)"). A frozen record built as a tuple (a round makes several): equal only to another
    ``Transfer`` with the same fields, hashable, like the dataclass it was.
    """

    __slots__ = ()
    __match_args__ = ("source", "dest", "amount", "kind", "player", "reason")

    def __new__(
        cls, source: Account, dest: Account, amount: Decimal, kind: str, player: str, reason: str
    ) -> Transfer:
        return _tuple_new(cls, (source, dest, amount, kind, player, reason))

    @property
    def source(self) -> Account:
        return self[0]  # type: ignore[no-any-return]

    @property
    def dest(self) -> Account:
        return self[1]  # type: ignore[no-any-return]

    @property
    def amount(self) -> Decimal:
        return self[2]  # type: ignore[no-any-return]

    @property
    def kind(self) -> str:
        return self[3]  # type: ignore[no-any-return]

    @property
    def player(self) -> str:
        return self[4]  # type: ignore[no-any-return]

    @property
    def reason(self) -> str:
        return self[5]  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        return type(other) is Transfer and _tuple_eq(self, other)

    def __ne__(self, other: object) -> bool:
        return not (type(other) is Transfer and _tuple_eq(self, other))

    __hash__ = tuple.__hash__

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return "Transfer(source={!r}, dest={!r}, amount={!r}, kind={!r}, player={!r}, reason={!r})".format(
            *self
        )

    def to_json(self) -> dict[str, Any]:
        """Plain data: accounts by ``account_json`` (a system account never reads as a name), the amount
        as exact decimal text."""
        return {
            "source": account_json(self.source),
            "dest": account_json(self.dest),
            "amount": fmt(self.amount),  # one canonical text per amount (5.00 and 5 are one amount)
            "kind": self.kind,
            "player": self.player,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Transfer:
        """The inverse of ``to_json``; raises PontoonError on anything else."""
        keys = {"source", "dest", "amount", "kind", "player", "reason"}
        if not isinstance(obj, dict) or set(obj) != keys:
            raise PontoonError(f"a transfer is an object with exactly {sorted(keys)}, not {obj!r:.80}")
        if not all(isinstance(obj[k], str) for k in ("amount", "kind", "player", "reason")):
            raise PontoonError("a transfer's amount, kind, player and reason are strings")
        try:
            amount = Decimal(obj["amount"])
        except ArithmeticError:
            raise PontoonError(f"transfer amount {obj['amount']!r:.40} is not a decimal") from None
        if not amount.is_finite() or amount < 0:
            raise PontoonError(f"transfer amount {obj['amount']!r:.40} must be a finite amount of 0 or more")
        return cls(
            account_from_json(obj["source"]),
            account_from_json(obj["dest"]),
            amount,
            obj["kind"],
            obj["player"],
            obj["reason"],
        )


_tuple_new: Final = tuple.__new__
_tuple_eq: Final = tuple.__eq__


def _zero() -> Decimal:
    """A balance not moved yet (one function for every ledger, not a closure made per ledger)."""
    return ZERO


class Ledger:
    """Append-only list of transfers with running balances."""

    __slots__ = ("transfers", "balances")

    def __init__(self) -> None:
        self.transfers: list[Transfer] = []
        self.balances: defaultdict[Account, Decimal] = defaultdict(_zero)

    def move(
        self, source: Account, dest: Account, amount: Decimal, *, kind: str, player: str, reason: str
    ) -> None:
        self._move(source, dest, amount, kind, player, reason)

    def _move(
        self, source: Account, dest: Account, amount: Decimal, kind: str, player: str, reason: str
    ) -> None:
        if amount <= ZERO:
            if amount < ZERO:
                raise ValueError(f"negative transfer {amount}")
            return  # nothing moves
        self.transfers.append(_tuple_new(Transfer, (source, dest, amount, kind, player, reason)))
        balances = self.balances
        balances[source] -= amount
        balances[dest] += amount

    # the four moves a wager can make --------------------------------------------------------
    def stake(self, player: str, kind: str, amount: Decimal, reason: str = "stake") -> None:
        self._move(player, LAYOUT, amount, kind, player, reason)

    def give_back(self, player: str, kind: str, amount: Decimal, reason: str) -> None:
        """Return a stake from the layout to its player."""
        self._move(LAYOUT, player, amount, kind, player, reason)

    def collect(self, player: str, kind: str, amount: Decimal, reason: str) -> None:
        """A losing stake goes from the layout to the house."""
        self._move(LAYOUT, HOUSE, amount, kind, player, reason)

    def pay(self, player: str, kind: str, amount: Decimal, reason: str, source: Account = HOUSE) -> None:
        """Winnings from the house (or the banker / kitty in the British game) to the player."""
        self._move(source, player, amount, kind, player, reason)

    # views ----------------------------------------------------------------------------------
    def total(self) -> Decimal:
        """Always zero: every transfer takes from one account what it gives another."""
        return sum(self.balances.values(), ZERO)

    def net(self, accounts: list[str] | None = None) -> dict[str, dict[str, Decimal]]:
        """Each person's net result per wager kind, plus ``total`` (stakes on the layout count as out).

        The table's own accounts are skipped by type, never by name (rul 32)."""
        out: dict[str, dict[str, Decimal]] = {}
        for source, dest, amount, kind, _player, _reason in self.transfers:
            if type(source) is not System:  # System has members: it has no subclasses
                d = out.get(source)
                if d is None:
                    d = out[source] = {}
                d[kind] = d.get(kind, ZERO) + -amount
            if type(dest) is not System:
                d = out.get(dest)
                if d is None:
                    d = out[dest] = {}
                d[kind] = d.get(kind, ZERO) + amount
        for d in out.values():
            d["total"] = sum((v for k, v in d.items() if k != "total"), ZERO)
        if accounts:
            for a in accounts:
                out.setdefault(a, {"total": ZERO})
        return out

    def on_layout(self) -> Decimal:
        return self.balances[LAYOUT]
