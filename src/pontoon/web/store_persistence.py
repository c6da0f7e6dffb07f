"""``StorePersistence``: the server's ``TablePersistence`` on the history store (``pontoon serve --db``).

- Every engine table the server hosts is recorded by a ``Recorder`` (label ``web``), attached when the
  engine table is made (a casino table with its host, a British game when its seats are full). The
  store commits in groups (``history/group.py``): a table call's events are queued for the writer
  thread, which commits the events of every table of that moment in one transaction; the server waits
  for ``settle(table)`` (the table's write committed) before it shows anything of the table, so an
  event is shown only once it is durable. On SQLite the WAL is checkpointed by a thread of its own
  (``history/checkpoints.py``), not inside the writer's commits. The other writes (accounts, people, leases) are made
  synchronously after the queue is drained, so they never overtake the events they follow.
- Accounts: ``pontoon.history.accounts`` (an account's balance is its opening plus its moves plus its
  casino cashier ledger rows, so it cannot drift from the ledger).
- ``restore(lobby)`` after a restart (or a takeover): every open web table is rebuilt by
  ``recover_table`` (those open web tables it is to serve, as ``recover(store, label="web")`` would), given a host and its people's last snapshot, and adopted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from decimal import Decimal
from typing import Any

from pontoon.british.table import BritishGame
from pontoon.casino.table import CasinoTable
from pontoon.errors import PontoonError
from pontoon.events import TableRecord
from pontoon.history import HistoryError, Recorder, Store, recover_table
from pontoon.history.accounts import WebRecords
from pontoon.history.checkpoints import start_checkpointer
from pontoon.history.group import Committer
from pontoon.history.leases import Leases
from pontoon.history.recover import rules_of
from pontoon.history.words import round_words
from pontoon.history.writer_proc import ProcessCommitter, start_writer_process
from pontoon.money import to_money
from pontoon.rules.british import BritishRules
from pontoon.web.british_host import BritishHost
from pontoon.web.casino_host import CasinoHost
from pontoon.web.hosting import HostedTable
from pontoon.web.marks import spec_marks
from pontoon.web.respawn import Respawn
from pontoon.web.store_reads import games_by_web_id
from pontoon.web.transport import YOUNG_S, gc_pacer
from pontoon.web.wakeups import Wakeups

log = logging.getLogger("pontoon.web")
LABEL = "web"
WRITERS = ("thread", "process")  # the group commit's writer: in this process, or a child process
# ``settle`` starts a young collection when none has run for ``YOUNG_S`` (web/transport.py) while the server's collector is
# tuned: with ``GcPacer`` every survivor of a collection is frozen, and each frozen object that dies later lowers
# CPython's count of new objects, which starts a young collection at 2,500; a store's tables keep their records
# and coroutines alive across each commit's wait, so at 1,000 tables the deaths held the count down while the
# young generation grew to 30,000 objects (20 ms a collection, the loop held meanwhile). Every 50 ms it holds what
# 50 ms of play left (2 ms); each object is still scanned once (docs/scale-log.md, "The store's commit wait and young collections").
# It is the pacer's own clock (``GcPacer.pace``: the end of the last young collection, whoever started it: the
# frames' ``pace``, the interpreter's count, this): a clock of settle's own collected again within 50 ms of
# the others' collections, 88 of 146 young collections at 100 tables (docs/scale-log.md, "The store on the loop").


class StorePersistence:
    respawn: Respawn | None = None  # the tables being rebuilt after the writer process died (``dropped``)

    def __init__(self, store: Store, *, leases: Leases | None = None, writer: str = "thread") -> None:
        """``writer``: ``thread`` (the group commit's writer thread in this process) or ``process`` (a
        child process: ``history/writer_proc.py``; ``pontoon serve``'s default)."""
        if writer not in WRITERS:
            raise HistoryError(f"writer {writer!r}: accepted are {', '.join(WRITERS)}")
        self.store = store
        self.web = WebRecords(store)
        self.recorders: dict[str, Recorder] = {}
        self.games: dict[str, str] = {}  # web id -> casino | british
        self.known: set[str] = set()
        self.leases = leases  # several processes on one database: a table is served by its lease's owner
        self._by_store: dict[int, str] = {}  # store table id -> web id of the recorders (``_web_of``)
        if writer == "process" and store.group is None:
            proc = start_writer_process(store)  # its own checkpoints (SQLite), beside its writes
            self.group: Committer = proc
            self.checkpoints = None
            if leases is not None:  # each call names its web table; the child fences with our epochs
                proc.web_of = self._web_of
                for wid, epoch in list(leases.epochs.items()):
                    proc.lease_epoch(wid, epoch)
                proc.lease_owner(leases.owner)
                leases.watch = proc.lease_epoch
        else:
            self.group = store.group or store.start_group()  # group commit (history/group.py)
            self.checkpoints = start_checkpointer(store)  # SQLite: the WAL's checkpoints off the commit path
            if (
                leases is not None
            ):  # fencing: every write to a table checks our lease's epoch in its transaction
                store.fences_many.append(self._fence)
        self.wakeups = Wakeups()
        if leases is not None:
            self.web.fence = leases.fence

    def _fence(self, conn: Any, store_table_ids: list[int]) -> None:
        """``Store.fences_many``: the writes to store tables recorded for our web tables must still hold
        those web tables' leases at our epoch (``Leases.fence_many``, one statement; raises ``LeaseLost``)."""
        assert self.leases is not None
        by_store = {rec.table_id: wid for wid, rec in list(self.recorders.items())}
        self.leases.fence_many(conn, [by_store[t] for t in store_table_ids if t in by_store])

    def on_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """(The app's start, on its event loop.) A writer process's acknowledgements are read by the
        loop itself from now on (``ProcessCommitter.use_loop``)."""
        if isinstance(self.group, ProcessCommitter):
            self.group.use_loop(loop)

    def _web_of(self, store_table_id: int) -> str | None:
        """The web table whose recorder writes ``store_table_id`` now (None: none), as ``_fence`` finds
        it, for the writer process's fence: the map is made again when it misses or is stale."""
        wid = self._by_store.get(store_table_id)
        if wid is not None:
            rec = self.recorders.get(wid)
            if rec is not None and rec.table_id == store_table_id:
                return wid
        self._by_store = {rec.table_id: w for w, rec in list(self.recorders.items())}
        return self._by_store.get(store_table_id)

    # ------------------------------------------------------------------ group commit
    async def settle(self, table_id: str) -> None:
        """Wait until every event of ``table_id`` recorded so far is committed; raises the error of a
        write that failed (``LeaseLost``, ``HistoryError``): then nothing of the table may be shown."""
        rec = self.recorders.get(table_id)
        if rec is None:
            return
        pacer = gc_pacer()  # a young collection if none ran for ``YOUNG_S`` (this table's commit under way)
        if pacer is not None:
            pacer.pace()
        fut = self.group.pending(rec.table_id)
        if fut is not None:
            # woken with the other callers of its commit (web/wakeups.py), its error the waiter's result
            err = await self.wakeups.waiter(fut)
            if err is not None:
                raise err
        err = self.group.failed.get(rec.table_id)
        if err is not None:
            raise err

    def dropped(self, lobby: Any, table_id: str, err: BaseException) -> bool:
        """(``Server.settled``: ``table_id`` dropped because its write failed with ``err``.) True: it is
        rebuilt in place from its committed records once the new writer process is up (``err`` is
        ``WriterGone``: web/respawn.py); False: it stays dropped (a lease lost, the database gone)."""
        if self.respawn is None:
            self.respawn = Respawn(self)
        return self.respawn.dropped(lobby, table_id, err)

    def _drain(self) -> None:
        """Every queued event committed before a synchronous write that may follow them."""
        self.group.drain()

    # ------------------------------------------------------------------ TablePersistence
    def load_accounts(self) -> dict[str, Decimal]:
        bal = self.web.balances()
        self.known = set(bal)
        return bal

    def account_balance(self, name: str) -> Decimal | None:
        """The account's balance read from the store (the ledger's sum; None: no such account), so
        that several processes on one database agree (docs/server.md)."""
        return self.web.balance(name)

    def other_tables(self, own: set[str]) -> list[dict[str, Any]]:
        """The open web tables of the store that this process does not serve, with the process that
        owns each (its lease's address) and whether that lease is live (several processes)."""
        if self.leases is None:
            return []
        out = []
        now = time.time()
        for r in self.web.open_tables():
            wid = str(r["web_id"])
            if wid in own:
                continue
            lease = self.leases.owner_of(wid)
            spec = r["spec"]
            try:  # a test seed or custom rules are marked here too (served by another process)
                marks = spec_marks(spec, rules_of({"id": wid, "game": spec["game"], "rules": spec["rules"]}))
            except (PontoonError, KeyError, TypeError, ValueError):
                marks = {"test_mode": bool(spec.get("seeded")), "custom": {"differs": {}, "house_edge": None}}
            out.append(
                {
                    "id": wid,
                    "title": spec.get("title"),
                    "game": spec.get("game"),
                    "preset": (spec.get("rules") or {}).get("preset"),
                    "served_here": False,
                    "owner": None if lease is None else str(lease["address"]),
                    "lease_live": lease is not None and float(lease["expires"]) > now,
                    "marks": marks,
                    "members": [
                        {"name": m["name"], "role": m["role"], "box": m.get("box")}
                        for m in r["members"]
                        if not m.get("host_only")  # a host not seated: no member
                    ],
                }
            )
        return out

    def save_account(self, name: str, balance: Decimal) -> None:
        if name not in self.known:  # a new account (not one another process made); later balances are derived
            if self.web.balance(name) is None:
                self.web.create_account(name, balance)
            self.known.add(name)

    def attach(self, table_id: str, table: CasinoTable | BritishGame, title: str) -> None:
        """A new engine table: record it from now on (a new row in the store, label web)."""
        self._drain()
        rec = Recorder(self.store, table, label=LABEL, meta={"web_id": table_id, "title": title}, defer=True)
        old = self.recorders.pop(table_id, None)
        if old is not None:
            old.close()
        self.recorders[table_id] = rec
        if table_id in self.games:  # a British table's new game: the web row points at it
            self.web.set_table_id(table_id, rec.table_id)

    def detach(self, table_id: str) -> None:
        """The engine table is finished (a British game closed): its store row is closed."""
        self._drain()
        rec = self.recorders.pop(table_id, None)
        if rec is not None:
            rec.close()
            self.web.set_table_id(table_id, None)

    def game_closed(
        self, table_id: str, moves: list[tuple[str, Decimal, str]], members: list[dict[str, Any]]
    ) -> None:
        """A British game closed (its ``closed`` event committed by the recorder): every seat's pay-back,
        the people after it, the web row's game cleared and the store table closed, in ONE transaction:
        a kill before it leaves the game closed in the engine and nothing paid (the restart pays it all,
        once); a kill after it leaves everything paid and the game closed."""
        self._drain()
        rec = self.recorders.pop(table_id, None)
        if rec is not None:
            rec.close(status="kept")  # writes what is deferred; the table's status goes with the pay-backs
        store_id = None if rec is None else rec.table_id
        self.web.game_closed(table_id, store_id, members, moves)

    def table_created(self, table_id: str, spec: dict[str, Any]) -> None:
        if self.leases is not None and not self.leases.claim(table_id):  # a fresh random id: never refused
            raise HistoryError(f"table {table_id} is leased by another process; make the table again")
        rec = self.recorders.get(table_id)
        self.games[table_id] = str(spec.get("game"))
        self.web.table_saved(table_id, spec, None if rec is None else rec.table_id)

    def table_closed(self, table_id: str) -> None:
        self._drain()
        rec = self.recorders.pop(table_id, None)
        if rec is not None:
            rec.close()
        self.web.close_table(table_id)
        self.games.pop(table_id, None)
        if self.leases is not None:
            self.leases.release(table_id)

    def member_changed(self, table_id: str, name: str, change: dict[str, Any]) -> None:
        """The people's snapshot after a change, with its account move. A join's buy-in is checked
        against the account's balance inside that transaction, the account locked (``WebRecords.
        members_changed``): a British buy-in is a web move; a casino one is held by the snapshot
        until the table's deposit is booked (the recorder's cashier row), so the check precedes both."""
        self._drain()  # a casino leave's withdrawal row before the snapshot without him
        move: tuple[str, Decimal, str] | None = None
        hold: tuple[str, Decimal] | None = None
        if self.games.get(table_id) == "british":  # casino money moves are the recorder's cashier rows
            if "join" in change:
                move = (name, -to_money(change["buy_in"], "buy_in"), "buy_in")
            elif "leave" in change:
                move = (name, to_money(change["leave"], "leave"), "paid_back")
        elif "join" in change:
            hold = (name, to_money(change["buy_in"], "buy_in"))
        self.web.members_changed(table_id, list(change.get("members", [])), move, hold)

    def record(self, table_id: str, rec: TableRecord) -> None:
        pass  # the Recorder, subscribed to the engine table, has already committed it

    # ------------------------------------------------------------------ readers for the REST endpoints
    def store_table_ids(self, table_id: str) -> list[int]:
        """Every store table a web table was recorded as (a British table: one per game)."""
        out = []
        for t in self.store.tables_(label=LABEL):
            meta = self.store.table(int(t["id"]))["meta"]
            if meta.get("web_id") == table_id:
                out.append(int(t["id"]))
        return out

    def last_rounds(self, table_id: int, n: int) -> list[dict[str, Any]]:
        """A casino table's last ``n`` finished rounds as the page's history shows them (from the store)."""
        out = []
        for r in self.store.rounds_(table_id=table_id, last=n):
            if r["status"] == "open":
                continue
            res = r["result"] or {}
            evs = self.store.events_(table_id, round_no=int(r["number"]))
            out.append(
                {
                    "round": int(r["number"]),
                    "status": r["status"],
                    "dealer": res.get("dealer", []),
                    "net": res.get("net", {}),
                    "steps": round_words(evs, None, game="casino", net=res.get("net")),  # all face up
                }
            )
        return out

    # ------------------------------------------------------------------ several processes
    def owner_address(self, table_id: str) -> str | None:
        """The address of the process serving ``table_id`` (another one's, by its lease), if any."""
        if self.leases is None:
            return None
        row = self.leases.owner_of(table_id)
        return (
            None
            if row is None or row["owner"] == self.leases.owner
            else str(row["address"]) or "another process"
        )

    def heartbeat(self, lobby: Any) -> tuple[list[str], list[str]]:
        """Renew our leases; drop the tables whose lease we lost; take over the open tables whose
        owner's lease expired. Returns (dropped, taken over)."""
        if self.leases is None:
            return [], []
        held = self.leases.renew()
        dropped = [tid for tid in list(lobby.tables) if tid not in held]
        for tid in dropped:  # another process holds it now: we must not write to it again
            lobby.tables.pop(tid, None)
            rec = self.recorders.pop(tid, None)
            if rec is not None:
                rec.detach()
        free = self.leases.expired() | self.leases.unleased([r["web_id"] for r in self.web.open_tables()])
        taken = self.restore(lobby, only=free - set(lobby.tables)) if free else []
        if taken:
            for n, b in self.load_accounts().items():  # accounts made by the process that died
                lobby.accounts.setdefault(n, b)
        return dropped, taken

    # ------------------------------------------------------------------ restart
    def restore(self, lobby: Any, only: set[str] | None = None) -> list[str]:
        """Rebuild every open web table (``only``: these web ids) and adopt it into ``lobby``."""
        rows = [
            r
            for r in self.web.open_tables()
            if (only is None or r["web_id"] in only)
            and r["web_id"] not in lobby.tables
            and (self.leases is None or self.leases.claim(r["web_id"]))
        ]
        wanted = {int(r["table_id"]) for r in rows if r["table_id"] is not None}
        got = {}
        for t in sorted(wanted):  # only the tables this process is to serve (another's are left alone)
            try:
                got[t] = recover_table(self.store, t)
            except PontoonError as err:  # one table that does not recover must not stop the others
                log.error("table %s (store table %s) not recovered: %s", t, t, err)
        done = []
        british = any(r["spec"].get("game") == "british" for r in rows)
        played = games_by_web_id(self.store, LABEL) if british else {}  # its games so far: numbered on
        for row in rows:
            wid, spec = str(row["web_id"]), row["spec"]
            rules = rules_of({"id": wid, "game": spec["game"], "rules": spec["rules"]})
            rec = got.get(int(row["table_id"])) if row["table_id"] is not None else None
            host: HostedTable
            members = list(row["members"])
            if isinstance(rules, BritishRules):
                host = BritishHost(
                    wid,
                    spec["title"],
                    rules,
                    int(spec["seed"]),
                    int(spec.get("seats") or 2),
                    lobby.settings,
                    self,
                    lobby.credit,
                    seeded=bool(spec.get("seeded")),
                    game=None if rec is None else rec.table,  # type: ignore[arg-type]
                    games=played.get(wid, 0),
                )
            else:
                if rec is None:
                    log.warning("table %s: no open record to recover; closed", wid)
                    self.web.close_table(wid)
                    continue
                table: CasinoTable = rec.table  # type: ignore[assignment]
                host = CasinoHost(
                    wid,
                    spec["title"],
                    rules,
                    int(spec["seed"]),
                    lobby.settings,
                    self,
                    lobby.credit,
                    table=table,
                )
                # who is at the table: the snapshot, less those the table does not hold (a join never
                # committed, a leave committed before its snapshot); a person who joined mid-round
                # (pending: a next-round seat or a standing bettor) is kept pending: his buy-in is still
                # in his account in the ledger (the deposit is made when he sits down) and held there by
                # this snapshot (``WebRecords.balances`` subtracts it)
                held = set(table.seats())
                members = [
                    m if m.get("host_only") else dict(m, pending=m["name"] not in held)
                    for m in members
                    if m["name"] in held or m.get("pending") or m.get("host_only")  # host_only: not seated
                ]
                if members != row["members"]:  # the snapshot corrected (the balances read its holds)
                    self.web.members_changed(wid, members)
            if rec is not None:
                rec.recorder.defer = True  # its writes from now on: group commit, settled before shown
                self.recorders[wid] = rec.recorder
                host.fair = None
                host.revealed.clear()
                for ev in self.store.events_(rec.table_id, round_no=0):  # the shoes' commitments and reveals
                    host.fair_data(str(ev["kind"]), ev["data"])
            self.games[wid] = host.game
            if rec is not None and host.game == "casino":
                for entry in self.last_rounds(rec.table_id, lobby.settings.history_rounds):
                    host.add_history(entry)  # the page's last rounds, from the store
            host.restore_members(members)
            host.marks = dict(host.marks, test_mode=bool(spec.get("seeded")))  # ruling 36: still marked
            lobby.adopt(host)
            done.append(wid)
        return done


__all__ = ["YOUNG_S", "StorePersistence"]  # (YOUNG_S: the pace of the young collections in ``settle``)
