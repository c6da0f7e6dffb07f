"""State frames, built once per view kind and change, and the deltas between them (docs/server.md,
"State frames and deltas").

A connection's *view kind* is the member's name it is a seat of, or ``None`` for everyone else
(spectators, a person who is not at the table): what each may see is ``HostedTable.state_for`` of that
kind (ruling 35: a seat sees its own hidden cards, everyone else the public view). On every change the
server numbers the change (``seq``), builds the view of each kind that has a connection once,
serializes it once, and sends the same text to every connection of that kind:

- a connection that asked for deltas (``/ws/tables/{id}?deltas=1``, the page) and holds the kind's
  previous view gets ``{"type": "delta", "seq": n, "base": m, "ops": [...]}`` (web/delta.py), else the
  full state with ``"seq": n``; on a gap it sends ``{"type": "resync"}`` and gets the full state;
- a connection that asked for split deltas (``?deltas=2``, the page) gets the public view (kind
  ``None``'s, the same for every seat and spectator) and its own part apart: the public delta is made
  and serialized once per change for the whole table, and a seat's own part (``own``: the operations
  that turn the public view into its kind's view, e.g. its ``you``, ``legal`` and its seat's
  ``round.legal_actions``) is sent only as what changed in it (``Split``; the text shared by every
  connection whose own part did not change). A full state on connecting and on ``resync``;
- any other connection gets the full state each time (no ``seq``), its ``history`` only when a round was
  booked since it was last sent (``history_mark``), as before.

A person's one-line ``notice`` travels beside the view (never in it): it is added to his frames only.
The texts are made by orjson (``dumps``: about 5 times faster than ``json.dumps``, the same JSON values;
money is text in the views, so nothing is rounded), falling back to ``json.dumps`` for what orjson
refuses (an integer past 64 bits).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from pontoon.web.delta import Op, diff

if TYPE_CHECKING:
    from pontoon.web.hosting import HostedTable

Kind = str | None


@dataclass
class Sent:
    """The last view of one kind sent on a table, and the change number it was sent at."""

    seq: int
    view: dict[str, Any]
    full: str | None = None  # its full-state text, once made


@dataclass
class Split:
    """The last split frame a kind was sent (``?deltas=2``): its change number, the public view it held
    (kind ``None``'s: the same object for every kind sent at that change) and its own part."""

    seq: int
    pub: dict[str, Any]
    # its own part's operations, kept where ``_parts`` compares them (a British seat's); None where the
    # host made them (``own_ops``: their text below is all a later frame needs, and the lists no longer
    # outlive their change: about a quarter of what a young collection scanned at 100 busy tables)
    own: list[Op] | None
    own_text: (
        str  # and their JSON text (compared whole first: many changes leave a kind's own part as it was)
    )
    parts: list[str] | None = None  # each operation's text, where made (``Change.own``'s compared views)


OWN_WHOLE = 1024  # a kind's own part that changed is sent whole up to this many characters of text


def _parts(ops: list[Op], prev: Split | None) -> list[str]:
    """Each operation's text, the kind's last one's kept where the operation sets the very same value
    at the same path (a value of a view is never changed once built: the same object, the same text)."""
    old: list[Op] = []
    texts: list[str] = []
    if prev is not None and prev.own is not None and prev.parts is not None:
        old, texts = prev.own, prev.parts
    out = []
    for i, op in enumerate(ops):
        if i < len(old):
            o = old[i]
            if len(o) == len(op) and (len(op) == 1 or o[1] is op[1]) and o[0] == op[0]:
                out.append(texts[i])
                continue
        out.append(dumps(op))
    return out


def own_delta(old: list[str], new: list[str]) -> str:
    """What changed in a kind's own part (each operation as its text), as delta operations on that list
    (an operation replaced or added whole, the list cut where it got shorter; ``[]``: nothing).
    Compared as texts: exact (``1`` is not ``1.0``), no walk."""
    n = min(len(old), len(new))
    ops = [f"[[{i}],{new[i]}]" for i in range(n) if old[i] != new[i]]
    if len(old) > n:
        ops.append(f"[[{n}]]")
    ops += [f"[[{i}],{new[i]}]" for i in range(n, len(new))]
    return "[" + ",".join(ops) + "]"


@dataclass
class TableFrames:
    """What a table has sent: the change counter and the last view of each kind (bounded by the
    kinds with a connection at the last change)."""

    seq: int = 0
    last: dict[Kind, Sent] = field(default_factory=dict)
    split: dict[Kind, Split] = field(default_factory=dict)  # the same for split connections (``?deltas=2``)
    # each kind's history as built at a history_mark: the same list while no round is booked (built
    # once per booked round, and the deltas pass it by at once: ``diff`` skips what ``is`` the same),
    # and the host's entries it was built from (an entry still there keeps its shown form: ``shown``)
    history: dict[Kind, tuple[int, list[dict[str, Any]], list[dict[str, Any]]]] = field(default_factory=dict)


def shown(
    host: HostedTable, kind: Kind, before: tuple[int, list[dict[str, Any]], list[dict[str, Any]]] | None
) -> tuple[int, list[dict[str, Any]], list[dict[str, Any]]]:
    """A kind's history at the host's ``history_mark``: each entry as ``history_for`` shows it to the
    kind; an entry that was in the kind's last history (the same object: the host keeps its last
    rounds in order and never changes one) keeps the form made then, so a booked round makes one entry
    per kind where it made them all (``history_rounds`` of them, a British one its steps replayed)."""
    made: dict[int, tuple[dict[str, Any], dict[str, Any]]] = (
        {} if before is None else {id(e): (e, x) for e, x in zip(before[2], before[1], strict=True)}
    )
    entries = list(host.history)
    out = []
    for e in entries:
        got = made.get(id(e))  # (the old entries are held in ``before``: no id is reused meanwhile)
        out.append(got[1] if got is not None and got[0] is e else host.history_for(e, kind))
    return host.history_mark, out, entries


def frames_of(host: HostedTable) -> TableFrames:
    tf = host.frames
    if tf is None:
        tf = host.frames = TableFrames()
    return tf


def kind_of(host: HostedTable, name: str | None) -> Kind:
    return name if name is not None and name in host.members else None


def dumps(value: Any) -> str:
    """The JSON text of a view or a delta (orjson; ``json.dumps`` for what orjson refuses)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # (orjson.JSONEncodeError is one): e.g. an integer past 64 bits
        return json.dumps(value)


def _with(text: str, extra: dict[str, Any]) -> str:
    """A frame's text with more keys at its end (the text of a JSON object)."""
    return text[:-1] + "," + dumps(extra)[1:]


class Change:
    """One change's frames: each view kind built and serialized at most once."""

    def __init__(self, host: HostedTable) -> None:
        self.host = host
        self.tf = frames_of(host)
        self.tf.seq += 1
        self.seq = self.tf.seq
        self.timer = host.timer_s()  # one reading for every kind (the views differ only as ruling 35 says)
        self.views: dict[Kind, dict[str, Any]] = {}
        self.memo: dict[str, Any] = {}  # what every kind of this change sees alike, made once (state_for)
        self.texts: dict[tuple[Kind, str], str] = {}
        # each split kind's own part (``own``), its text and, where made so, each operation's text
        self.owns: dict[Kind, tuple[list[Op], str, list[str] | None]] = {}
        self.pub_deltas: dict[int, str] = {}  # the public delta's text from each base change number

    def view(self, kind: Kind) -> dict[str, Any]:
        v = self.views.get(kind)
        if v is None:
            host = self.host
            v = host.state_for(kind, False, self.memo)
            v.pop("notice", None)  # (taken per person in ``send``)
            v["timer_s"] = self.timer
            h = self.tf.history.get(kind)
            if h is None or h[0] != host.history_mark:
                h = self.tf.history[kind] = shown(host, kind, h)
            v["history"] = h[1]
            self.views[kind] = v
        return v

    def text(self, kind: Kind, what: str, prev: Sent | None = None) -> str:
        t = self.texts.get((kind, what))
        if t is None:
            v = self.view(kind)
            if what == "delta" and prev is not None:
                t = dumps(
                    {
                        "type": "delta",
                        "seq": self.seq,
                        "base": prev.seq,
                        "ops": diff(prev.view, v),
                    }
                )
            elif what == "full":
                t = dumps(dict(v, seq=self.seq))
            elif what == "plain":  # a connection without deltas: the state as before, no change number
                t = dumps(v)
            else:  # the same without the history (a connection that has it)
                t = dumps({k: x for k, x in v.items() if k != "history"})
            self.texts[(kind, what)] = t
        return t

    def own(self, kind: Kind) -> tuple[list[Op], str, list[str] | None]:
        """``kind``'s own part and its text: the operations that turn the public view (``view(None)``)
        into the kind's view, from what the kind may see alone (ruling 35): the host's ``own_ops``
        where it has one (made directly, the kind's view not built: a short list, one text), else the
        two views compared, each operation's text kept (``_parts``: a British seat's history steps)."""
        o = self.owns.get(kind)
        if o is None:
            pub = self.view(None)
            made = getattr(self.host, "own_ops", None)
            if kind is None:
                o = ([], "[]", None)
            elif made is not None:
                ops: list[Op] = made(kind, self.memo)
                o = (ops, dumps(ops), None)
            else:
                ops = diff(pub, self.view(kind))
                parts = _parts(ops, self.tf.split.get(kind))
                o = (ops, "[" + ",".join(parts) + "]", parts)
            self.owns[kind] = o
        return o

    def split_text(self, kind: Kind, prev: Split | None) -> str:
        """A split connection's frame (``?deltas=2``): the public delta from ``prev``'s change (made
        once per change and base, the same text for every kind whose own part did not change) with
        what changed in the kind's own part; the full state (public view, ``own``) without ``prev``."""
        what = "split" if prev is not None else "split-full"
        t = self.texts.get((kind, what))
        if t is not None:
            return t
        own, own_text, parts = self.own(kind)
        if prev is None:
            t = self.text(None, "full")
            if own:
                t = t[:-1] + ',"own":' + own_text + "}"
        else:
            t = self.pub_deltas.get(prev.seq)
            if t is None:  # (the kinds sent at one change hold the same public view: one diff)
                t = self.pub_deltas[prev.seq] = dumps(
                    {
                        "type": "delta",
                        "seq": self.seq,
                        "base": prev.seq,
                        "ops": diff(prev.pub, self.view(None)),
                    }
                )
            if (
                own_text != prev.own_text
            ):  # a short one whole (no more texts made), a long one as what changed
                if len(own_text) <= OWN_WHOLE:
                    changed = f"[[[],{own_text}]]"
                else:
                    was = prev.own if prev.own is not None else orjson.loads(prev.own_text)
                    old = prev.parts if prev.parts is not None else [dumps(o) for o in was]
                    changed = own_delta(old, parts if parts is not None else [dumps(o) for o in own])
                t = t[:-1] + ',"own":' + changed + "}"
        self.texts[(kind, what)] = t
        return t

    def send(self, conns: list[Any]) -> None:
        host, members, last, seq, mark = (
            self.host,
            self.host.members,
            self.tf.last,
            self.seq,
            self.host.history_mark,
        )
        notices, split = host.notices, self.tf.split
        notes = {c.name: notices.pop(c.name) for c in conns if c.name in notices} if notices else {}
        texts = self.texts
        for c in conns:
            name = c.name
            kind = name if name is not None and name in members else None
            if c.deltas == 2:
                sp = split.get(kind)
                text = self.split_text(
                    kind, sp if sp is not None and c.seq == sp.seq and c.kind == kind else None
                )
                c.kind, c.seq = kind, seq
            else:
                if c.deltas:
                    prev = last.get(kind)
                    what = "delta" if prev is not None and c.seq == prev.seq and c.kind == kind else "full"
                    c.kind, c.seq = kind, seq
                else:
                    what = "plain" if c.history_mark != mark else "bare"
                    c.history_mark = mark
                    prev = None
                got = texts.get((kind, what))
                text = got if got is not None else self.text(kind, what, prev)
            note = notes.get(name) if notes else None
            c.push(text if note is None else _with(text, {"notice": note}))

    def keep(self, only: bool = False) -> None:
        """Record this change's views as each kind's last; ``only``: the other kinds' stay (a change
        sent to one kind's connections), else they are dropped (no connection of theirs is left)."""
        new = {k: Sent(self.seq, v, self.texts.get((k, "full"))) for k, v in self.views.items()}
        pub = self.views.get(None)
        splits = (
            {}
            if pub is None
            else {
                k: Split(self.seq, pub, o if p is not None else None, t, p)
                for k, (o, t, p) in self.owns.items()
            }
        )
        if only:
            self.tf.last.update(new)
            self.tf.split.update(splits)
        else:
            self.tf.last = new
            self.tf.split = splits
            for k in [k for k in self.tf.history if k not in new]:
                del self.tf.history[k]


def broadcast(host: HostedTable, conns: list[Any]) -> None:
    """Every connection of the table its frame of this change."""
    ch = Change(host)
    ch.send(conns)
    ch.keep()


def welcome(host: HostedTable, conn: Any, conns: list[Any]) -> None:
    """A new connection (a spectator, a second tab: nothing changed for the others) or one that asked
    for ``resync``: the full state of its kind. Where the kind's last view is there, it is sent as it
    is (the others' next delta applies to it too), with the turn timer's seconds brought up to date;
    else the kind's view is built now and its other connections (if any) get their delta."""
    kind = kind_of(host, conn.name)
    tf = frames_of(host)
    prev = tf.last.get(kind)
    note = host.notices.pop(conn.name, None) if conn.name is not None else None
    sp = tf.split.get(kind) if conn.deltas == 2 else None
    if sp is not None and sp.pub.get("version") == host.version:  # the public view and own part held
        text = dumps(sp.pub | {"seq": sp.seq, "timer_s": host.timer_s()})
        if sp.own_text != "[]":  # (an own part: ``own`` may not be kept, its text is)
            text = text[:-1] + ',"own":' + sp.own_text + "}"
        conn.kind, conn.seq, conn.history_mark = kind, sp.seq, host.history_mark
        conn.push(_with(text, {"notice": note}) if note else text)
        return
    if conn.deltas == 2:
        prev = None  # (no split frame of this kind yet: built now, below)
    if prev is not None and prev.view.get("version") == host.version:
        timer = host.timer_s()
        seq = {"seq": prev.seq} if conn.deltas else {}
        if timer is not None or not conn.deltas:  # (the others' next delta sets theirs: the timer moves)
            text = dumps(prev.view | seq | {"timer_s": timer})
        else:
            if prev.full is None:
                prev.full = dumps(dict(prev.view, seq=prev.seq))
            text = prev.full
        conn.kind, conn.seq, conn.history_mark = kind, prev.seq, host.history_mark
        conn.push(_with(text, {"notice": note}) if note else text)
        return
    if note:
        host.notices[conn.name] = note
    ch = Change(host)
    ch.send([c for c in conns if c is conn or kind_of(host, c.name) == kind])
    ch.keep(only=True)


__all__ = [
    "Change",
    "Sent",
    "Split",
    "TableFrames",
    "broadcast",
    "dumps",
    "frames_of",
    "kind_of",
    "own_delta",
    "shown",
    "welcome",
]
