"""The cards of a session export against the shoes and packs they were dealt from (docs/fairness.md,
docs/export.md): ``pontoon verify FILE`` and ``pontoon replay --export FILE``.

A session export (``pontoon history --export json``, ``GET /api/tables/{id}/export.json``) holds each
table's events: between rounds the ``new_shoe`` events (with the fair shuffle's commitment) and the
``shoe_retired`` events (with the revealed server seed), in its rounds the cards dealt (``card`` events of
a casino round, ``draw`` events of a British round). Put back in the order the table logged them (their
``seq``), each retired fair shoe's cards are checked as ``pontoon verify RECORD`` checks a record: the
commitment is SHA-256 of the revealed seed, and the cards dealt from it are the first cards of the order
that seed gives, in order. A British pack's draws after its first ``cards`` are used cards that came back
to the bottom (003): they are counted, not checked against the commitment (as ``shoe_record`` does).

A round the web withheld (its pack still in play, ruling 35) has no cards to check: it is reported as
withheld. A withheld round whose pack is retired in the same file cannot come from a server (packs only
ever retire; the web's export reads the retired packs after the rounds), so it is a mismatch: its cards
would be left out of the check.

Each event of a version 2 file also has its place in its table's log (``table_seq``, history/export.py
``number_events``); where a table's events have it, they are checked to tell the same order as the rounds
and their ``seq`` (``_table_order``). A version 1 file has none and is read as before.

A file not of this shape is an ``ExportShapeError`` (one line, exit 2 on the command line); a card or
seed that differs from the commitment is a ``ReplayMismatch`` naming the table and round (exit 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pontoon.errors import PontoonError
from pontoon.fair import SCHEME, FairRecordError, verify_record
from pontoon.replay import ReplayMismatch

FORMAT = "pontoon-session"  # history/export.py's FORMAT
CARD_KINDS = ("card", "draw")


class ExportShapeError(PontoonError):
    """The file is not a session export of the shape pontoon writes."""


@dataclass
class PackCheck:
    """One shoe (a British pack) of an export's table: the rounds dealt from it and what was checked."""

    table: Any
    shoe: Any
    state: str  # "verified" | "in play" (its seed not revealed in the file) | "not fair" (no commitment)
    rounds: list[int] = field(default_factory=list)
    dealt: int = 0  # cards checked against the committed order (verified) or dealt (otherwise)
    later: int = 0  # British: draws of used cards back at the bottom (003), not in the committed order

    def describe(self) -> str:
        where = f"table {self.table} shoe {self.shoe} ({_span(self.rounds)})"
        if self.state == "verified":
            tail = (
                f"; {self.later} later draws of used cards (back at the bottom, 003) not in its order"
                if self.later
                else ""
            )
            return (
                f"{where}: commitment = SHA-256 of its revealed server seed; its {self.dealt} cards dealt are "
                f"the first {self.dealt} of its order{tail}: verified"
            )
        if self.state == "in play":
            return f"{where}: still in play in this export (its seed not revealed): not checked yet"
        return f"{where}: not shuffled with the provably fair shuffle (no commitment): nothing to check"


@dataclass
class ExportCheck:
    """What ``check_export`` found: each shoe, the whole rounds whose every card was checked, the
    withheld rounds."""

    packs: list[PackCheck]
    rounds: int  # whole rounds in the file
    checked: int  # whole rounds whose every card is a verified shoe's committed card
    withheld: list[tuple[Any, int]]

    @property
    def verified(self) -> int:
        return sum(1 for p in self.packs if p.state == "verified")


def _name(x: object) -> object:
    """A table, shoe or count as the file gives it, for a message: an integer as is, else its short repr
    (one line, whatever the file holds)."""
    return x if isinstance(x, int) and not isinstance(x, bool) else repr(x)[:40]


