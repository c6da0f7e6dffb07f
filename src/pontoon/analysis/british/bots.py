"""British bots at levels (issue 27 item 6): ``simple``, ``house`` and ``solved``, each usable wherever
``pontoon.british.bots.Bots`` is (the same ``decide(rnd)``, ``prepare_table``, ``kitty_for``).

- ``simple``: ``pontoon.british.bots.Bots()``, the documented rule-of-thumb policies.
- ``house``: the banker plays the documented house banker of the analysis (twists below 17, his best total,
  stays on 17 or more, whatever the players show; never doubles); the players play the exact best response
  to it in the heads-up model (the play the analysis's "house banker" edge is measured against).
- ``solved``: both sides play the heads-up solution (``strategy.solved``); a mixed decision is sampled with
  the injected numpy Generator. With several live hands against him the banker compares, per hand, the
  exact heads-up values of staying and of twisting (the posterior over that hand's face-down cards given
  what he sees of it, the solution's continuation), summed over the hands weighted by their initial stakes
  (an approximation: docs/analysis.md "Several players").

Every decision reads the seat's own view (``rnd.view(seat)``), the public view (which cards are face up,
``rnd.view(SPECTATOR)``) and the public stake events (each hand's initial stake) only: ruling 35. What the
heads-up model does not cover (stakes other than the table minimum, shoot bets, splits, burns, the banker's
double, a state off the buy grid such as a human's odd buy) is decided by the simple policy; but the banker
facing a split heads-up plays the profile's play there (``split_bots``: his own cards only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

import numpy as np

from pontoon.analysis.british.game import Hand, banker_can_twist, best, check_seats
from pontoon.analysis.british.infosets import HIDDEN, buys_of, card_class
from pontoon.analysis.british.solve import _k_banker_q
from pontoon.analysis.british.strategy import Solved, solved
from pontoon.analysis.british.values import banker_values, house_banker, player_flow, player_q
from pontoon.british.bots import Bots
from pontoon.british.round import BritishRound
from pontoon.protocol import SPECTATOR
from pontoon.rules.british import BritishRules

LEVELS: Final = ("simple", "house", "solved", "best")
HOUSE_STAYS_ON: Final = 17  # as report.HOUSE_STAYS_ON (docs/analysis.md "house banker")
ACTION_VERB: Final = {"stick": "stick", "twist": "twist", "buy1": "buy", "buy2": "buy"}


def initial_stakes(rnd: BritishRound) -> dict[str, Decimal]:
    """Each player's initial stake, from the public stake events (003: stakes are placed in front of them)."""
    out = {}
    for ev in rnd.events():
        if ev.kind == "stake":
            out[str(ev.data["seat"])] = Decimal(str(ev.data["amount"]))
    return out


def hand_state(
    own: dict[str, Any], public: dict[str, Any], index: int, initial: Decimal
) -> tuple[Hand, tuple[int, ...], tuple[int, ...]] | None:
    """The model's player state of hand ``index`` (face-down cards, face-up cards, buys) from the owner's view
    and the public view; None where the hand is off the model (a split hand, a stake off the buy grid)."""
    mine, shown = own["hands"][index], public["hands"][index]
    if mine["split"] or mine["burned"] or HIDDEN in mine["cards"]:
        return None
    cards = [card_class(c) for c in mine["cards"]]
    up = [c != HIDDEN for c in shown["cards"]]
    hidden = tuple(sorted(c for c, u in zip(cards, up, strict=True) if not u))
    face_up = tuple(c for c, u in zip(cards, up, strict=True) if u)
    return _with_buys(hidden, face_up, Decimal(mine["stake"]), initial)


def _with_buys(
    hidden: Hand, up: tuple[int, ...], stake: Decimal, initial: Decimal
) -> tuple[Hand, tuple[int, ...], tuple[int, ...]] | None:
    ratio = stake / initial
    if ratio != ratio.to_integral_value() or len(hidden) < 2:
        return None
    try:
        return hidden, up, buys_of(int(ratio), len(hidden) - 2)
    except ValueError:
        return None


