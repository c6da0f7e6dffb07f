"""The lobby: play-money accounts and the tables, made from a preset or a rules file's TOML text.

Accounts hold exact balances (``Decimal``); joining a table moves the buy-in from the account to the
table, leaving moves the table balance back (``pay_out``), so money is conserved across the server:
accounts plus what sits at the tables never changes except by a round's result.
"""

from __future__ import annotations

import secrets
import time
import tomllib
from decimal import Decimal
from typing import Any

from pontoon.errors import PontoonError, RulesError
from pontoon.money import fmt, to_money
from pontoon.rules import apply_overrides, find_rules, preset_ids
from pontoon.rules.british import BritishRules
from pontoon.rules.model import CasinoRules
from pontoon.web.british_host import BritishHost
from pontoon.web.casino_host import CasinoHost
from pontoon.web.hosting import HostedTable, HostError, HostForbidden, Settings
from pontoon.web.limits import Limits, check_buy_in
from pontoon.web.marks import check_custom, check_text, custom_mark, differs, exact_edge, mark_custom_later
from pontoon.web.models import JoinIn, TableIn
from pontoon.web.persistence import TablePersistence
from pontoon.web.tokens import Signer

MAX_DEPTH = 8


def rules_from_toml(text: str) -> Any:
    """A rules file's text (``preset = "mbs"`` plus rule fields), validated by the rules model."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"rules_toml is not valid TOML: {str(err).splitlines()[0]}") from None
    except (RecursionError, ValueError) as err:
        raise RulesError(
            f"rules_toml cannot be read: {str(err).splitlines()[0] if str(err) else 'too deep'}"
        ) from None
    stack: list[tuple[Any, int]] = [(raw, 1)]
    while stack:
        obj, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RulesError(f"rules_toml is nested too deeply (at most {MAX_DEPTH} levels)")
        items = obj.values() if isinstance(obj, dict) else obj
        stack.extend((x, depth + 1) for x in items if isinstance(x, dict | list))
    base = raw.pop("preset", None) or raw.pop("base", None)
    if not isinstance(base, str):
        raise RulesError("rules_toml: missing 'preset = \"mbs\"' (the preset the table is based on)")
    return apply_overrides(find_rules(base), raw, source="rules_toml")


class Lobby:
    def __init__(self, settings: Settings, store: TablePersistence, signer: Signer) -> None:
        self.settings = settings
        self.store = store
        self.signer = signer
        self.accounts: dict[str, Decimal] = dict(store.load_accounts())
        self.tables: dict[str, HostedTable] = {}
        self.limits = Limits(settings)

    # ------------------------------------------------------------------ accounts
    def balance(self, name: str) -> Decimal | None:
        """The account's balance: read from the history store when there is one (its ledger's sum, the
        same in every process on the database), else this process's own; None: no such account."""
        fresh = getattr(self.store, "account_balance", None)
        if fresh is not None:
            got: Decimal | None = fresh(name)
            if got is None:
                return None
            self.accounts[name] = got  # the live copy follows the store
        return self.accounts.get(name)

    def credit(self, name: str, amount: Decimal) -> None:
        self.accounts[name] = self.accounts.get(name, Decimal(0)) + amount
        self.store.save_account(name, self.accounts[name])

    def money_at_tables(self, name: str) -> Decimal:
        out = Decimal(0)
        for t in self.tables.values():
            if name in t.members:
                out += t.balance(name)  # type: ignore[attr-defined]
        return out

    # ------------------------------------------------------------------ tables
    def presets(self) -> list[dict[str, Any]]:
        out = []
        for p in preset_ids():
            r = find_rules(p)
            casino = isinstance(r, CasinoRules)
            out.append(
                {
                    "id": p,
                    "game": "casino" if casino else "british",
                    "name": getattr(r, "name", None) or p,
                    "min": fmt(r.table_min if casino else r.stake_min),
                    "max": fmt(r.table_max if casino else r.stake_max),
                }
            )
        return out

    def table_rules(self, spec: TableIn) -> Any:
        """The rules of a table asked for, after the checks that need no analysis: a fixed seed only in
        test mode (ruling 36), custom rules only where the operator allows them, displayed texts bounded."""
        if (spec.preset is None) == (spec.rules_toml is None):
            raise HostError("give either preset (a preset id) or rules_toml (a rules file's text)")
        if spec.seed is not None and not self.settings.test_mode:
            raise HostError(
                "seed: a fixed seed makes the shuffle predictable card by card, so a shared table never "
                "takes one (ruling 36); leave seed out, or run the server with --test-mode for test tables"
            )
        if spec.name is not None:
            check_text("name", spec.name)
        rules = find_rules(spec.preset) if spec.preset is not None else rules_from_toml(spec.rules_toml or "")
        if differs(rules):
            check_custom(rules, None, self.settings.custom_rules, self.settings.max_player_edge)
        return rules

    def create_table(
        self,
        spec: TableIn,
        rules: Any = None,
        edge: dict[str, Any] | None = None,
        address: str = "",
        account: str | None = None,
    ) -> HostedTable:
        """A new table (``rules``, ``edge``: from ``table_rules`` and ``marks.exact_edge``, computed off
        the event loop by the app; computed here when not given)."""
        if len(self.tables) >= self.settings.max_tables:
            raise HostError(f"the server holds its maximum of {self.settings.max_tables} tables")
        if rules is None:
            rules = self.table_rules(spec)
        custom = bool(differs(rules))
        if custom and edge is None:
            edge = exact_edge(rules)
        if custom:
            check_custom(rules, edge, self.settings.custom_rules, self.settings.max_player_edge)
        if address or account:
            self.limits.check_table(self.tables, address, account)
        tid = secrets.token_hex(4)
        while tid in self.tables:
            tid = secrets.token_hex(4)
        seed = spec.seed if spec.seed is not None else secrets.randbits(62)
        title = (
            spec.name
            or f"{getattr(rules, 'name', None) or rules.preset}{' (custom)' if custom else ''} {tid}"
        )
        host: HostedTable
        if isinstance(rules, CasinoRules):
            host = CasinoHost(
                tid, title, rules, seed, self.settings, self.store, self.credit, seeded=spec.seed is not None
            )
        elif isinstance(rules, BritishRules):
            host = BritishHost(
                tid,
                title,
                rules,
                seed,
                spec.seats,
                self.settings,
                self.store,
                self.credit,
                seeded=spec.seed is not None,
            )
        else:  # pragma: no cover - the rules registry holds only these two
            raise HostError(f"rules of type {type(rules).__name__} cannot be hosted")
        host.marks = {
            "test_mode": spec.seed is not None,
            "custom": custom_mark(rules, edge) if custom else None,
        }
        host.created_by = (address, account)
        host.host_name = account  # the creator hosts his table (None: its first person will)
        self.tables[tid] = host
        self.store.table_created(
            tid,
            {
                "rules": rules.model_dump(mode="json"),
                "seed": str(seed),
                "title": title,
                "game": host.game,
                "seats": spec.seats,
                "seeded": spec.seed is not None,
            },
        )
        if account is not None:  # the host, not seated yet: his entry in the people's record (a restart
            host.note_member(account, {"host": True})  # keeps the table his: members_snapshot)
        return host

    def adopt(self, host: HostedTable) -> None:
        """A table recovered after a restart (the history store rebuilt its engine table; the host's
        people restored from their last snapshot): hosted again under its own id."""
        if host.id in self.tables:
            raise HostError(f"table {host.id} is already hosted")
        test = (
            host.marks["test_mode"]
            or getattr(host, "seeded", False)
            or (host.fair or {}).get("secret") is False
        )
        host.marks = dict(host.marks, test_mode=bool(test))  # ruling 36: a test table stays marked
        mark_custom_later(host)  # a custom table recovered: still marked with its rules and (soon) edge
        self.tables[host.id] = host
        if host.host_name is None:  # after a restart: the longest-seated person hosts the table
            host.host_name = next((m.name for m in host.members.values() if not m.bot), None)
        host.resume()

    def table(self, tid: str) -> HostedTable:
        t = self.tables.get(tid)
        if t is None:
            raise KeyError(tid)
        return t

    def join(
        self,
        host: HostedTable,
        name: str,
        req: JoinIn,
        address: str = "",
        session: str | None = None,
        *,
        bot: bool = False,
    ) -> dict[str, Any]:
        if name in host.removed:
            raise HostForbidden(f"the host removed you from table {host.id}: {host.removed[name]}")
        have = self.balance(name) or Decimal(0)  # the store's balance: another process may have moved it
        want = (
            to_money(req.buy_in, "buy_in")
            if req.buy_in is not None
            else min(self.settings.default_buy_in, have)
        )
        if want <= 0:
            raise HostError(f"buy_in must be above 0; your account holds {fmt(have)}")
        if want > have:
            raise HostError(f"buy-in {fmt(want)} is more than the balance {fmt(have)} of account {name}")
        check_buy_in(host.rules, want)
        if address:
            self.limits.check_seat(self.tables, host, name, address)
        first = host.host_name is None and not bot  # the first person hosts a table made without a session
        if first:
            host.host_name = name  # before the join: the people's snapshot it writes names the host
        try:
            m = host.join(name, req.box, req.stand_on, want)  # type: ignore[attr-defined]
        except PontoonError:
            if first:
                host.host_name = None
            raise
        if bot:  # played by the server (web/bots.py): never absent; kept as a bot across a restart
            m.bot, m.gone_since = True, None
            host.note_member(name, {"bot": True})
            host.resume()  # a bot that completes a British table: the game starts with its turns played
        else:
            host.member_joined(name)
        if address:
            self.limits.seated(host, name, address, self.tables)
        host.last_play = time.monotonic()
        self.accounts[name] -= want
        self.store.save_account(name, self.accounts[name])
        bound: dict[str, Any] = {"s": session} if session else {}  # it ends with the session that joined
        token = self.signer.sign("seat", t=host.id, n=name, **bound)
        return {
            "table": host.id,
            "name": name,
            "token": token,
            "expires_in_s": int(self.settings.token_ttl_s),
            "role": m.role,
            "box": m.box,
        }

    def seat_of(self, token: object, tid: str | None = None) -> tuple[str, str]:
        claims = self.signer.check(token, "seat")
        t, n = claims.get("t"), claims.get("n")
        if not isinstance(t, str) or not isinstance(n, str):
            raise HostError("the seat token is malformed")
        if tid is not None and t != tid:
            raise HostError(f"this seat token is for table {t}, not {tid}")
        return t, n


__all__ = ["Lobby", "PontoonError", "rules_from_toml"]