def _span(rounds: list[int]) -> str:
    if not rounds:
        return "no rounds"
    if rounds == list(range(rounds[0], rounds[-1] + 1)) and len(rounds) > 2:
        return f"rounds {rounds[0]}-{rounds[-1]}"
    return ("round " if len(rounds) == 1 else "rounds ") + ", ".join(map(str, rounds))


def is_session_export(doc: object) -> bool:
    """An object naming the session export's format (``pontoon verify`` tells it from a shoe record)."""
    return isinstance(doc, dict) and doc.get("format") == FORMAT


def _events(where: str, rno: int, events: object) -> list[tuple[int, str, dict[str, Any]]]:
    if not isinstance(events, list):
        raise ExportShapeError(f"{where} round {rno}: 'events' must be a list")
    out = []
    for j, e in enumerate(events):
        ok = isinstance(e, dict) and isinstance(e.get("kind"), str) and isinstance(e.get("data"), dict)
        if not ok or isinstance(e.get("seq"), bool) or not isinstance(e.get("seq"), int):
            raise ExportShapeError(
                f"{where} round {rno}: event {j} is not an event (an object with an integer seq, a kind and "
                "a data object)"
            )
        out.append((int(e["seq"]), str(e["kind"]), e["data"]))
    return sorted(out, key=lambda x: x[0])  # the order the table logged them


def _rounds(where: str, t: dict[str, Any]) -> list[tuple[int, bool, list[tuple[int, str, dict[str, Any]]]]]:
    rounds = t.get("rounds")
    if not isinstance(rounds, list):
        raise ExportShapeError(f"{where}: 'rounds' must be a list of the table's rounds")
    out = []
    for i, r in enumerate(rounds):
        if not isinstance(r, dict) or isinstance(r.get("round"), bool) or not isinstance(r.get("round"), int):
            raise ExportShapeError(f"{where}: rounds[{i}] is not a round (an object with an integer 'round')")
        out.append(
            (int(r["round"]), bool(r.get("withheld")), _events(where, int(r["round"]), r.get("events")))
        )
    return sorted(out, key=lambda x: x[0])


class _Pack:
    """A shoe of the table, in the order its ``new_shoe`` events came; ``size``: how many cards it dealt
    (its ``shoe_retired`` event's ``dealt``), None while it is in play."""

    def __init__(self, table: Any, data: dict[str, Any], fair: bool) -> None:
        self.check = PackCheck(table, _name(data.get("shoe")), "in play" if fair else "not fair")
        self.record: dict[str, Any] | None = None
        self.cards = 1 << 30  # a British pack's cards: later draws are used cards back at the bottom (003)
        self.seed: object = None
        self.size: int | None = None
        self.n = 0  # cards dealt from it so far in the walk
        self.where: list[int] = []  # the round of each card in ``record["dealt"]``
        if fair:
            self.record = {
                k: data.get(k) for k in ("scheme", "client_seed", "nonce", "commitment", "pack", "decks")
            }
            self.record["dealt"] = []
            cards = data.get("cards")
            self.cards = cards if isinstance(cards, int) and not isinstance(cards, bool) else self.cards

    def full(self) -> bool:
        return self.size is not None and self.n >= self.size

    def deal(self, rno: int, card: object) -> bool:
        """Count one card of round ``rno``; True when it is checked against the committed order."""
        self.n += 1
        if rno not in self.check.rounds:
            self.check.rounds.append(rno)
        if self.record is None:
            self.check.dealt += 1
            return False
        if len(self.record["dealt"]) >= self.cards:
            self.check.later += 1
            return False
        self.record["dealt"].append(card)
        self.where.append(rno)
        return self.seed is not None

    def verify(self) -> None:
        """The revealed seed: check the commitment and every card dealt (ReplayMismatch names the round)."""
        c = self.check
        if self.record is None or self.seed is None:
            return
        self.record["server_seed"] = self.seed
        name = f"table {c.table} shoe {c.shoe}"
        try:
            res = verify_record(self.record)
        except FairRecordError as err:
            text = str(err)
            if text.startswith("dealt["):  # "dealt[i]: ...": a card of round where[i] is not a card
                i = int(text[6 : text.index("]")])
                raise ExportShapeError(
                    f"table {c.table} round {self.where[i]}: {text} (shoe {c.shoe})"
                ) from None
            raise ExportShapeError(f"{name}: its record does not parse: {err}") from None
        if not res.ok:
            diff = str(res.difference)
            if diff.startswith("card "):  # "card N dealt was X, the committed order has Y there"
                n = int(diff.split()[1])
                raise ReplayMismatch(f"table {c.table} round {self.where[n - 1]}: {diff} (shoe {c.shoe})")
            raise ReplayMismatch(f"{name} ({_span(c.rounds)}): {diff}")
        c.state = "verified"
        c.dealt = len(self.record["dealt"])


