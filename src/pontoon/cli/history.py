"""``pontoon history`` (list rounds, one round in full, ``--audit``) and ``pontoon replay ROUND``.

Every reader opens an existing database only: a missing file, a bad URL or a corrupt database is one
line and exit 2; a replay or audit that finds a difference prints it and exits 1.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table

from pontoon.cli.dbopts import check_db
from pontoon.cli.limits import check_id
from pontoon.errors import PontoonError
from pontoon.money import dumps, fmt

if TYPE_CHECKING:  # the history stack (SQLAlchemy) is imported only when a command runs
    from pontoon.history.store import Store


def open_existing(db: str | None) -> Store:
    """A reader's store: an existing history, opened read-only (nothing is written: no schema, no
    migration, no WAL switch); an empty or foreign database is refused (``open_store``)."""
    from pontoon.history.store import default_url, open_store

    return open_store(db or default_url(), readonly=True)


def _round_id(text: str) -> int:
    from pontoon.history.store import HistoryError

    if not (text.isascii() and text.isdigit()) or len(text) > 19 or not 0 < int(text) < 2**62:
        shown = repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text)} characters)"
        raise HistoryError(
            f"round {shown}: a round is given by its id, a whole number from 1 to 2**62-1 (see `pontoon history`)"
        )
    return int(text)


def _print_hold(console: Console, store: Store, table: int | None, as_json: bool) -> None:
    """``--hold``: recorded hold per wager kind against theory (history/hold.py, analysis/hold.py)."""
    from pontoon.analysis.hold import hold_rows
    from pontoon.history.hold import recorded_hold
    from pontoon.rules.model import CasinoRules

    ids = [table] if table is not None else [t["id"] for t in store.tables_()]
    out = []
    for tid in ids:
        t = store.table(tid)  # an unknown table is an error
        if t["game"] != "casino":
            out.append({"table": tid, "preset": t["preset"], "note": "no house edge for a British game"})
            continue
        rules = CasinoRules.model_validate(t["rules"])
        out.append(
            {"table": tid, "preset": t["preset"], "wagers": hold_rows(rules, recorded_hold(store, tid))}
        )
    if as_json:
        typer.echo(dumps(out, indent=1))
        return
    tab = Table(title="hold against theory (95% interval)", header_style="bold cyan")
    for col in ("table", "preset", "wager", "rounds", "initial", "hold", "theory", "95% interval", ""):
        tab.add_column(col)
    for t in out:
        for w in t.get("wagers", []) or [{"kind": "-", "rounds": "", "note": t.get("note", "")}]:
            if "hold" not in w:
                tab.add_row(
                    str(t["table"]),
                    t["preset"],
                    w["kind"],
                    str(w["rounds"]),
                    "",
                    "",
                    "",
                    w.get("note", ""),
                    "",
                )
                continue
            lo, hi = w["interval"]
            tab.add_row(
                str(t["table"]), t["preset"], w["kind"], str(w["rounds"]), fmt(w["initial"]),
                f"{w['hold'] * 100:.2f}%", f"{w['theory'] * 100:.2f}%", f"{lo * 100:.2f}% .. {hi * 100:.2f}%",
                "[bold red]OUTSIDE[/]" if w["outside"] else "ok",
            )  # fmt: skip
    console.print(tab)


def _check_what(round_: str | None, table: int | None, do_audit: bool, drills: bool) -> None:
    """One thing is shown at a time: a round, the list, the drills or the audit (issue 29 item 7:
    the options that do not apply were ignored)."""
    if do_audit and (round_ is not None or table is not None or drills):
        raise PontoonError("--audit checks the whole database: leave out ROUND, --table and --drills")
    if drills and (round_ is not None or table is not None):
        raise PontoonError("--drills lists drill sessions: leave out ROUND and --table")
    if round_ is not None:
        _round_id(round_)  # a bad id is told before the database is opened


def _net_text(net: dict[str, Decimal]) -> str:
    return ", ".join(f"{p} {'+' if v > 0 else ''}{fmt(v)}" for p, v in net.items())


def history_command(
    round_: str = typer.Argument(
        None, metavar="[ROUND]", help="a round id: show every card, decision and payment"
    ),
    db: str = typer.Option(
        None, "--db", help="database URL (default: $PONTOON_DB or the user data directory)"
    ),
    table: int = typer.Option(None, "--table", help="only this table's rounds"),
    last: int = typer.Option(10, "--last", help="how many rounds to list (newest last)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of a table"),
    do_audit: bool = typer.Option(
        False, "--audit", help="meters from the ledger, checked against balances and hash chains"
    ),
    drills: bool = typer.Option(
        False, "--drills", help="list the saved `pontoon train` sessions instead of rounds"
    ),
    hold: bool = typer.Option(
        False, "--hold", help="each table's hold per wager kind against theory and its 95% interval"
    ),
    words: bool = typer.Option(
        False, "--words", help="with ROUND: the round in a player's words, cards as symbols"
    ),
    as_seat: str = typer.Option(
        None, "--as", help="with --words: as this seat saw it (default: a spectator, what was exposed)"
    ),
    export: str = typer.Option(
        None, "--export", help="with --table: the session as json (replayable) or csv (one row per wager)"
    ),
) -> None:
    """Recall recorded rounds: the list, one round in full, the audit, or the hold against theory."""
    from pontoon.history.audit import audit, list_rounds, round_detail

    if not 1 <= last <= 1_000_000:
        raise PontoonError(f"--last {last}: give 1 to 1000000 rounds")
    check_id(table, "--table", "a table")
    _check_what(round_, table, do_audit, drills)
    if (words or as_seat is not None) and round_ is None:
        raise PontoonError("--words and --as show one round: give ROUND (see `pontoon history`)")
    if export is not None and (export not in ("json", "csv") or table is None or round_ is not None):
        raise PontoonError(
            f"--export {export[:20]!r}: give --export json or --export csv with --table ID (no ROUND)"
        )
    if as_seat is not None and not words:
        raise PontoonError("--as chooses whose view --words uses: add --words")
    check_db(db)
    console = Console(highlight=False)
    store = open_existing(db)
    try:
        if do_audit:
            from pontoon.history.store import HistoryError

            try:
                rep = audit(store)
            except HistoryError as err:
                typer.echo(f"audit failed: {err}", err=True)
                raise typer.Exit(1) from None
            _print_audit(console, rep, as_json)
            return
        if hold:
            if round_ is not None:
                raise PontoonError("--hold reports tables: leave out ROUND (use --table ID for one table)")
            _print_hold(console, store, table, as_json)
            return
        if drills:
            _print_drills(console, store, last, as_json)
            return
        if export is not None:
            _print_export(store, int(table), export)
            return
        if round_ is not None and words:
            _print_words(store, _round_id(round_), as_seat, as_json)
            return
        if round_ is not None:
            detail = round_detail(store, _round_id(round_))
            if table is not None and detail["table"] != table:
                raise PontoonError(
                    f"round {detail['id']} was played at table {detail['table']}, not --table {table}: "
                    "leave out --table, or give a round of that table"
                )
            if as_json:
                typer.echo(dumps(detail, indent=1))
            else:
                _print_round(console, detail)
            return
        if table is not None:
            store.table(table)  # an unknown table is an error, not an empty list
        rows = list_rounds(store, table_id=table, last=last)
        if as_json:
            typer.echo(dumps(rows, indent=1))
            return
        t = Table(title=f"last {len(rows)} rounds", header_style="bold cyan")
        for col in ("id", "time", "preset", "table/round", "shoe", "seats", "result"):
            t.add_column(col)
        for r in rows:
            res = r["status"] if r["status"] != "settled" else _net_text(r["net"])
            if r["status"] == "void" and r["void_reason"]:
                res = f"void: {r['void_reason']}"
            t.add_row(
                str(r["id"]),
                str(r["time"])[:19].replace("T", " "),
                r["preset"],
                f"{r['table']}/{r['round']}",
                "" if r["shoe"] is None else str(r["shoe"]),
                ", ".join(r["seats"]),
                res,
            )
        console.print(t)
    finally:
        store.close()


def _print_export(store: Store, table: int, fmt_: str) -> None:
    from pontoon.history.export import session_export, session_ledger, wagers_csv

    store.table(table)  # an unknown table is an error
    doc = session_export(store, [table])
    if fmt_ == "csv":
        typer.echo(wagers_csv(doc), nl=False)
        return
    doc["ledger"] = session_ledger(doc)
    typer.echo(dumps(doc, indent=1))


def _print_words(store: Store, rid: int, seat: str | None, as_json: bool) -> None:
    from pontoon.history.words import stored_round_words
    from pontoon.replay import ReplayMismatch

    try:
        got = stored_round_words(store, rid, seat)
    except ReplayMismatch as err:
        raise PontoonError(f"round {rid} cannot be told in words: {err}") from None
    if as_json:
        typer.echo(dumps(got, indent=1))
        return
    who = f"as {seat} saw it" if seat else "as a spectator saw it"
    typer.echo(f"round {rid} (table {got['table']}, round {got['round']}, {got['preset']}), {who}:")
    for line in got["words"]:
        typer.echo(f"  {line}")


def _print_drills(console: Console, store: Store, last: int, as_json: bool) -> None:
    from pontoon.history.drills import list_drills

    rows = list_drills(store, last=last)
    if as_json:
        typer.echo(dumps(rows, indent=1))
        return
    t = Table(title=f"last {len(rows)} drill sessions", header_style="bold cyan")
    for col in (
        "id",
        "time",
        "rules",
        "only",
        "hands",
        "correct",
        "accuracy",
        "cost/100 hands",
        "worst spot",
    ):
        t.add_column(col)
    for r in rows:
        worst = r["worst"][0] if r["worst"] else None
        spot = f"{worst['spot']}: {worst['answer']} (best {worst['best']}, {worst['cost']})" if worst else ""
        t.add_row(
            str(r["id"]),
            str(r["created"])[:19].replace("T", " "),
            r["rules"],
            r["only"],
            str(r["hands"]),
            f"{r['correct']}/{r['decisions']}",
            f"{100 * r['accuracy']:.1f}%",
            str(r["cost_per_100"]),
            spot,
        )
    console.print(t)


def _account_label(acct: Any) -> str:
    """A ledger row's account as the table shows it: a name, or ``<box 1>`` for a structured one (a
    damaged store's odd value, an empty mapping included, shows as it is rather than failing)."""
    if isinstance(acct, str):
        return acct
    if isinstance(acct, dict):
        return "<" + ", ".join(str(v) for v in acct.values()) + ">"
    return f"<{acct}>"