def seen_hand(view_hand: dict[str, Any], initial: Decimal) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """What the banker sees of a hand (face-up cards in order, buys), None off the model."""
    if view_hand["split"] or view_hand["burned"]:
        return None
    up = tuple(card_class(c) for c in view_hand["cards"] if c != HIDDEN)
    hidden = sum(1 for c in view_hand["cards"] if c == HIDDEN)
    ratio = Decimal(view_hand["stake"]) / initial
    if ratio != ratio.to_integral_value() or hidden < 2:
        return None
    try:
        return up, buys_of(int(ratio), hidden - 2)
    except ValueError:
        return None


@dataclass
class LevelBots(Bots):
    """Bots at ``level`` for ``rules`` (see the module's docstring); ``rng`` samples mixed decisions."""

    rules: BritishRules | None = None
    level: str = "solved"
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng())
    log: Any = None
    _sol: Solved | None = None
    _house_sigma: list[np.ndarray] | None = None
    _house_tw: np.ndarray | None = None
    _cond: tuple[np.ndarray, np.ndarray] | None = None
    _reader: Any = None

    def __post_init__(self) -> None:
        if self.level not in ("house", "solved", "best"):
            raise ValueError(f"British bot level {self.level!r}: accepted {', '.join(LEVELS)}")
        if self.rules is None:
            raise ValueError("LevelBots needs the table's rules")
        self._sol = solved(self.rules, log=self.log)
        if self.level == "house":
            g, tb = self._sol.game, self._sol.tables
            self._house_tw = house_banker(g, HOUSE_STAYS_ON)
            q, _, _ = player_q(g, tb, self._house_tw)
            self._house_sigma = [np.eye(len(x))[int(np.argmax(x))] for x in q]

    # ----------------------------------------------------------------------------------------------
    def decide(self, rnd: BritishRound) -> tuple[str, str, Decimal | None]:
        seat = rnd.to_act()
        if seat is None:
            raise ValueError("the round is over: nobody is to act")
        legal = {a.verb: a for a in rnd.legal_actions()}
        if rnd.phase == "play" and seat != rnd.banker:
            got = self._player(rnd, seat, legal)
        elif rnd.phase == "banker" and seat == rnd.banker:
            got = self._banker(rnd, seat, legal)
        elif rnd.phase == "stake" and "stake" in legal:
            a = legal["stake"]  # the model's stake: one unit, the table minimum (docs/analysis.md)
            assert a.low is not None and a.high is not None
            got = ("stake", min(max(rnd.rules.stake_min, a.low), a.high))
        elif rnd.phase == "double" or rnd.phase in ("shoot", "split_shoot"):
            got = ("pass", None) if "pass" in legal else None  # not in the model: no double, no shoot bet
        else:
            got = None
        if got is None:
            return super().decide(rnd)
        return seat, got[0], got[1]

    def _player(
        self, rnd: BritishRound, seat: str, legal: dict[str, Any]
    ) -> tuple[str, Decimal | None] | None:
        sol = self._sol
        assert sol is not None
        cur = rnd.current_hand()
        if cur is None:
            return None
        own, public = rnd.view(seat), rnd.view(SPECTATOR)
        index = next(
            i for i, h in enumerate(own["hands"]) if h["owner"] == seat and h["hand"] == rnd.hand_number(cur)
        )
        initial = initial_stakes(rnd).get(seat)
        state = hand_state(own, public, index, initial) if initial else None
        node = sol.node(*state) if state is not None else None
        if node is None or initial is None:
            return None
        s = sol.game.nodes[node]
        mix = (self._house_sigma if self._house_sigma is not None else sol.sigma)[node]
        a = s.actions[int(self.rng.choice(len(mix), p=mix))] if len(mix) > 1 else s.actions[0]
        verb = ACTION_VERB[a]
        if verb not in legal:
            return None
        amount = initial * int(a[3:]) if verb == "buy" else None
        return verb, amount

    def _banker(
        self, rnd: BritishRound, seat: str, legal: dict[str, Any]
    ) -> tuple[str, Decimal | None] | None:
        sol = self._sol
        assert sol is not None
        view = rnd.view(seat)
        if "twist" not in legal:
            return ("stick", None) if "stick" in legal else None
        hand = tuple(sorted(card_class(c) for c in view["banker_cards"]))
        k = sol.game.banker_index.get(hand)
        if k is None or not banker_can_twist(hand):
            return None
        if self.level == "house":
            return ("twist", None) if best(hand) < HOUSE_STAYS_ON else ("stick", None)
        split = self._split_banker(view, k)
        if split is not None:
            return split, None
        if self.level == "best":
            got = self._best_banker(rnd)
            if got is not None:
                return got, None
        stakes = initial_stakes(rnd)
        live = [h for h in view["hands"] if h["status"] in ("stuck", "five")]
        seen = [seen_hand(h, stakes.get(h["owner"], Decimal(0)) or Decimal(1)) for h in live]
        index = {o: i for i, o in enumerate(sol.game.obs)}
        rows = [index.get(o) if o is not None else None for o in seen]
        if not live:
            return "stick", None  # every hand is bust or paid: nothing to play for
        if any(r is None for r in rows):
            return ("twist", None) if best(hand) < HOUSE_STAYS_ON else ("stick", None)
        if len(rows) == 1:
            p = float(sol.tw[rows[0], k])
            return ("twist", None) if self.rng.random() < p else ("stick", None)
        stay, twist = self._conditional()
        gain = sum(
            float(stakes[h["owner"]]) * (twist[r, k] - stay[r, k]) for h, r in zip(live, rows, strict=True)
        )  # the players' value: the banker twists when that lowers it
        return ("twist", None) if gain < 0 else ("stick", None)

    def _split_banker(self, view: dict[str, Any], k: int) -> str | None:
        """Heads-up facing a split of x-x: the profile's play there, from his own cards and each split hand's
        bust or number of cards (``split_bots``; ruling 35: all in his view)."""
        from pontoon.analysis.british.split_bots import split_pair, split_twist_chance
        from pontoon.analysis.british.split_fast import seen_class

        x = split_pair(view)
        if x is None or self._sol is None:
            return None
        p = split_twist_chance(self._sol, x, k, seen_class(view["hands"]))  # what he sees: busts, card counts
        return "twist" if self.rng.random() < p else "stick"

    def _best_banker(self, rnd: BritishRound) -> str | None:
        """``best``: the exact best response reading every hand (analysis/british/reading.py) to players who
        play the solution; None off the model (then as ``solved``)."""
        from pontoon.analysis.british.reading import Reader

        if self._reader is None:
            assert self._sol is not None
            self._reader = Reader(self._sol)
        try:
            return self._reader.decide_round(rnd)
        except ValueError:
            return None

    def _conditional(self) -> tuple[np.ndarray, np.ndarray]:
        """[observation, hand]: the player's value per initial stake if the banker stays, and if he twists and
        then follows the solution, given what he sees (the posterior normalised)."""
        if self._cond is None:
            sol = self._sol
            assert sol is not None
            self._cond = conditional_values(sol)
        return self._cond