def _packs(where: str, tid: Any, t: dict[str, Any]) -> list[_Pack]:
    """The table's shoes from its events between rounds: each ``new_shoe``, and the ``shoe_retired``
    that reveals its seed and says how many cards it dealt."""
    between = t.get("between_rounds", [])
    packs: list[_Pack] = []
    for _seq, kind, d in _events(where, 0, between):
        if kind == "new_shoe":
            if packs and packs[-1].record is not None and packs[-1].seed is None:  # a fair shoe always
                raise ReplayMismatch(  # reveals its seed before the next (casino/table.py, british/table.py)
                    f"{where}: shoe {packs[-1].check.shoe} is followed by shoe {_name(d.get('shoe'))} without its "
                    "seed revealed (a fair shoe's seed is revealed before the next is shuffled)"
                )
            packs.append(_Pack(tid, d, d.get("scheme") == SCHEME and "commitment" in d))
        elif kind == "shoe_retired" and packs and "server_seed" in d:
            p = packs[-1]
            dealt = d.get("dealt")
            if d.get("shoe") != p.check.shoe or isinstance(dealt, bool) or not isinstance(dealt, int):
                raise ExportShapeError(
                    f"{where}: shoe {p.check.shoe}'s shoe_retired event must name it and its cards dealt "
                    "('shoe', an integer 'dealt')"
                )
            p.seed, p.size = d["server_seed"], dealt
    return packs


def _table_order(where: str, t: dict[str, Any]) -> None:
    """The table's ``table_seq`` where its events have one (a version 2 file): every event then has one, an
    integer, none twice, and in its order the rounds come one after another, each round's events in their
    ``seq`` order (the events between rounds may come anywhere). None: a version 1 file, nothing to check.
    Called once the rounds' and events' shape is checked (``_rounds``, ``_packs``)."""
    placed: list[tuple[object, int, int]] = []  # (table_seq, round (0: between rounds), seq)
    parts = [(0, t.get("between_rounds", []))] + [(int(r["round"]), r.get("events")) for r in t["rounds"]]
    for rno, events in parts:
        placed += [(e.get("table_seq"), rno, int(e["seq"])) for e in events]
    given = [p for p in placed if p[0] is not None]
    if not given:
        return
    ranked: list[tuple[int, int, int]] = []
    for ts, rno, seq in placed:
        if isinstance(ts, bool) or not isinstance(ts, int):
            what = "between rounds" if rno == 0 else f"round {rno}"
            raise ExportShapeError(
                f"{where} {what}: event #{seq} has no integer table_seq, where the table's other events have one"
            )
        ranked.append((ts, rno, seq))
    if len({p[0] for p in ranked}) != len(ranked):
        raise ExportShapeError(
            f"{where}: two events have the same table_seq (each event's place in the table's log)"
        )
    last = (0, 0)
    for ts, rno, seq in sorted(ranked):
        if rno == 0:
            continue
        if (rno, seq) <= last:
            raise ReplayMismatch(
                f"{where} round {rno}: event #{seq} is logged (table_seq {ts}) after round {last[0]}'s event "
                f"#{last[1]}: the table's order and the rounds' disagree"
            )
        last = (rno, seq)


