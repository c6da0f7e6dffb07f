"""Recovery after a crash: rebuild a recorded table exactly where its last committed event left it.

A table row holds a snapshot (balances, the shoe or pack order with how far it is dealt, the RNG
state) taken at the start of its latest round. ``recover_table`` restores that snapshot and then
re-executes every committed input after it (joins, wagers, "no more bets", each action with its
actor, the British kitty and bank sales) through the table itself; every event the engine makes
again must equal the committed one (``RecoveryMismatch`` names the first that does not). The result
is the same table: the same wagers, the same cards dealt and to come, the same seat to act.

Then ``policy`` decides an open round:
- ``"resume"`` (the default): the round goes on. Nothing of it was lost (every event that anyone
  saw is committed, the cards to come are the shoe's own), so the crash did not "affect the
  continuation of the round" (004 5.4) and no void is due.
- ``"interruption"``: the crash is treated as a technical interruption. Casino games: 004 5.4, the
  table declares it (``interrupt``): void with every wager returned when no outcome was established
  (5.4.2), else the round continues and is concluded (5.4.1); a round still taking wagers has no card
  dealt and nothing to void: it stays open (each wager can be withdrawn). British games: 003 has no clause for an
  interrupted deal and no walk-away rule, so the round is void and every stake returned (rulings 2's
  void). The log says which (an ``interrupted`` event citing 004 5.4, or a ``void`` event).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pontoon.british.pack import BritishPack
from pontoon.british.table import BritishGame
from pontoon.cards import parse_cards
from pontoon.casino.table import CasinoTable
from pontoon.errors import PontoonError
from pontoon.fair import FairShuffler
from pontoon.history.recorder import AnyTable, Recorder, RecoveryMismatch
from pontoon.history.store import HistoryError, Store, canon
from pontoon.protocol import BETTING, TABLE, Action, Actor
from pontoon.rules.british import BritishRules
from pontoon.rules.model import CasinoRules
from pontoon.shoe import Shoe

POLICIES = ("resume", "interruption")


@dataclass
class Recovered:
    table_id: int
    table: AnyTable
    recorder: Recorder
    replayed: int = 0  # committed events re-made and checked
    open_round: int | None = None  # the round left open by the crash, if any
    outcome: str = "none"  # none | resumed | void | continued (004 5.4.1)
    notes: list[str] = field(default_factory=list)


def rules_of(row: dict[str, Any]) -> CasinoRules | BritishRules:
    model = BritishRules if row["game"] == "british" else CasinoRules
    try:
        return model.model_validate(row["rules"])
    except Exception as err:  # pydantic's ValidationError: the stored rules no longer validate
        raise HistoryError(
            f"table {row['id']}: its stored rules do not load ({str(err).splitlines()[0]})"
        ) from None


def _build(row: dict[str, Any]) -> AnyTable:
    try:
        return _build_table(row)
    except PontoonError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as err:
        raise HistoryError(
            f"the stored tables row {row['id']}: state is not a recovery snapshot pontoon wrote "
            f"({type(err).__name__}: {str(err)[:80]}): the stored row is damaged"
        ) from None


def _build_table(row: dict[str, Any]) -> AnyTable:
    rules = rules_of(row)
    state = row["state"]
    if not state:
        raise HistoryError(f"table {row['id']} has no snapshot to recover from")
    if isinstance(rules, BritishRules):
        seats = list(state["seats"])
        pack = BritishPack(parse_cards(str(state["pack"])), packs=int(state["packs"]))
        bgame = BritishGame(rules, seats, banker=str(state["banker"]), rng=0, pack=pack)
        bgame.restore(state)
        return bgame
    shoe = Shoe.stacked_from("")  # replaced by restore
    ctable = CasinoTable(rules, rng=0, shoe=shoe)
    ctable.restore(state)
    return ctable


def _actor(data: dict[str, Any]) -> Actor:
    return TABLE if data.get("authority") == "table" else str(data["seat"])


def _exact(amount: Decimal, e: dict[str, Any]) -> Decimal:
    """``amount`` with the exact text its committed ledger row has (``5.00``, not the event's ``5``):
    the engine derives later amounts from it (an insurance win pays its stake), and the ledger text
    of those rows is hashed, so a replayed ``5`` would make a different (equal-valued) chain."""
    for t in e.get("transfers", []):
        if Decimal(str(t["amount"])) == amount:
            return Decimal(str(t["amount"]))
    return amount


def _drive_casino(t: CasinoTable, e: dict[str, Any]) -> None:
    k, d = e["kind"], e["data"]
    if e["round_no"] == 0:
        if k == "join":
            t.join(str(d["player"]), Decimal(d["balance"]))
        elif k == "leave":
            t.leave(str(d["player"]))
        else:
            raise RecoveryMismatch(f"committed table event {k} #{e['seq']} was not re-made by the table")
        return
    if k == "round_start":
        t.new_round()
    elif k == "bet":
        t.place_bet(int(d["box"]), str(d["player"]), str(d["kind"]), _exact(Decimal(d["amount"]), e))
    elif k == "withdraw":
        t.withdraw_bet(int(d["box"]), str(d["player"]), str(d["kind"]))
    elif k == "no_more_bets":
        t.deal()
    elif k == "action" and d.get("act", {}).get("verb") == "interrupt":
        t.interrupt()
    elif k == "action":
        act = Action.from_json(d["act"])
        if act.amount is not None:
            act = dataclasses.replace(act, amount=_exact(act.amount, e))
        t.act(_actor(d), act)
    else:
        raise RecoveryMismatch(
            f"committed event round {e['round_no']} #{e['seq']} {k} was not re-made by the engine"
        )


def _drive_british(g: BritishGame, e: dict[str, Any]) -> None:
    k, d = e["kind"], e["data"]
    if e["round_no"] == 0:
        if k == "kitty":
            g.put_kitty(Decimal(d["amount"]))
        elif k == "kitty_top_up":
            g.top_up_kitty(Decimal(d["amount"]))
        elif k == "bank_passes" and "sell" in e["clause"]:
            price = sum(
                (Decimal(t["amount"]) for t in e.get("transfers", []) if t["kind"] == "sale"), Decimal(0)
            )
            g.sell_bank(str(d["new"]), price)
        elif k == "seat_joins":
            g.join_seat(str(d["seat"]))
        elif k == "seat_leaves":
            g.leave_seat(str(d["seat"]))
        elif k == "bank_passes" and e["round_no"] == 0 and "banker left" in e["clause"]:
            g.leave_seat(str(d["old"]))  # the bank passing is the first event of the banker's leave_seat
        elif k == "kitty_retrieved":
            g.retrieve_kitty()
        elif k == "shoe_retired":  # between rounds only when the table closes (a reshuffle's is end_round's)
            g.close()
        else:
            raise RecoveryMismatch(f"committed table event {k} #{e['seq']} was not re-made by the table")
        return
    if k == "round_start":
        funds = d.get("funds")  # rul 33: the holdings the round checked bank cover against
        g.new_round(None if funds is None else {str(s): Decimal(str(v)) for s, v in funds.items()})
    elif k == "action":
        act = Action.from_json(d["act"])
        if act.amount is not None:
            act = dataclasses.replace(act, amount=_exact(act.amount, e))
        g.act(_actor(d), act)
    elif k == "void" and g.round is not None and not g.round.is_over():
        g.round.abandon(str(d["reason"]))  # the player left mid-round (cli/play_british.py)
        g.end_round()
    else:
        raise RecoveryMismatch(
            f"committed event round {e['round_no']} #{e['seq']} {k} was not re-made by the engine"
        )


def _book_if_over(t: AnyTable) -> None:
    if isinstance(t, CasinoTable):
        if t.in_round and t.round is not None and t.round.is_over():
            t.end_round()
    elif t.round is not None and t.round.is_over():
        t.end_round()


def _committed(store: Store, table_id: int, after_id: int) -> list[dict[str, Any]]:
    evs = store.events_(table_id, after_id=after_id)
    by_event: dict[int, list[dict[str, Any]]] = {}
    for r in store.ledger_(table_id):
        if r["event_id"] > after_id:
            by_event.setdefault(int(r["event_id"]), []).append(
                {k: r[k] for k in ("source", "dest", "amount", "kind", "player", "reason")}
            )
    for e in evs:
        e["transfers"] = by_event.get(int(e["id"]), [])
    return evs


def recover_table(
    store: Store,
    table_id: int,
    *,
    policy: str = "resume",
    fair: FairShuffler | None = None,
    shuffler: FairShuffler | None = None,
) -> Recovered:
    """Rebuild table ``table_id`` from its snapshot and committed events; attach a recorder.

    A fair table (``fair=FairShuffler(...)`` when it was made) comes back with its shuffler from the
    snapshot: the same client seed, nonce, live seed and next seed, so the same next commitment and
    reveal as without the crash. ``fair`` (``shuffler`` is its older name) is only for a table that was
    recorded without one: it deals its next shoe (casino) or pack (British) from this shuffler; the
    shoe in play is restored from the store either way. A fair table ignores it."""
    if policy not in POLICIES:
        raise HistoryError(f"recovery policy {policy!r}: accepted {', '.join(POLICIES)}")
    extra = fair if fair is not None else shuffler
    if extra is not None and not isinstance(extra, FairShuffler):
        raise HistoryError(f"recover: fair must be a pontoon.fair.FairShuffler, not a {type(extra).__name__}")
    row = store.table(table_id)
    table = _build(row)
    expect = _committed(store, table_id, int(row["state_event"]))
    rec = Recorder(store, table, table_id=table_id, expect=expect)
    out = Recovered(table_id, table, rec)
    drive = _drive_british if isinstance(table, BritishGame) else _drive_casino
    try:
        while rec.expect:
            _book_if_over(table)
            if not rec.expect:
                break
            head = rec.expect[0]
            before = len(rec.expect)
            drive(table, head)  # type: ignore[arg-type]
            if len(rec.expect) == before:
                raise RecoveryMismatch(f"re-executing {head['kind']} #{head['seq']} made no event")
    except RecoveryMismatch:
        rec.detach()
        raise
    except PontoonError as err:
        rec.detach()
        raise RecoveryMismatch(
            f"table {table_id}: a committed input is refused on re-execution: {err}"
        ) from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError) as err:
        rec.detach()  # a committed event whose data is JSON but not of the shape pontoon writes
        raise RecoveryMismatch(
            f"table {table_id}: a stored event cannot be re-executed ({type(err).__name__}: "
            f"{str(err)[:80]}): a stored events row is damaged"
        ) from None
    out.replayed = len(expect)
    if extra is not None and table.fair is None:  # after the replay: the committed shoes were not fair
        table.fair = extra
    _book_if_over(table)  # a round over whose booking (British: the bank passing) was not committed
    if table.in_round and table.round is not None:
        out.open_round = table.rounds_played + 1
        out.outcome = "resumed"
        if policy == "interruption":
            out.outcome = _interrupt(table)
            _book_if_over(table)
        out.notes.append(f"round {out.open_round}: {out.outcome}")
    return out


def _interrupt(table: AnyTable) -> str:
    if isinstance(table, CasinoTable):
        if table.round is not None and table.round.to_act() is BETTING:
            return "resumed"  # wagers still open, no card dealt: nothing to void; each can be withdrawn
        res = table.interrupt()  # 004 5.4: void before any outcome (5.4.2), else continue (5.4.1)
        return "void" if res == "void" else "continued"
    rnd = table.round
    assert rnd is not None
    # 003 has no clause to continue an interrupted deal and no walk-away rule: void, stakes returned
    rnd.abandon("technical interruption: the table stopped mid-round (void, every stake returned: rulings 2)")
    table.end_round()
    return "void"


def recover(
    store: Store,
    *,
    policy: str = "resume",
    label: str | None = None,
    fair: Callable[[], FairShuffler] | None = None,
    shuffler: Callable[[], FairShuffler] | None = None,
) -> list[Recovered]:
    """Rebuild every open table (optionally only those with ``label``), oldest first. Fair tables
    bring their shuffler back from the store; ``fair`` (older name ``shuffler``) makes one for each
    table recorded without one (a factory: each table needs its own)."""
    make = fair if fair is not None else shuffler
    if isinstance(make, FairShuffler) or (make is not None and not callable(make)):
        raise HistoryError(
            "recover: fair= is a factory (e.g. FairShuffler, or lambda: FairShuffler(...)): "
            "each table needs its own shuffler; fair tables bring theirs back from the store"
        )
    return [
        recover_table(store, int(t["id"]), policy=policy, fair=make() if make is not None else None)
        for t in store.tables_(status="open", label=label)
    ]


def shoe_record(store: Store, shoe_id: int) -> dict[str, Any]:
    """A shoe by its id (``shoes.id``; a British fair pack has one too): its table events
    (``new_shoe``, with the fair shuffle's commitment where it wrote one, and ``shoe_retired`` with
    the revealed seed), the rounds dealt from it and the cards dealt, in order. Its full order is
    included only once it is retired (a ``shoe_retired`` event, or a later shoe at the table): never
    while cards are still to come. A retired fair shoe also has ``record``: what
    ``pontoon.fair.verify_record`` takes (``pontoon verify SHOE``)."""
    from sqlalchemy import select

    from pontoon.history import schema as sc

    with store.snapshot() as conn:  # one consistent read: the shoe, its table's events
        row = conn.execute(select(sc.shoes).where(sc.shoes.c.id == shoe_id)).mappings().first()
        if row is None:
            raise HistoryError(f"no shoe {shoe_id} in the history at {store.url}")
        return shoe_record_of(store, int(row["table_id"]), int(row["number"]), shoe_id=shoe_id)


def _walk_shoe(events: list[dict[str, Any]], shoe_no: int) -> dict[str, Any]:
    """The table's events in order: shoe ``shoe_no``'s own table events, the cards drawn while it was
    in use (a British pack: only its first ``cards`` draws; later ones are used cards that came back
    to the bottom, 003), the rounds they were dealt in, and whether it is retired."""
    mine: list[dict[str, Any]] = []
    dealt: list[str] = []
    rounds: list[int] = []
    live = retired = False
    size: int | None = None
    for e in events:
        k, d = e["kind"], e["data"]
        if e["round_no"] == 0 and k in ("new_shoe", "shoe_retired"):
            if d.get("shoe") == shoe_no:
                mine.append({"seq": e["seq"], "kind": k, "data": d, "clause": e["clause"]})
                live = k == "new_shoe"
                retired = retired or k == "shoe_retired"
                size = int(d["cards"]) if k == "new_shoe" and "cards" in d else size
            elif k == "new_shoe":
                retired = retired or live  # a later shoe replaced it (a table without reveals)
                live = False
        elif live and e["round_no"] > 0 and k in ("card", "draw") and (size is None or len(dealt) < size):
            dealt.append(str(d["card"]))
            if not rounds or rounds[-1] != e["round_no"]:
                rounds.append(int(e["round_no"]))
    return {"events": mine, "dealt": dealt, "rounds": rounds, "retired": retired}


def shoe_record_of(
    store: Store, table_id: int, shoe_no: int, *, shoe_id: int | None = None
) -> dict[str, Any]:
    """``shoe_record`` by table and shoe number."""
    from pontoon.fair import SCHEME

    row = store.table(table_id)
    try:
        walk = _walk_shoe(store.events_(table_id), shoe_no)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise HistoryError(
            f"table {table_id}: a stored shoe or card event is not of the shape pontoon writes "
            f"({type(err).__name__}: {str(err)[:80]}): a stored events row is damaged"
        ) from None
    mine = store.shoes_(table_id, shoe_no)
    if not walk["events"] and not mine:
        raise HistoryError(f"table {table_id} has no shoe {shoe_no}")
    if shoe_id is None and mine:
        shoe_id = int(mine[0]["id"])
    out: dict[str, Any] = {
        "shoe_id": shoe_id,
        "table": table_id,
        "preset": row["preset"],
        "shoe": shoe_no,
        "events": walk["events"],
        "rounds": walk["rounds"],
        "dealt": walk["dealt"],
        "retired": walk["retired"],
    }
    if walk["retired"] and mine:
        out["cards"] = str(mine[0]["cards"]).split()
    new = next((e["data"] for e in walk["events"] if e["kind"] == "new_shoe"), None)
    reveal = next((e["data"] for e in walk["events"] if e["kind"] == "shoe_retired"), None)
    if new is not None and reveal is not None and new.get("scheme") == SCHEME and "server_seed" in reveal:
        rec = {k: new.get(k) for k in ("scheme", "client_seed", "nonce", "commitment", "pack", "decks")}
        rec.update(server_seed=reveal.get("server_seed"), dealt=list(walk["dealt"]))
        if shoe_id is not None:
            rec["shoe"] = shoe_id
        out["record"] = rec
    return out


__all__ = [
    "POLICIES",
    "Recovered",
    "recover",
    "recover_table",
    "shoe_record",
    "shoe_record_of",
    "rules_of",
    "canon",
]
