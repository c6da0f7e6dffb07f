"""What a British table shows (web/british_host.py's views): each person's legal actions (the engine's,
and the between-round verbs: sell or buy the bank, top up the kitty), the table's state for a seat or a
spectator, a seat's hint inputs, the last rounds in words and the lobby's summary.

What a seat may know (ruling 35): every view is the engine round's view for that seat (a spectator's
for anyone else), the round's steps in words only as that seat saw them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.history.words import round_words
from pontoon.money import fmt
from pontoon.protocol import SPECTATOR
from pontoon.web.felt import with_totals
from pontoon.web.hosting import HostError

if TYPE_CHECKING:
    from pontoon.web.british_host import BritishHost


def legal_for(host: BritishHost, name: str | None) -> list[dict[str, Any]]:
    g = host.game_obj
    if g is None or name not in host.members or host.members[name].absent:
        return []
    out = bank_verbs(host, name, g)
    if g.round is None:
        if g.needs_kitty and name == g.banker:
            high = min(host.rules.kitty_max, host.balance(name))
            out.insert(0, {"verb": "kitty", "low": fmt(host.rules.kitty_min), "high": fmt(high)})
        return out
    return [a.to_json() for a in g.round.legal_actions(name)] + out


def bank_verbs(host: BritishHost, name: str, g: BritishGame) -> list[dict[str, Any]]:
    """The between-round verbs (done at the next point between rounds): sell or buy the bank, top up."""
    m = host.members[name]
    if m.pending or m.leaving or name not in g.seats:
        return []
    out: list[dict[str, Any]] = []
    if name == g.banker:
        buyers = [s for s in g.seats if s != name and not host.members[s].leaving]
        if buyers:
            out.append(
                {
                    "verb": "sell_bank",
                    "low": "0",
                    "high": fmt(max(host.balance(b) for b in buyers)),
                    "buyers": buyers,
                }
            )
        if host.rules.shoot and g.kitty > 0 and host.balance(name) - host.top_up > 0:
            out.append({"verb": "top_up", "low": "0.01", "high": fmt(host.balance(name) - host.top_up)})
    else:
        o = host.offer
        if (
            o is not None
            and o["banker"] == g.banker
            and not o.get("accepted")
            and o["buyer"] in (None, name)
            and host.balance(name) >= o["price"]
        ):
            out.append({"verb": "buy_bank", "price": fmt(o["price"])})
    return out


def state_for(
    host: BritishHost, name: str | None, history: bool = True, memo: dict[str, Any] | None = None
) -> dict[str, Any]:
    out = host.base_state(name, history, memo)
    g = host.game_obj
    me = name if name in host.members else None
    rnd = None if g is None else g.round
    out["phase"] = "waiting" if g is None else ("kitty" if rnd is None else "play")
    shown = rnd if rnd is not None else (host.last_round if g is not None else None)
    if rnd is None and shown is not None and not (g is not None and g.needs_kitty):
        out["phase"] = "result"  # the last round's results on the felt until the next deal
    out["round"] = None if shown is None else with_totals(shown.view(me if me is not None else SPECTATOR))
    out["round_no"] = 0 if g is None else g.rounds_played + (1 if rnd is not None else 0)
    out["legal"] = legal_for(host, name)
    out["to_act"] = (
        None if g is None else (rnd.to_act() if rnd is not None else (g.banker if g.needs_kitty else None))
    )
    out["members"] = [dict(m.public(), balance=fmt(host.balance(m.name))) for m in host.members.values()]
    out["seats"] = host.seats
    out["banker"] = None if g is None else g.banker
    out["kitty"] = fmt(g.kitty) if g is not None and host.rules.shoot else None
    o = host.offer
    out["bank_offer"] = (
        None
        if o is None or g is None or o["banker"] != g.banker
        else {
            "banker": o["banker"],
            "buyer": o["buyer"],
            "price": fmt(o["price"]),
            "accepted": o.get("accepted"),
        }
    )
    out["top_up"] = fmt(host.top_up) if host.top_up > 0 else None
    out["limits"] = {"stake_min": fmt(host.rules.stake_min), "stake_max": fmt(host.rules.stake_max)}
    out["hints_available"] = True  # issue 27: analysis/british/hints.py, from the seat's view only
    return out


def hint_inputs(host: BritishHost, name: str) -> dict[str, Any]:
    """What ``british_hint`` needs for ``name`` to act: its own view, the public view, the public stakes
    (rul 35: nothing another seat holds face down)."""
    g = host.game_obj
    rnd = None if g is None else g.round
    if rnd is None or rnd.is_over() or rnd.to_act() != name:
        raise HostError("hints: it is not your turn to act")
    from pontoon.analysis.british.bots import initial_stakes

    return {
        "rules": rnd.rules,
        "seat": name,
        "view": rnd.view(name),
        "public": rnd.view(SPECTATOR),
        "initials": initial_stakes(rnd),
    }


def history_for(host: BritishHost, entry: dict[str, Any], name: str | None) -> dict[str, Any]:
    out = {k: v for k, v in entry.items() if not k.startswith("_")}
    out["steps"] = british_steps(entry["_round"], name if name in host.members else None)
    return out


def summary(host: BritishHost) -> dict[str, Any]:
    return {
        "id": host.id,
        "title": host.title,
        "game": host.game,
        "preset": host.rules.preset,
        "name": host.rules.name or host.rules.preset,
        "members": [m.public() for m in host.members.values()],
        "seats": host.seats,
        "rounds": 0 if host.game_obj is None else host.game_obj.rounds_played,
        "stake_min": fmt(host.rules.stake_min),
        "stake_max": fmt(host.rules.stake_max),
        "started": host.game_obj is not None,
    }


def british_steps(rnd: BritishRound, seat: str | None) -> list[str]:
    """The round's steps in words as ``seat`` may see them (history/words.py): a bought card only to
    its holder, unless its hand was exposed; the banker's hand once turned up."""
    return round_words(rnd.events(), rnd.view(seat if seat is not None else SPECTATOR), game="british")