def _print_round(console: Console, d: dict[str, Any]) -> None:
    console.print(
        f"[bold]round {d['id']}[/bold] (table {d['table']}, round {d['round']}, {d['preset']}): {d['status']}"
    )
    if d.get("shoe") is not None:
        console.print(f"dealt from shoe {d['shoe']} (once it is retired: pontoon verify {d['shoe']})")
    for e in d["events"]:
        body = " ".join(f"{k}={_value_text(v)}" for k, v in e["data"].items())
        clause = f"  [dim][{e['clause']}][/dim]" if e["clause"] else ""
        console.print(f"#{e['seq']:>3} {e['kind']:<14} {body}{clause}")
        for t in e["transfers"]:
            src, dst = _account_label(t["source"]), _account_label(t["dest"])
            console.print(f"      [green]{t['amount']}[/green] {src} -> {dst} ({t['kind']}: {t['reason']})")
    if d["result"]:
        console.print(f"result: {d['result'].get('status')}  net: {_result_net_text(d['result'].get('net'))}")


def _value_text(v: Any) -> str:
    """An event field as words, not Python's dict text: ``box 1 verb stand``, ``you, ann``."""
    if isinstance(v, dict):
        return "(" + " ".join(f"{k} {_value_text(x)}" for k, x in v.items()) + ")"
    if isinstance(v, list | tuple):
        return ",".join(_value_text(x) for x in v)
    return str(v)


