"""``Recorder``: writes every event of a ``CasinoTable`` or ``BritishGame`` to the store as it happens.

The recorder is the table's batch subscriber (``table.subscribe_batch``): the ``TableRecord``s of one
table call are written in ONE transaction, synchronously, before the table call returns and before any
record subscriber gets them, so before anything is shown. Deferred events, where nothing can be shown
in between: a table's ``new_shoe`` / ``shoe_retired`` events
are made inside ``new_round`` (casino; a fair table's first shoe too) or ``end_round`` (a British
reshuffle) and are written in the same transaction as the next event (a casino ``round_start`` with
the new shoe's card order and the recovery snapshot; a British ``bank_passes`` or ``round_start``
with the fair pack's order), so a crash never leaves a shoe recorded without its cards. A fair
table's shuffler (its secret seeds) is part of the snapshot (``CasinoTable.snapshot``).

Casino ``join``/``leave`` move money between the table and the cashier: the recorder books them as
ledger rows from/to ``{"cashier": "cage"}`` (kinds ``deposit``/``withdrawal``), so every balance is a
ledger sum.
"""

from __future__ import annotations

from collections import deque
from decimal import Decimal
from typing import Any

from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.casino.round import CasinoRound
from pontoon.casino.table import CasinoTable
from pontoon.errors import PontoonError
from pontoon.events import TableRecord
from pontoon.history.store import CASHIER, Batch, HistoryError, Row, Store, canon, money_rows
from pontoon.money import fmt

ZERO = Decimal(0)
DEFERRED = ("new_shoe", "shoe_retired")  # written with the round_start that follows (see above)
AnyTable = CasinoTable | BritishGame


class RecoveryMismatch(PontoonError):
    """Re-executing the committed events gave a different event: the message names the first one."""


# the transfers of an event that moved no money: ONE list shared by those rows (never appended to:
# ``_row`` makes a list of its own for the rows it books money on), not an empty list per event
_NO_TRANSFERS: list[dict[str, Any]] = []


def _row(rec: TableRecord) -> Row:
    """The event's row. Its data is the event's own dict, not a copy: an ``Event`` is a frozen record
    whose data nothing changes once it is logged (the writer thread reads it once, to write its JSON
    and hash), and a copy per event cost the loop an allocation and the young collections an object
    to scan while the commit is awaited."""
    seq, kind, data, clause = rec.event  # (an Event is a tuple: its fields without a property call each)
    moved = rec.transfers
    if rec.round_no == 0 and (kind == "join" or kind == "leave") and rec.game == "casino":
        transfers = [t.to_json() for t in moved]
        who, amount = str(data["player"]), str(data["balance"])
        if kind == "join":
            transfers.append(
                {
                    "source": CASHIER,
                    "dest": who,
                    "amount": amount,
                    "kind": "deposit",
                    "player": who,
                    "reason": "sits down",
                }
            )
        else:
            transfers.append(
                {
                    "source": who,
                    "dest": CASHIER,
                    "amount": amount,
                    "kind": "withdrawal",
                    "player": who,
                    "reason": "stands up",
                }
            )
    elif moved:
        transfers = [t.to_json() for t in moved]
    else:
        transfers = _NO_TRANSFERS
    return Row(rec.round_no, seq, kind, data, clause, transfers)


def round_result(table: AnyTable) -> tuple[str, dict[str, Any]] | None:
    """(status, result JSON) of the table's round when it is over, else None."""
    return result_of(table.round)


def result_of(rnd: CasinoRound | BritishRound | None) -> tuple[str, dict[str, Any]] | None:
    """(status, result JSON) of a finished round: what every view shows at its end."""
    if rnd is None or not rnd.is_over():
        return None
    if isinstance(rnd, CasinoRound):
        # what ``rnd.result()`` gives these fields, without its per-hand records (not written here:
        # they cost the loop two thirds of the round's result)
        players = rnd.players()
        net = rnd.ledger.net(players)
        house = -sum((d["total"] for d in net.values()), ZERO)
        status = "void" if rnd.void_reason else "settled"
        return status, {
            "status": status,
            "void_reason": rnd.void_reason,
            "dealer": [str(c) for c in rnd.dealer],
            "seats": sorted(players),
            "net": {p: {k: fmt(v) for k, v in d.items()} for p, d in net.items()},
            "house": fmt(house),
        }
    status = "void" if rnd.phase == "void" else "settled"
    return status, {
        "status": status,
        "void_reason": rnd.void_reason,
        "banker": rnd.banker,
        "seats": [*rnd.players, rnd.banker],
        "net": rnd.net_json(),
        "next_banker": rnd.next_banker,
    }


