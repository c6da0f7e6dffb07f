"""What every hosted table shares: members and their connections, the turn timer, the grace period,
the last rounds, and the per-connection state message.

A ``HostedTable`` is driven synchronously (the app holds the table's lock around every call) and
only through the engine's table object and the table protocol; ``casino_host.py`` and
``british_host.py`` add each game's flow. Every change bumps ``version``; the app then sends each
connection the state of its view kind (web/frames.py: ``state_for(its name)`` for a member, else the
public ``state_for(None)``), built once per kind: its own view of the round (``round.view(seat)``,
everyone else ``view(SPECTATOR)``), never another seat's hidden card, never the cards to come.

The turn timer (``Settings.turn_timeout_s``): when the person to act has not acted in time the
server takes the documented default action for him (casino: stand; British: see ``british_host``).
A person whose every connection has gone is kept for ``grace_s``; after that he is absent: his
turns are taken at once by the same default rules (casino: 004 5.3, the House draws his hand to 12
or more, then stands), he is dealt no further round and his money goes back to his account once no
round holds it. The timer's and the grace period's acts are said to everyone in the state's ``note``.

The host (the creator, else the first person; web/host_actions.py) may pause the table (no timer
runs), set seat approval, this table's turn timer and result pause; bots are members with ``bot``
set, played by the server (web/bots.py) and never absent.
"""

from __future__ import annotations

import importlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

import orjson

from pontoon.errors import PontoonError
from pontoon.events import Event, TableRecord
from pontoon.money import fmt, to_money
from pontoon.web.persistence import TablePersistence
from pontoon.web.site import Security


class HostError(PontoonError):
    """A request the table refuses (one line: what was wrong and what is accepted)."""


class HostForbidden(HostError):
    """Refused to this person: a host-only action, or a table whose host removed him (answered 403)."""


@dataclass(frozen=True)
class Settings:
    turn_timeout_s: float = 30.0  # the turn timer; then the default action (docs/server.md)
    bet_timeout_s: float = 30.0  # casino: after the first wager, betting closes after this long
    grace_s: float = 60.0  # a disconnected person's seat is kept this long
    start_balance: Decimal = Decimal(1000)  # a new play-money account
    default_buy_in: Decimal = Decimal(1000)
    token_ttl_s: float = 12 * 3600.0
    history_rounds: int = 10  # finished rounds kept per table for the page
    max_tables: int = 500
    max_accounts: int = 100_000
    join_burst: float = 10.0  # rate limits: joins per client address
    join_rate: float = 1.0
    action_burst: float = 20.0  # messages per connection
    action_rate: float = 10.0
    chat_burst: float = 5.0  # chat lines per person: a burst, then one every 2 s
    chat_rate: float = 0.5
    max_frame: int = 4096  # bytes in one WebSocket message (the hard cap)
    # WebSocket per-message compression (permessage-deflate): off, since it compresses the same frame
    # once per connection: about 15% of the server's CPU per round (docs/server.md "State frames")
    ws_deflate: bool = False
    # the server process's garbage collector tuned at start-up (web/transport.py ``tune_gc``: what exists
    # then frozen, collections rarer); ``pontoon serve`` sets it, tests and embedders leave it off
    tune_gc: bool = False
    idle_table_s: float = 1800.0  # a table where nobody joined, wagered or acted this long is closed
    result_pause_s: float = 3.0  # a finished round's results stay on the felt this long (host setting)
    secret: str | None = None
    security: Security = Security()  # sites, hosts, cookies, slow clients, sessions (web/site.py)
    # ruling 36: a fixed (test) seed only on a server started in test mode; such tables are marked
    test_mode: bool = False
    # custom rules (a rules file) only where the operator allows them, and only within this bound on
    # the player's exact edge (a fraction of the wager: 0 refuses any rules the player beats)
    custom_rules: bool = False
    max_player_edge: float = 0.0
    # what one account or one client address may hold at once (docs/security.md)
    tables_per_address: int = 10  # open tables created from one address
    tables_per_account: int = 3  # open tables created with one account's token
    seats_per_account: int = 6  # tables one account sits at
    seats_per_address: int = 24  # seats taken from one address
    # the analysis off the event loop, a lane for each kind (web/workers.py): bots' decisions, hints
    # (one per table at a time, at most hint_queue waiting, then "busy"), custom tables' exact edges
    # (``pontoon serve --bot-workers --hint-workers --hint-queue --edge-workers --edge-queue``)
    bot_workers: int = 2
    hint_workers: int = 1
    hint_queue: int = 8
    edge_workers: int = 1
    edge_queue: int = 4