def conditional_values(sol: Solved) -> tuple[np.ndarray, np.ndarray]:
    """[observation, banker hand]: the player's value per initial stake (his cards' posterior given what the
    banker sees, normalised) if the banker stays there, and if he twists and then follows the solution."""
    from pontoon.analysis.british.solve import flatten
    from pontoon.analysis.british.values import _k_stay

    g, tb = sol.game, sol.tables
    y = player_flow(g, sol.sigma)
    stay = banker_values(g, tb, y)
    mass = np.zeros_like(stay)  # the posterior's mass: the same sum with every payment and stake 1
    unit = np.ones_like(tb.f_stake)
    _k_stay(tb.f_kind, tb.f_obs, tb.f_pset, tb.f_total, unit, tb.prob, y, np.ones((23, len(g.banker))), mass)
    fl = flatten(g, tb)
    twist = np.zeros_like(stay)
    z = np.zeros_like(stay)
    _k_banker_q(stay, sol.tw, fl.b_twistable, fl.b_kid_start, fl.b_kid, fl.b_rho, twist, z)
    m = np.where(mass > 0, mass, 1.0)
    return stay / m, twist / m


def make_bots(
    level: str, rules: BritishRules, rng: np.random.Generator | None = None, *, log: Any = None
) -> Bots:
    """The bots of ``level`` (simple, house, solved) for ``rules``; ValueError naming the accepted levels."""
    if level == "simple":
        return Bots()
    if level not in LEVELS:
        raise ValueError(f"British bot level {level!r}: accepted {', '.join(LEVELS)}")
    check_seats(rules)  # the level bots read cards by point value
    return LevelBots(
        rules=rules, level=level, rng=rng if rng is not None else np.random.default_rng(), log=log
    )
