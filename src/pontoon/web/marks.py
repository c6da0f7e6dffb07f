"""What the lobby and the table show everyone about a table beyond its preset (issue 28 items 2, 6).

- ``test_mode``: the table was made with a fixed seed, so its shuffle is predictable card by card
  (ruling 36); only a server started with ``--test-mode`` makes such tables, and they say so.
- ``custom``: the table plays a rules file, not a preset as published: the fields that differ from
  the preset it is based on, and (casino) the analyser's exact house edge of the main game and of each
  side bet (``pontoon.analysis``: computed once per rules, cached, off the event loop). The operator
  allows custom rules (``--custom-rules``) within a bound on the player's exact edge
  (``--max-player-edge``); a rules file the player would beat beyond it is refused.

Every text a table shows (its name, its rules' name, a custom field's text) is bounded here, on the
server: at most ``MAX_TEXT`` characters, no control characters and none of ``<>&``.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from typing import Any

from pontoon.errors import PontoonError
from pontoon.rules import find_rules
from pontoon.rules.model import CasinoRules

MAX_TEXT = 40
_BAD_TEXT = re.compile(r"[\x00-\x1f\x7f<>&\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")


class MarkError(PontoonError):
    """Custom rules refused by the operator's settings, or a text the page would show refused."""


def check_text(what: str, text: str) -> str:
    """A displayed text within bounds, or a one-line refusal naming what is accepted."""
    if len(text) > MAX_TEXT or _BAD_TEXT.search(text):
        raise MarkError(
            f"{what} {text[:20]!r}...: a displayed text is at most {MAX_TEXT} characters, "
            "without control characters or <, >, &"
            if len(text) > MAX_TEXT
            else f"{what} {text!r}: a displayed text has no control characters, invisible characters or <, >, &"
        )
    return text


def differs(rules: Any) -> dict[str, Any]:
    """The rule fields whose value differs from the preset the rules are based on (JSON values)."""
    base = find_rules(rules.preset).model_dump(mode="json")
    mine = rules.model_dump(mode="json")
    return {k: v for k, v in mine.items() if base.get(k) != v}


@functools.lru_cache(maxsize=64)
def _edge_of(rules_json: str) -> dict[str, Any]:
    from pontoon.analysis.sidebets import side_bets
    from pontoon.analysis.strategy import solve

    rules = CasinoRules.model_validate(json.loads(rules_json))
    sol = solve(rules, None)
    _SOLVED.add(rules_json)
    sides = {k: round(float(v["house_edge"]), 8) for k, v in side_bets(rules).items() if "house_edge" in v}
    return {"house_edge": round(-float(sol.ev_optimal), 8), "side_bets": sides}


def exact_edge(rules: Any) -> dict[str, Any] | None:
    """The analyser's exact house edge (optimal play; a fraction of the wager) of the main game and
    each side bet, for casino rules (None for the British game: players bank against each other,
    the house holds no wager). Cached per rules: the same rules are solved once. Slow the first time
    (seconds): call it off the event loop (``asyncio.to_thread``)."""
    if not isinstance(rules, CasinoRules):
        return None
    return _edge_of(json.dumps(rules.model_dump(mode="json"), sort_keys=True))


def spec_marks(spec: dict[str, Any], rules: Any) -> dict[str, Any]:
    """The marks of another process's table from its stored spec (its edge if solved here already)."""
    edge = None
    if isinstance(rules, CasinoRules) and differs(rules):
        key = json.dumps(rules.model_dump(mode="json"), sort_keys=True)
        edge = _edge_of(key) if key in _SOLVED else {"house_edge": None, "side_bets": {}}
    return {"test_mode": bool(spec.get("seeded")), "custom": custom_mark(rules, edge)}


_SOLVED: set[str] = set()  # the rules solved in this process (a lookup then costs nothing)


def mark_custom_later(host: Any) -> None:
    """A recovered or adopted custom table (possibly on the event loop: a lease takeover): marked at
    once with its differences, its exact edge filled in by a worker thread (seconds the first time)."""
    rules = host.rules
    if not differs(rules):
        return
    if not isinstance(rules, CasinoRules):
        host.marks = dict(host.marks, custom=custom_mark(rules, None))
        return
    key = json.dumps(rules.model_dump(mode="json"), sort_keys=True)
    if key in _SOLVED:
        host.marks = dict(host.marks, custom=custom_mark(rules, _edge_of(key)))
        return
    host.marks = dict(host.marks, custom=custom_mark(rules, {"house_edge": None, "side_bets": {}}))

    def solve_it() -> None:
        try:
            host.marks = dict(host.marks, custom=custom_mark(rules, _edge_of(key)))
        except PontoonError:  # the analyser refused these rules: the mark keeps its differences
            pass

    threading.Thread(target=solve_it, name=f"edge-{host.id}", daemon=True).start()


def custom_mark(rules: Any, edge: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``custom`` mark of a table of these rules (None: the preset as published)."""
    diff = differs(rules)
    if not diff:
        return None
    shown = {k: (v if len(json.dumps(v)) <= 80 else json.dumps(v)[:77] + "...") for k, v in diff.items()}
    out: dict[str, Any] = {"based_on": rules.preset, "differs": shown}
    if edge is None:
        out["house_edge"] = None
        out["note"] = "British: the players bank against each other; the house holds no wager"
    else:
        out.update(edge)
    return out


def check_custom(rules: Any, edge: dict[str, Any] | None, allowed: bool, max_player_edge: float) -> None:
    """Refuse custom rules where the operator does not allow them, or where the player's exact edge
    (main game or a side bet) is above the operator's bound; refuse an unbounded displayed text."""
    diff = differs(rules)
    if not diff:
        return
    if not allowed:
        raise MarkError(
            "custom rules (a rules file differing from its preset in "
            f"{', '.join(sorted(diff)[:5])}) are not allowed on this server: pick a preset, or the "
            "operator starts it with --custom-rules"
        )
    for k, v in diff.items():  # the rules' name above all: the lobby shows it (a preset's own is known)
        if isinstance(v, str):
            check_text(f"rules field {k}", v)
    if edge is None:
        return
    worst = [("main game", -edge["house_edge"])] + [(k, -e) for k, e in edge["side_bets"].items()]
    for what, player_edge in worst:
        if player_edge > max_player_edge:
            raise MarkError(
                f"custom rules refused: the player's exact edge on the {what} is {player_edge:.4%}, "
                f"above this server's bound of {max_player_edge:.4%} (--max-player-edge)"
            )
