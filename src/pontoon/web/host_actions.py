"""What a table's host may do (docs/server.md "Hosts"): seat approval or open seating, approve or
decline a join, remove a person (with a reason he is shown), pause and resume, the turn timer and
the result pause, add and remove bots, close the table. Anyone else is answered 403 in one line;
adding and removing bots is also open to a lone person (the only person at the table).

Every call runs under the table's lock (the app's); the app then sends everyone his state."""

from __future__ import annotations

import dataclasses
import time
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pontoon.money import fmt
from pontoon.web.bots import BOT_PREFIX, check_level
from pontoon.web.hosting import HostedTable, HostError, HostForbidden
from pontoon.web.limits import minimum_buy_in
from pontoon.web.models import JoinIn, Name

BOT_STACK = Decimal(200)  # a bot's buy-in (at least the table's minimum buy-in), from its own account
MAX_BOTS = 6


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SettingsMsg(Strict):
    action: Literal["settings"]
    approval: bool | None = Field(None, description="True: a join waits for the host's approval")
    turn_timeout_s: float | None = Field(None, ge=5, le=600, description="the turn timer, seconds")
    result_pause_s: float | None = Field(None, ge=0, le=30, description="results on the felt, seconds")


class PauseMsg(Strict):
    action: Literal["pause", "resume", "close"]


class KickMsg(Strict):
    action: Literal["kick"]
    name: Name
    reason: str = Field("", max_length=200, pattern=r"^[^\x00-\x1f]*$")


class ApproveMsg(Strict):
    action: Literal["approve"]
    name: Name
    allow: bool = True


class AddBotMsg(Strict):
    action: Literal["add_bot", "fill_bots"]
    box: int | None = Field(None, ge=1, le=9, description="casino: the box (default: the first free)")
    level: str = Field(
        "simple", max_length=16, description="British: the bots' level (simple, house, solved)"
    )


class RemoveBotMsg(Strict):
    action: Literal["remove_bot"]
    name: Name


HostMsg = Annotated[
    SettingsMsg | PauseMsg | KickMsg | ApproveMsg | AddBotMsg | RemoveBotMsg, Field(discriminator="action")
]


class HostIn(Strict):
    msg: HostMsg


LONE_OK = ("add_bot", "fill_bots", "remove_bot")


def check_host(host: HostedTable, who: str, action: str) -> None:
    if host.is_host(who):
        return
    humans = [m.name for m in host.members.values() if not m.bot]
    if action in LONE_OK and humans == [who]:
        return  # a lone person fills the empty seats himself
    raise HostForbidden(
        f"{action}: only the table's host ({host.host_name or 'nobody yet'}) may do this"
        + ("; a lone player may add or remove bots" if action in LONE_OK else "")
    )


def do(srv: Any, host: HostedTable, who: str, msg: Any) -> dict[str, Any]:
    """One host action by ``who`` (the session's account); the reply's ``done`` says what happened.
    The caller closes the sockets named in ``removed`` and ``closed``."""
    check_host(host, who, msg.action)
    if msg.action == "settings":
        return kept(host, settings(host, msg))
    if msg.action in ("pause", "resume"):
        return kept(host, pause(host, msg.action == "pause"))
    if msg.action == "close":
        return {"done": "closed", "closed": True}
    if msg.action == "kick":
        return kept(host, kick(host, who, msg.name, msg.reason))
    if msg.action == "approve":
        return approve(srv, host, msg.name, msg.allow)
    if msg.action == "remove_bot":
        return remove_bot(host, msg.name)
    check_level(msg.level)
    if msg.level not in host.bot_levels():
        raise HostError(
            f"level: {msg.level!r} is not offered at this table: accepted {', '.join(host.bot_levels())}"
        )
    before, host.bot_level = host.bot_level, msg.level
    added: list[str] = []
    try:  # the level is kept with the bots added at it (their snapshot holds it: hosting.members_snapshot)
        if msg.action == "fill_bots":
            while (box := free_place(host)) is not False and len(added) < MAX_BOTS:
                added.append(add_bot(srv, host, box))
            if not added:
                raise HostError("fill_bots: no seat is free")
            return {"done": "bots added", "bots": added}
        added.append(add_bot(srv, host, msg.box))
        return {"done": "bot added", "bots": added}
    finally:
        if not added:  # nothing added: the table's bots play on at the level they had
            host.bot_level = before


def kept(host: HostedTable, out: dict[str, Any]) -> dict[str, Any]:
    """The host's choices written with the people's snapshot (his entry holds them: ``host_choices``), so
    that a table restored from the history store is run as he left it."""
    if host.host_name is not None:  # seated or not (a host not seated has an entry of his own)
        host.note_member(host.host_name, {"host_choices": True})
    return out