def _check_table(t: dict[str, Any], ti: int, out: ExportCheck) -> None:
    """Each card of the table's rounds, in order, dealt from its shoe: a shoe deals the number of cards
    its retirement says, then the next shoe deals (a casino round also says its shoe and how many
    cards that shoe had dealt before it: checked)."""
    tid = _name(t.get("id", ti))
    where = f"table {tid}"
    packs = _packs(where, tid, t)
    k = 0
    unchecked: set[int] = set()
    withheld: list[int] = []
    whole: list[int] = []
    for rno, held, events in _rounds(where, t):
        while k < len(packs) and packs[k].full():
            k += 1
        if held:
            if k < len(packs) and packs[k].seed is not None:
                raise ReplayMismatch(
                    f"{where} round {rno}: withheld, yet its shoe {packs[k].check.shoe} is retired in this "
                    "export (its seed revealed): its cards are left out of the check"
                )
            withheld.append(rno)
        else:
            whole.append(rno)
        for seq, kind, d in events:
            if kind == "round_start" and "shoe" in d and "dealt" in d and not held:
                while k + 1 < len(packs) and packs[k].size is None and packs[k].check.shoe != d["shoe"]:
                    k += 1  # a shoe without a commitment is replaced without a reveal: the round names its shoe
                at = (packs[k].check.shoe, packs[k].n) if k < len(packs) else (None, 0)
                if at != (d["shoe"], d["dealt"]):
                    raise ReplayMismatch(
                        f"{where} round {rno}: it starts at shoe {_name(d['shoe'])} after {_name(d['dealt'])} cards, the "
                        f"export's cards before it come to shoe {at[0]} after {at[1]}"
                    )
            if kind not in CARD_KINDS:
                continue
            if held:
                raise ReplayMismatch(f"{where} round {rno}: withheld, yet it names a card (event #{seq})")
            while k < len(packs) and packs[k].full():
                k += 1
            if k >= len(packs) or not packs[k].deal(rno, d.get("card")):
                unchecked.add(rno)
    _table_order(where, t)
    for p in packs:
        if p.size is not None and p.n != p.size:
            raise ReplayMismatch(
                f"{where} shoe {p.check.shoe} ({_span(p.check.rounds)}): retired after {p.size} cards dealt, "
                f"the export's rounds deal {p.n} from it"
            )
        p.verify()
        out.packs.append(p.check)
    verified = {r for p in packs if p.check.state == "verified" for r in p.check.rounds}
    out.rounds += len(whole)
    out.checked += sum(1 for r in whole if r in verified and r not in unchecked)
    out.withheld += [(tid, r) for r in withheld]


def check_export(doc: object) -> ExportCheck:
    """Check every retired fair shoe of a session export against its commitment and the cards of its
    rounds against its committed order; raises ``ReplayMismatch`` (a difference, naming the round) or
    ``ExportShapeError`` (not an export)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("tables"), list):
        raise ExportShapeError(
            f"not a {FORMAT} export: an object with format {FORMAT!r} and a list of tables"
        )
    out = ExportCheck([], 0, 0, [])
    for ti, t in enumerate(doc["tables"]):
        if not isinstance(t, dict):
            raise ExportShapeError(f"tables[{ti}] is not a table (an object with its rounds)")
        _check_table(t, ti, out)
    return out


def summary(chk: ExportCheck) -> str:
    """One line: how many rounds' cards are their shoes' committed cards."""
    if not chk.verified and any(p.state == "in play" for p in chk.packs):
        return "no shoe of this export is retired with its seed revealed: its cards are not checked yet"
    if not chk.verified:
        return "its shoes were not shuffled with the provably fair shuffle (no commitment): its cards cannot be checked"
    shoes = (
        "1 shoe verified against its" if chk.verified == 1 else f"{chk.verified} shoes verified against their"
    )
    return (
        f"the cards of {chk.checked} of {chk.rounds} rounds are their shoes' committed cards "
        f"({shoes} revealed seed{'s' if chk.verified > 1 else ''})"
    )
