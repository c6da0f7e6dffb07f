"""A seat's ``{"type": "hints"}``: the analyser's exact expectation of each legal verb for the hand to
act (casino; British: issue 27), worked out on the hints' lane (web/workers.py) by a task of its own.

The connection's messages go on meanwhile: a British split hint takes 10-20 s, and awaited in the
connection's loop it held back that person's own moves (a stand sent after it waited for the hint). One
hint per connection at a time, one per table in the lane, a bounded line: past them the answer is an
error frame "hints busy: ..." at once, never an unbounded wait. A connection that closes cancels its
wait (the thread runs on and keeps its place in the lane till it ends: the bounds count real work).

Every answer (the hints, an error) goes through the server's ordered push (``Server.push``,
web/coalesce.py): pushed while the table's broadcast is due, it goes out right after that broadcast's
frames, never before the state it follows (a refusal answered at once, in the turn of a wager)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from pontoon.errors import PontoonError
from pontoon.web.replies import one_line
from pontoon.web.workers import Busy

log = logging.getLogger("pontoon.web")
HINT_S = 120.0  # a hint not worked out in this long is answered "unavailable" (its thread runs on)


def _error(srv: Any, host: Any, conn: Any, message: str) -> None:
    srv.push(host, conn, json.dumps({"type": "error", "error": one_line(message[:500])}))


def ask(srv: Any, host: Any, conn: Any) -> None:
    """Answer at once what is refused; else start the hint's task (``conn.hint``)."""
    if host.game not in ("casino", "british"):
        _error(srv, host, conn, "hints: the exact-EV hints are for the casino and British games")
        return
    if conn.hint is not None and not conn.hint.done():
        _error(
            srv, host, conn, "hints busy: your last hint is still being worked out; it is answered when done"
        )
        return
    why = srv.workers.hints.busy(host.id)
    if why is not None:
        _error(srv, host, conn, f"hints busy: {why}")
        return
    conn.hint = asyncio.get_running_loop().create_task(_answer(srv, host, conn))


async def _answer(srv: Any, host: Any, conn: Any) -> None:
    try:
        await _hint(srv, host, conn)
    except Exception:  # a bug in one hint must not go unsaid (nor unlogged: this task is not awaited)
        log.exception("table %s: %s's hint", host.id, conn.name)
        _error(srv, host, conn, "hints unavailable: the analyser failed on this hand")


async def _hint(srv: Any, host: Any, conn: Any) -> None:
    async with srv.lock(host.id):
        try:
            inputs = host.hint_inputs(conn.name or "")
        except PontoonError as err:  # (every answer to a hint starts "hints": the page's one hint at a time)
            _error(srv, host, conn, str(err) if str(err).startswith("hints") else f"hints: {err}")
            return
        version = host.version
    from pontoon.analysis.hints import action_values

    try:  # the hints' own lane: one per table at a time, a bounded line, else "busy"
        if host.game == "british":
            from pontoon.analysis.british.hints import british_hint

            hint = await srv.workers.hints.run(lambda: british_hint(**inputs), key=host.id, timeout=HINT_S)
            values = hint["values"]
        else:
            values = await srv.workers.hints.run(lambda: action_values(**inputs), key=host.id, timeout=HINT_S)
    except Busy as err:
        _error(srv, host, conn, f"hints busy: {err}")
        return
    except (PontoonError, TimeoutError) as err:
        _error(srv, host, conn, f"hints unavailable: {err or 'the analyser took too long'}")
        return
    clean = {k: (None if v != v else round(v, 6)) for k, v in values.items()}
    srv.push(host, conn, json.dumps({"type": "hints", "version": version, "values": clean}))