def settings(host: HostedTable, msg: SettingsMsg) -> dict[str, Any]:
    if msg.approval is not None:
        host.approval = msg.approval
        if not msg.approval:
            host.requests.clear()  # open seating: whoever asked joins himself now
    if msg.turn_timeout_s is not None:
        host.settings = dataclasses.replace(host.settings, turn_timeout_s=float(msg.turn_timeout_s))
    if msg.result_pause_s is not None:
        host.result_pause_s = float(msg.result_pause_s)
    host.bump()
    return {
        "done": "settings",
        "approval": host.approval,
        "turn_timeout_s": host.settings.turn_timeout_s,
        "result_pause_s": host.result_pause_s,
    }


def pause(host: HostedTable, on: bool) -> dict[str, Any]:
    if on == host.paused:
        raise HostError(f"the table is already {'paused' if on else 'running'}")
    if on:
        host.paused_left = None if host.deadline is None else max(0.0, host.deadline - time.monotonic())
        host.paused = True
        host.deadline = None
    else:
        host.paused = False
        left = getattr(host, "paused_left", None)
        host.resume()  # the game's flow again (a new round, a bot's turn, the timer)
        if left is not None and host.deadline is not None:
            host.set_timer(max(left, 5.0))  # the turn timer goes on where it stopped (5 s at least)
    host.bump()
    return {"done": "paused" if on else "resumed"}


def kick(host: HostedTable, who: str, name: str, reason: str) -> dict[str, Any]:
    if name == who:
        raise HostError("kick: leave the table instead of removing yourself")
    m = host.members.get(name)
    if m is None:
        raise HostError(f"kick: {name!r} is not at this table")
    why = reason.strip() or "no reason given"
    host.removed[name] = why
    host.notices[name] = f"the host removed you: {why}"  # on his last frame, before his socket closes
    got = host.leave(name)  # type: ignore[attr-defined]  # mid-round: played by the defaults, then paid
    host.bump()
    return {"done": "removed", "removed": name, "reason": why, "returned": None if got is None else fmt(got)}


def approve(srv: Any, host: HostedTable, name: str, allow: bool) -> dict[str, Any]:
    req = host.requests.pop(name, None)
    if req is None:
        raise HostError(
            f"approve: {name!r} has not asked to join (asked: {', '.join(host.requests) or 'nobody'})"
        )
    if not allow:
        host.bump()
        return {"done": "declined", "name": name}
    srv.lobby.join(host, name, JoinIn(**req["body"]), req["address"], session=req["session"])
    return {"done": "approved", "name": name}


def free_place(host: HostedTable) -> int | None | bool:
    """A casino table's first free box, None at a British table with a free seat, False when full."""
    if host.game == "casino":
        free = host.summary()["free_boxes"]
        return free[0] if free else False
    taken = sum(1 for m in host.members.values() if not m.leaving)
    return None if taken < host.seats else False  # type: ignore[attr-defined]


def bot_account(srv: Any, host: HostedTable, need: Decimal) -> str:
    """A bot's account: ``bot-N`` that is no person's login and holds ``need``; made when new."""
    lobby = srv.lobby
    for n in range(1, 10_000):
        name = f"{BOT_PREFIX}{n}"
        if name in host.members or srv.auth.backend.of(name) is not None:
            continue
        if any(name in t.members for t in lobby.tables.values()):
            continue
        have = lobby.balance(name)
        if have is None:  # a new bot account with the start balance, as a guest's
            lobby.accounts[name] = lobby.settings.start_balance
            lobby.store.save_account(name, lobby.settings.start_balance)
            have = lobby.settings.start_balance
        if have >= need:
            return name
    raise HostError("no bot account is free")


def add_bot(srv: Any, host: HostedTable, box: int | None) -> str:
    if sum(1 for m in host.members.values() if m.bot) >= MAX_BOTS * 2:
        raise HostError(f"add_bot: at most {MAX_BOTS * 2} bots at a table")
    place = free_place(host) if box is None else box
    if place is False:
        raise HostError("add_bot: no seat is free")
    stack = max(BOT_STACK, minimum_buy_in(host.rules))
    if host.game == "british" and host.rules.shoot:
        stack = max(stack, host.rules.kitty_max)
    name = bot_account(srv, host, stack)
    req = JoinIn(box=place if host.game == "casino" else None, buy_in=fmt(stack))
    srv.lobby.join(host, name, req, "", bot=True)
    return name


def remove_bot(host: HostedTable, name: str) -> dict[str, Any]:
    m = host.members.get(name)
    if m is None or not m.bot:
        bots = [x.name for x in host.members.values() if x.bot]
        raise HostError(f"remove_bot: {name!r} is not a bot here (bots: {', '.join(bots) or 'none'})")
    got = host.leave(name)  # type: ignore[attr-defined]
    return {"done": "bot removed", "name": name, "returned": None if got is None else fmt(got)}