def _signed(v: Any) -> str:
    try:
        d = Decimal(str(v))
    except (ArithmeticError, ValueError):
        return str(v)
    return f"{'+' if d > 0 else ''}{fmt(d)}"


def _result_net_text(net: Any) -> str:
    """The result's net per player: ``you +10 (main +10)``; a damaged value shows as it is."""
    if not isinstance(net, dict) or not net:
        return "none" if not net else str(net)
    parts = []
    for who, v in net.items():
        if isinstance(v, dict):
            kinds = ", ".join(f"{k} {_signed(x)}" for k, x in v.items() if k != "total")
            total = _signed(v.get("total", "?"))
            parts.append(f"{who} {total}" + (f" ({kinds})" if kinds else ""))
        else:
            parts.append(f"{who} {_signed(v)}")
    return "; ".join(parts)


def _print_audit(console: Console, rep: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(dumps(rep, indent=1))
        return
    t = Table(title="meters (from the ledger)", header_style="bold cyan")
    cols = ["wagered", "returned", "collected", "paid"]
    t.add_column("kind")
    for c in cols:
        t.add_column(c, justify="right")
    for kind, d in sorted(rep["meters"]["kinds"].items()):
        if kind != "cashier":
            t.add_row(kind, *(fmt(d.get(c, Decimal(0))) for c in cols))
    tot = rep["meters"]["total"]
    t.add_row("[bold]total[/bold]", *(fmt(tot.get(c, Decimal(0))) for c in cols))
    console.print(t)
    c = rep["checked"]
    console.print(
        f"audit ok: {c['tables']} tables, {c['events']} events in unbroken hash chains "
        f"({c.get('sealed', 0)} sealed heads verified with the key), {c['ledger_rows']} "
        f"ledger rows, {c['accounts']} account balances equal their ledger sums; integrity {rep['integrity']}"
    )


def replay_command(
    round_: str = typer.Argument(None, metavar="[ROUND]", help="a round id (see `pontoon history`)"),
    db: str = typer.Option(
        None, "--db", help="database URL (default: $PONTOON_DB or the user data directory)"
    ),
    export: str = typer.Option(
        None, "--export", help="replay every round of an exported session file instead (docs/export.md)"
    ),
) -> None:
    """Re-run a stored round through the engine: cards, money and views must agree (exit 1 if not)."""
    from pontoon.history.audit import ReplayMismatch, replay_round

    if (round_ is None) == (export is None):
        raise PontoonError("give a ROUND of the history database or --export FILE (one of them)")
    if export is not None:
        _replay_file(export, db)
        return
    rid = _round_id(round_)
    check_db(db)
    store = open_existing(db)
    try:
        try:
            rep = replay_round(store, rid)
        except ReplayMismatch as err:
            typer.echo(f"replay differs: {err}", err=True)
            raise typer.Exit(1) from None
    finally:
        store.close()
    n = rep.get("cards_checked")
    typer.echo(
        f"round {rid} replayed: {rep['events']} events, {rep['transfers']} ledger rows and {rep['views']} views "
        f"agree ({rep['status']}); "
        + (
            "its shoe is not a provably fair one: its cards are not checked against a commitment"
            if n is None
            else f"the {n} cards dealt from its shoe are its committed order (checked against its commitment)"
        )
    )


def _replay_file(path: str, db: str | None) -> None:
    import json
    from pathlib import Path

    from pontoon.history.export import replay_export
    from pontoon.history.verify_export import check_export, summary
    from pontoon.replay import ReplayMismatch

    if db is not None:
        raise PontoonError("--export replays a file: leave out --db")
    f = Path(path)
    if not f.is_file():
        raise PontoonError(
            f"--export {path[:120]!r}: no such file (give a file written by `pontoon history --export json`)"
        )
    if f.stat().st_size > 256 * 1024 * 1024:
        raise PontoonError(f"--export {path[:120]!r}: over 256 MiB; export fewer rounds")
    try:
        doc = json.loads(f.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise PontoonError(f"--export {path[:120]!r}: not JSON ({str(err)[:80]})") from None
    try:
        rep = replay_export(doc)
        cards = check_export(doc)  # the cards themselves against each retired shoe's commitment
    except ReplayMismatch as err:
        typer.echo(f"replay differs: {err}", err=True)
        raise typer.Exit(1) from None
    left = rep.get("withheld", 0)
    typer.echo(
        f"{rep['rounds']} rounds replayed from {f.name}: {rep['events']} events and {rep['transfers']} "
        "ledger rows agree"
        + (
            f"; {left} rounds of a pack still in play left out (their cards withheld: ruling 35)"
            if left
            else ""
        )
    )
    typer.echo(f"cards: {summary(cards)}")