class Recorder:
    """Attach to ``table``: a new table row (``table_id=None``), or an existing one being recovered.

    ``expect``: committed events (recovery) that the next records must equal, one by one; they are
    checked, not written again. Once they are used up, records are written.
    """

    def __init__(
        self,
        store: Store,
        table: AnyTable,
        *,
        label: str = "",
        meta: dict[str, Any] | None = None,
        table_id: int | None = None,
        expect: list[dict[str, Any]] | None = None,
        defer: bool = False,
    ) -> None:
        self.store = store
        # ``defer``: a table call's write is queued (group commit) and NOT waited for here: the caller
        # must wait for ``store.group.pending(table_id)`` before it shows anything (the table server)
        self.defer = defer and store.group is not None
        self.table = table
        self.pending: list[Row] = []
        self.expect: deque[dict[str, Any]] = deque(expect or [])
        self.written = 0
        self._pack: tuple[int, str, int] | None = None  # a British fair pack waiting for its batch
        if table_id is None:
            self._shoe_no = 0
            self.table_id = store.create_table(
                table.game,
                table.rules.preset,
                table.rules.model_dump(mode="json"),
                label=label,
                meta=meta,
                first=self._attach(),
            )
        else:
            self.table_id = table_id
            store.forget(table_id)  # its head and balances read again from the committed records
            if store.group is not None:  # recovered from the committed records: writable again
                store.group.forgive(table_id)
            shoes = store.shoes_(table_id)
            self._shoe_no = max((int(s["number"]) for s in shoes), default=0)
        self._collected: list[Batch] | None = None  # the batches of the table call being recorded
        self._unsubscribe = table.subscribe_batch(self._on_call)

    # ------------------------------------------------------------------------------------------
    def _shoe(self) -> tuple[int, str, int] | None:
        t = self.table
        if not isinstance(t, CasinoTable) or t.shoes_used == self._shoe_no:
            return None
        self._shoe_no = t.shoes_used
        # the shoe's whole order as text: the table's own, made once a shoe (its snapshot, taken right
        # after this at a round's start, reads the same text, not a second join of the cards)
        return t.shoes_used, t._shoe_text(), t.shoe.cut_index

    def _attach(self) -> Batch:
        """The table as it is now: its own events so far (a casino table's first ``new_shoe``), its
        shoe, and the first recovery snapshot (written with the new table row)."""
        rows = []
        for ev in self.table.log.events:
            rec = TableRecord(self.table.game, 0, ev, ())
            rows.append(_row(rec))
        return Batch(rows=rows, shoe=self._shoe(), state=self.table.snapshot())

    def _on_call(self, recs: list[TableRecord]) -> None:
        """The records of one table call: each made into its batch as ``_on`` does, and all of them
        committed in one transaction (before any record subscriber shows one: ``Publisher``)."""
        plain = self._round_call(recs)
        if plain is not None:
            if self.defer and plain:  # a writer process takes the plain form as it is (``enqueue_plain``)
                take = getattr(self.store.group, "enqueue_plain", None)
                if take is not None:
                    take(self.table_id, plain)  # the caller waits for ``pending``
                    self.written += len(recs)
                    return
            batches = [Batch([Row(*r) for r in b[0]], b[1], b[2], b[3], b[4], b[5]) for b in plain]
            written = len(recs)  # (a row for each record)
        else:
            batches = []  # (a call's records: usually one batch, ``_on``)
            self._collected = batches
            try:
                for rec in recs:
                    self._on(rec)
            finally:
                self._collected = None
            written = 0
            for b in batches:  # (usually one: no generator made for it)
                written += len(b.rows)
        if batches:
            if self.defer:
                self.store.enqueue(self.table_id, batches)  # the caller waits for ``pending``
            else:
                self.store.append_many(self.table_id, batches)  # committed before the call returns
            self.written += written

    def _round_call(self, recs: list[TableRecord]) -> list[list[Any]] | None:
        """The batches of a call whose records are all a round's (the server's every action), nothing
        deferred, checked or waiting for a pack: what ``_on`` makes of them, in one pass (no call per
        record, the round read once), made plain (``writer_wire.flat``'s form: each batch ``[rows,
        shoe, state, state_at, round_end, round_shoe]``, each row a tuple of ``Row``'s fields), as the
        writer process takes them, with no ``Batch`` and ``Row`` made and taken apart again; None for
        any other call (``_on`` makes it)."""
        if self.expect or self.pending or self._pack is not None or self._collected is not None:
            return None
        for rec in recs:
            if rec.round_no == 0:
                return None
        table = self.table
        rnd = table.round
        # only the round's last event so far can end it, and only if it is over (else no result asked)
        last_seq = -1 if rnd is None or not rnd.is_over() else rnd.log.count - 1
        out: list[list[Any]] = []
        batch: list[Any] | None = None  # the batch the next rows join (neither state nor round end yet)
        for rec in recs:
            seq, kind, data, clause = rec.event
            moved = rec.transfers
            rno = rec.round_no
            row = (rno, seq, kind, data, clause, [t.to_json() for t in moved] if moved else _NO_TRANSFERS)
            end = None
            if seq == last_seq:
                done = round_result(table)
                if done is not None:
                    end = (rno, done[0], done[1])
            if kind == "round_start" and seq == 0:  # (``_on``: a new round's snapshot, its shoe first)
                shoe = self._shoe()
                state = table.snapshot()
                fair = isinstance(table, BritishGame) and table.fair is not None
                out.append([[row], shoe, state, 0, end, self._shoe_no if fair else None])
                batch = None
            elif batch is not None:
                batch[0].append(row)
                batch[4] = end
            else:
                batch = [[row], None, None, None, end, None]  # (rows, shoe, state, state_at, end, shoe)
                out.append(batch)
            if end is not None:
                batch = None
        return out

    def _on(self, rec: TableRecord) -> None:
        row = _row(rec)
        rno, seq, kind = row.round_no, row.seq, row.kind
        if rno == 0 and kind in DEFERRED and not self.expect:  # recovering: checked at once
            self.pending.append(row)  # written (or, recovering, checked) with the next record
            if kind == "new_shoe" and isinstance(self.table, BritishGame):
                # a fair British pack, just shuffled (nothing drawn yet): stored like a casino shoe
                # (no cut card: cut = the pack's size) so that it has a shoe id for `pontoon verify`
                cards = [str(c) for c in self.table.pack.cards()]
                self._pack = (int(row.data["shoe"]), " ".join(cards), len(cards))
            return
        if self.pending:
            rows = [*self.pending, row]
            self.pending = []
        else:
            rows = [row]
        if self.expect:
            for r in rows:
                self._check(r)
            self._pack = None  # committed with these rows
            return
        shoe = self._take_pack() if self._pack is not None else None
        state = None
        if kind == "round_start" and rno > 0 and seq == 0:
            shoe = shoe or self._shoe()
            state = self.table.snapshot()
        rnd = self.table.round
        end = None
        if rno > 0 and rnd is not None and seq == rnd.log.count - 1:
            done = round_result(self.table)
            if done is not None:
                end = (rno, done[0], done[1])
        got = self._collected
        if got and shoe is None and state is None:
            last = got[-1]
            if last.state is None and last.round_end is None and last.round_shoe is None:
                # the call's next event: in the same batch (one transaction either way; a batch's
                # shoe is written before its rows, and only its own state and round end are tied
                # to a row, so a batch with neither takes the rows that follow)
                last.rows.extend(rows)
                last.round_end = end
                return
        batch = Batch(rows=rows, shoe=shoe, state=state, round_end=end)
        if state is not None:
            if isinstance(self.table, BritishGame) and self.table.fair is not None:
                batch.round_shoe = self._shoe_no  # the fair pack this round is dealt from
            batch.state_at = len(rows) - 1
        if got is not None:
            got.append(batch)
        else:
            self.store.append(self.table_id, batch)
            self.written += len(batch.rows)

    def _check(self, row: Row) -> None:
        if not self.expect:
            raise RecoveryMismatch(
                f"table {self.table_id}: event round {row.round_no} #{row.seq} {row.kind} is re-made "
                "but was never committed with the events before it"
            )
        e = self.expect.popleft()
        got = (row.round_no, row.seq, row.kind, canon(row.data), row.clause, money_rows(row.transfers))
        want = (
            e["round_no"],
            e["seq"],
            e["kind"],
            canon(e["data"]),
            e["clause"],
            money_rows(e.get("transfers", [])),
        )
        if got != want:
            raise RecoveryMismatch(
                f"table {self.table_id}: re-made event round {row.round_no} #{row.seq} {row.kind} {canon(row.data)[:160]} "
                f"differs from the committed round {e['round_no']} #{e['seq']} {e['kind']} {canon(e['data'])[:160]}"
            )

    def _take_pack(self) -> tuple[int, str, int] | None:
        out, self._pack = self._pack, None
        if out is not None:
            self._shoe_no = out[0]
        return out

    def flush(self) -> None:
        """Write deferred table events now (a table closing right after a new shoe)."""
        if self.pending:
            self.store.append(self.table_id, Batch(rows=self.pending, shoe=self._take_pack()))
            self.written += len(self.pending)
            self.pending = []

    def close(self, *, status: str = "closed") -> None:
        """Stop recording; ``status`` closed marks the table finished (``--resume`` skips it)."""
        self.flush()
        self._unsubscribe()
        if status == "closed":
            self.store.close_table(self.table_id)

    def detach(self) -> None:
        self._unsubscribe()


__all__ = ["Recorder", "RecoveryMismatch", "round_result", "HistoryError"]