@dataclass
class Member:
    name: str
    role: str  # "seated" | "standing" (casino), "seat" (British)
    box: int | None = None
    buy_in: Decimal = Decimal(0)
    connections: int = 0
    # when the last connection closed; a member who never connects counts as gone since he joined, so
    # the grace period applies to him too (issue 28 item 5)
    gone_since: float | None = field(default_factory=time.monotonic)
    absent: bool = False  # past the grace period, or left mid-round
    leaving: bool = False  # leaves once no round holds his money
    pending: bool = False  # joined mid-round: sits down when it ends
    bot: bool = False  # played by the server (web/bots.py), never absent

    def public(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "bot": self.bot,
            "role": self.role,
            "box": self.box,
            "connected": self.connections > 0,
            "absent": self.absent,
            "leaving": self.leaving,
            "pending": self.pending,
        }


PayOut = Callable[[str, Decimal], None]


_FAIR_KINDS = frozenset(("new_shoe", "shoe_retired"))  # the events ``fair_data`` follows


class HostedTable:
    game = ""
    leave_note = ""  # the REST leave's answer when a round in play holds the leaver (each game's clause)

    def __init__(
        self,
        table_id: str,
        title: str,
        rules: Any,
        settings: Settings,
        store: TablePersistence,
        pay_out: PayOut,
    ) -> None:
        self.id = table_id
        self.title = title
        self.rules = rules
        self.settings = settings
        self.store = store
        self.pay_out = pay_out
        self.members: dict[str, Member] = {}
        self.version = 0
        self.deadline: float | None = None  # monotonic time the turn timer runs out
        self.history: deque[dict[str, Any]] = deque(maxlen=settings.history_rounds)
        self.last_change = time.monotonic()
        self.history_mark = 0  # counts the rounds booked: a connection is sent the history when it changes
        self.notices: dict[str, str] = {}  # one-line messages for one person, sent with his next state
        self.closed = False
        self.fair: dict[str, Any] | None = None  # the live shoe's commitment (provably fair tables)
        self.revealed: deque[dict[str, Any]] = deque(maxlen=20)  # retired shoes' seeds, newest last
        self.last_play = time.monotonic()  # the last join, wager or action of a person (the idle timeout)
        # what the lobby and the table show everyone about this table (web/marks.py): a test seed
        # (ruling 36), custom rules with their differences and exact house edge
        self.marks: dict[str, Any] = {"test_mode": False, "custom": None}
        self.created_by: tuple[str, str | None] = ("", None)  # the creator's address and account
        # the host (docs/server.md "Hosts"): the creator's account, else the first person to join; when
        # the host leaves, the longest-seated person
        self.host_name: str | None = None
        self.approval = False  # seat approval: a join waits for the host's yes
        self.requests: dict[str, dict[str, Any]] = {}  # name -> the join asked for (approval)
        self.removed: dict[str, str] = {}  # name -> the host's reason (a removed person cannot rejoin)
        self.paused = False  # no timer runs, no bot acts, no new round starts
        self.result_pause_s = settings.result_pause_s
        self.result_until = 0.0  # monotonic time the last round's results leave the felt
        self.note: str | None = None  # a public line: the timer or the grace period acted for someone
        self.bot_level = "simple"  # British: web/bots.py LEVELS (the casino bots play the exact strategy)
        self.paused_left: float | None = None  # the turn timer's seconds left when the host paused
        self.frames: Any = None  # web/frames.py: the last view of each kind sent (the deltas' bases)
        self._shown: dict[str, Any] = {}  # parts of the last state kept while unchanged (``_kept``)

    def watch(self, rec: TableRecord) -> None:
        """Every table event: to the store, and the fair shuffle's commitments and reveals for the page."""
        self.store.record(self.id, rec)
        ev = rec.event
        if ev.kind in _FAIR_KINDS:  # (the rest of a round's events: no call)
            self.fair_event(ev)

    def fair_event(self, ev: Event) -> None:
        """Follow the fair shuffle's commitments and reveals (also replayed from an adopted table's log);
        the data of the other kinds (every card, wager and hand of a round) is not copied."""
        if ev.kind in _FAIR_KINDS:
            self.fair_data(ev.kind, dict(ev.data))

    def fair_data(self, kind: str, data: dict[str, Any]) -> None:
        """``fair_event`` from an event's kind and data (the history store's committed table events)."""
        if kind == "new_shoe" and "commitment" in data:
            keep = ("shoe", "scheme", "commitment", "client_seed", "nonce", "next_commitment", "secret")
            self.fair = {k: data[k] for k in keep if k in data}
        elif kind == "shoe_retired" and "server_seed" in data:
            self.revealed.append(
                {k: v for k, v in data.items() if k in ("shoe", "scheme", "nonce", "server_seed")}
                | {"commitment": (self.fair or {}).get("commitment")}
            )

    # ------------------------------------------------------------------ members and connections
    def connected(self, name: str | None) -> None:
        m = self.members.get(name or "")
        if m is not None:
            m.connections += 1
            m.gone_since = None
            if m.absent and not m.leaving:
                m.absent = False  # back within the game: he plays his own turns again
            if m.connections == 1:  # others see him connected; a second tab changes nothing they see
                self.bump()

    def disconnected(self, name: str | None, now: float | None = None) -> None:
        m = self.members.get(name or "")
        if m is not None:
            m.connections = max(0, m.connections - 1)
            if m.connections == 0:
                m.gone_since = time.monotonic() if now is None else now
                self.bump()

    def check_grace(self, now: float) -> bool:
        """Mark absent everyone gone longer than the grace period; True if anything changed."""
        changed = False
        for m in self.members.values():
            if m.connections == 0 and m.gone_since is not None and not m.absent and not m.bot:
                if now - m.gone_since >= self.settings.grace_s:
                    m.absent = True
                    changed = True
        if changed:
            self.on_absent()
            self.bump()
        return changed

    def bump(self) -> None:
        self.version += 1
        self.last_change = time.monotonic()

    # ------------------------------------------------------------------ the members' record (store, recovery)
    def members_snapshot(self) -> list[dict[str, Any]]:
        """Who sits where with what buy-in: JSON-ready, enough to restore the table's people. A bot's
        entry holds the level the table's bots play at (``bot_level``, chosen by the host when he adds
        them): a restored table's bots play at it again (``restore_members``). A host who is not seated
        has an entry too (``host_only``: no seat, no buy-in) holding his choices, so that a restored
        table is still his and run as he left it."""
        away = self.host_name is not None and self.host_name not in self.members
        only = [
            {"name": self.host_name, "role": "host", "box": None, "buy_in": "0", "pending": False}
            | {"leaving": False, "bot": False, "host": True, "host_only": True, "table": self.host_choices()}
        ]
        return (only if away else []) + [
            {
                "name": m.name,
                "role": m.role,
                "box": m.box,
                "buy_in": fmt(m.buy_in),
                "pending": m.pending,
                "leaving": m.leaving,
                "bot": m.bot,
                "host": m.name == self.host_name,
            }
            | ({"level": self.bot_level} if m.bot else {})
            | ({"table": self.host_choices()} if m.name == self.host_name else {})
            for m in self.members.values()
        ]

    def host_choices(self) -> dict[str, Any]:
        """What the host chose for this table (docs/server.md "Hosts"), kept with his entry of the people's
        snapshot so that a restored table is run as he left it (``restore_members``)."""
        return {
            "approval": self.approval,
            "turn_timeout_s": self.settings.turn_timeout_s,
            "result_pause_s": self.result_pause_s,
            "paused": self.paused,
            "removed": dict(self.removed),
        }

    def restore_choices(self, d: Any) -> None:
        """``host_choices`` as written (a value of the wrong shape is left at the server's default)."""
        if not isinstance(d, dict):
            return
        if isinstance(d.get("approval"), bool):
            self.approval = d["approval"]
        if isinstance(d.get("paused"), bool):
            self.paused = d["paused"]
        t, r = d.get("turn_timeout_s"), d.get("result_pause_s")
        if isinstance(t, (int, float)) and 5 <= t <= 600:  # the host route's bounds (host_actions.py)
            self.settings = replace(self.settings, turn_timeout_s=float(t))
        if isinstance(r, (int, float)) and 0 <= r <= 30:
            self.result_pause_s = float(r)
        gone = d.get("removed")
        if isinstance(gone, dict):
            self.removed.update({str(k): str(v)[:200] for k, v in gone.items()})

    def note_member(self, name: str, change: dict[str, Any]) -> None:
        """Tell the store of a change of the people at the table, with the whole snapshot after it."""
        self.store.member_changed(self.id, name, dict(change, members=self.members_snapshot()))

    def restore_members(self, snapshot: list[dict[str, Any]], now: float | None = None) -> None:
        """After a restart: the people as the snapshot says, none connected yet (the grace period runs)."""
        t = time.monotonic() if now is None else now
        for d in snapshot:
            if d.get("host_only"):  # the host, not seated: his table and his choices (members_snapshot)
                self.host_name = str(d["name"])
                self.restore_choices(d.get("table"))
                continue
            self.members[d["name"]] = Member(
                d["name"],
                d["role"],
                d.get("box"),
                to_money(d["buy_in"], "buy_in"),
                gone_since=t,
                pending=bool(d.get("pending")),
                leaving=bool(d.get("leaving")),
                absent=bool(d.get("leaving")),
                bot=bool(d.get("bot")),
            )
            if d.get("bot"):
                self.members[d["name"]].gone_since = None
                if d.get("level") in self.bot_levels():  # the level the host chose (members_snapshot)
                    self.bot_level = str(d["level"])
            if d.get("host"):
                self.host_name = d["name"]
                self.restore_choices(d.get("table"))
        self.bump()

    def resume(self) -> None:
        """After adopting a recovered table: take up its flow (absent turns, the timer)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the host (docs/server.md)
    def is_host(self, name: str | None) -> bool:
        return name is not None and name == self.host_name

    def member_gone(self, name: str) -> None:
        """After a member's removal: a leaving host hands the table to the longest-seated person."""
        if name == self.host_name:
            self.host_name = next((m.name for m in self.members.values() if not m.bot), None)

    def member_joined(self, name: str) -> None:
        if self.host_name is None:  # a table made without a login session: its first person hosts it
            self.host_name = name
        self.requests.pop(name, None)

    def humans_present(self) -> bool:
        return any(not m.bot and not m.absent for m in self.members.values())

    def act_note(self, text: str) -> None:
        """A public line on the felt: the timer or the grace period acted for someone."""
        self.note = text[:200]

    def resting(self, now: float | None = None) -> bool:
        """The last round's results are still on the felt (the result pause)."""
        return (time.monotonic() if now is None else now) < self.result_until

    def bot_levels(self) -> list[str]:
        """The bot levels a host may choose here (British: web/bots.py; the casino bots have one)."""
        return ["simple"]

    def bot_job(self) -> tuple[str, Callable[[], Any]] | None:
        """A bot to act and its decision (run off the event loop: it reads only the bot's view)."""
        return None

    def bot_act(self, name: str, action: Any) -> None:
        raise NotImplementedError

    def member(self, name: str | None) -> Member:
        m = self.members.get(name or "")
        if m is None:
            raise HostError(f"{name!r} is not at table {self.id}; join first")
        return m

    def _check_new_name(self, name: str) -> None:
        if name in self.members:
            raise HostError(f"{name!r} is already at table {self.id}")

    # ------------------------------------------------------------------ the timer
    def set_timer(self, seconds: float | None, now: float | None = None) -> None:
        self.deadline = None if seconds is None else (time.monotonic() if now is None else now) + seconds

    def due(self, now: float) -> bool:
        return self.deadline is not None and now >= self.deadline and not self.paused

    def on_timer(self, now: float) -> None:
        """The turn timer ran out: the default action (each game says which)."""
        raise NotImplementedError

    def on_absent(self) -> None:
        """Someone became absent: take his turns by the default rules."""
        raise NotImplementedError

    # ------------------------------------------------------------------ what each person sees
    def state_for(
        self, name: str | None, history: bool = True, memo: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        raise NotImplementedError

    def add_history(self, entry: dict[str, Any]) -> None:
        self.history.append(entry)
        self.history_mark += 1

    def timer_s(self) -> float | None:
        """The turn timer's seconds left (one decimal), None when none runs."""
        return None if self.deadline is None else round(max(0.0, self.deadline - time.monotonic()), 1)

    def base_state(
        self, name: str | None, history: bool = True, memo: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The state's keys every game has. ``memo``: one change's shared parts (web/frames.py): the
        keys every view kind sees alike are made once per change, only ``you`` differs."""
        shared = None if memo is None else memo.get("base")
        if shared is None:
            shared = self._base_shared()
            if memo is not None:
                memo["base"] = shared
        out = dict(shared)
        out["you"] = name if name in self.members else None
        if history:  # else the client keeps the history it was last sent (history_mark unchanged)
            out["history"] = [self.history_for(h, name) for h in self.history]
        note = self.notices.pop(name or "", None)
        if note:
            out["notice"] = note
        return out

    def _base_shared(self) -> dict[str, Any]:
        return {
            "type": "state",
            "table": self.id,
            "title": self.title,
            "game": self.game,
            "preset": self.rules.preset,
            "you": None,
            "version": self.version,
            "timer_s": self.timer_s(),
            "turn_timeout_s": self.settings.turn_timeout_s,
            "history_mark": self.history_mark,
            "fair": self._fair_shown(),
            "marks": self.marks,
            "host": self.host_name,
            "approval": self.approval,
            "requests": self._kept("requests", sorted(self.requests)),
            "paused": self.paused,
            "result_pause_s": self.result_pause_s,
            "grace_s": self.settings.grace_s,
            "note": self.note,
            "history_store": hasattr(self.store, "store_table_ids"),  # else the page reads the socket's
            "bot_levels": self._kept("bot_levels", self.bot_levels()),
        }

    def _kept(self, key: str, value: list[str]) -> list[str]:
        """``value``, or the list shown under ``key`` at the last change when it is equal (a list of
        texts: equal is the same JSON), so that the frames' ``diff`` passes it by at once (``is``)."""
        last = self._shown.get(key)
        if last is not None and last == value:
            return last
        self._shown[key] = value
        return value

    def _kept_text(self, key: str, value: Any) -> Any:
        """``value``, or the one shown under ``key`` at the last change when their JSON texts are the
        same (orjson's, as the frames are made of: exact, ``1`` is not ``1.0`` nor ``true``), so that the
        frames' ``diff`` passes it by at once (``is``) instead of comparing it again as text."""
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
        last = self._shown.get(key)
        if last is not None and last[1] == text:
            return last[0]
        self._shown[key] = (value, text)
        return value

    def _fair_shown(self) -> dict[str, Any] | None:
        """The live shoe's commitment with the last three revealed seeds: the same object while
        neither changed (``fair`` is replaced, never changed in place; ``revealed`` only appended to
        or cleared), so that the frames' ``diff`` passes it by at once."""
        if self.fair is None:
            return None
        rev = self.revealed  # (an append makes a new newest entry, a clear a shorter deque: both seen here)
        newest = rev[-1] if rev else None
        got = self._shown.get("fair")
        if got is not None and got[0] is self.fair and got[1] == len(rev) and got[3] is newest:
            return got[2]  # type: ignore[no-any-return]
        shown = dict(self.fair, revealed=list(rev)[-3:])
        self._shown["fair"] = (self.fair, len(rev), shown, newest)
        return shown

    def history_for(self, entry: dict[str, Any], name: str | None) -> dict[str, Any]:
        return {k: v for k, v in entry.items() if not k.startswith("_")}

    def summary(self) -> dict[str, Any]:
        raise NotImplementedError

    def row(self) -> dict[str, Any]:
        """The lobby's row: the game's summary with the table's marks (test seed, custom rules)."""
        return dict(self.summary(), marks=self.marks, host=self.host_name, approval=self.approval)

    def close_all(self) -> None:
        """The table closes: every member's money back to his account."""
        raise NotImplementedError


def fair_shuffler(seed: int | None) -> Any:
    """A provably fair shuffler when this build has ``pontoon.fair`` (else None: a seeded numpy shuffle).

    A table made with an explicit seed (tests, replays) gets the deterministic test mode, which is
    NOT secret (docs/fairness.md); every other table gets fresh secret server seeds."""
    try:
        fair = importlib.import_module("pontoon.fair")
    except ImportError:
        return None
    return fair.FairShuffler() if seed is None else fair.FairShuffler(test_seed=seed)
