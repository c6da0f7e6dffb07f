"""The per-step work of ``pontoon/Pontoon-v0`` (``casino_env.PontoonEnv``), in a module that setup.py
compiles with mypyc: the round, the agent's legal actions by index and their mask, the observation,
the info and the reward. ``PontoonEnv`` (a ``gymnasium.Env``, kept a Python class) holds one
``CasinoCore`` and hands ``reset`` and ``step`` to it; the engine (``CasinoRound``) stays the only truth.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

import numpy as np

from pontoon.casino.round import CasinoRound
from pontoon.errors import IllegalAction
from pontoon.money import fmt
from pontoon.protocol import Action
from pontoon.rules.model import CasinoRules
from pontoon.shoe import Shoe

ACTIONS: Final = ("hit", "stand", "double", "split", "rescue", "surrender", "insure")
ACTION_INDEX: Final = {v: i for i, v in enumerate(ACTIONS)}
N_ACTIONS: Final = len(ACTIONS)
STAND: Final = 1  # ACTION_INDEX["stand"]: acknowledges a round that needs no decision
PLAYER: Final = "agent"
BOX: Final = 1
MAX_CARDS: Final = 21  # no hand can hold more cards with a hard total of 21 or less
_ZERO: Final = Decimal(0)
_MASKS: Final[dict[tuple[int, ...], Any]] = {}  # the mask of each set of legal action indices, made once

Step = tuple[dict[str, Any], float, bool, bool, dict[str, Any]]


def mask_of(key: tuple[int, ...]) -> Any:
    """The shared read-only mask with ones at ``key`` (handed out only as copies)."""
    mask = _MASKS.get(key)
    if mask is None:
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        mask[list(key)] = 1
        mask.flags.writeable = False  # shared by every env: handed out only as copies
        _MASKS[key] = mask
    return mask


class CasinoCore:
    """One box's round for the env: see the module docstring (``casino_env`` documents the env)."""

    def __init__(
        self,
        rules: CasinoRules,
        bet: Decimal,
        side_bets: dict[str, Decimal],
        counts: bool,
        illegal: str,
        illegal_reward: float,
    ) -> None:
        self.rules = rules
        self.bet = bet
        self.side_bets = side_bets
        self.counts = counts
        self.illegal = illegal
        self.illegal_reward = illegal_reward
        self.ace_one = bool(rules.double_ace_counts_one)
        self.round: CasinoRound | None = None
        self.shoe: Shoe | None = None
        self.mask: Any = np.zeros(N_ACTIONS, dtype=np.int8)
        self.legal: dict[int, Action] = {}
        self.over = False
        self.net_: Decimal | None = None

    def start(self, shoe: Shoe, rng: Any) -> CasinoRound:
        """A new round on ``shoe``: the wagers placed, the cards dealt; returns the round."""
        rnd = CasinoRound(self.rules, shoe, rng=rng)
        rnd.place_bet(BOX, PLAYER, "main", self.bet)
        for kind, amount in self.side_bets.items():
            rnd.place_bet(BOX, PLAYER, kind, amount)
        rnd.close_bets()
        self.shoe = shoe
        self.round = rnd
        self.refresh()
        return rnd

    def refresh(self) -> None:
        rnd = self.round
        assert rnd is not None
        legal: dict[int, Action] = {}
        self.over = rnd.is_over()
        self.net_ = None
        if not self.over:
            for a in rnd.legal_actions(PLAYER):
                i = ACTION_INDEX.get(a.verb)
                if i is not None and i not in legal:
                    legal[i] = a
        self.mask = mask_of(tuple(legal) if legal else (STAND,))
        self.legal = legal

    def step(self, a: int) -> Step:
        rnd = self.round
        if rnd is None:
            raise IllegalAction("step before reset: call reset() first")
        if self.over:
            if a != STAND:
                return self.refuse(a)
            return self.obs(), self.reward(), True, False, self.info()
        act = self.legal.get(a)
        if act is None:
            return self.refuse(a)
        rnd.act(PLAYER, act)
        self.refresh()
        if self.over:
            return self.obs(), self.reward(), True, False, self.info()
        return self.obs(), 0.0, False, False, self.info()

    def refuse(self, a: int) -> Step:
        legal = [ACTIONS[int(i)] for i in np.nonzero(self.mask)[0]]
        what = ACTIONS[a] if 0 <= a < N_ACTIONS else repr(a)
        if self.illegal == "raise":
            raise IllegalAction(f"action {a} ({what}) is not legal now; legal: {', '.join(legal)}")
        info = self.info()
        info["illegal_action"] = True
        return self.obs(), self.illegal_reward, False, False, info

    def net(self) -> Decimal:
        """The agent's exact net result of the round so far (all its wagers)."""
        rnd = self.round
        if rnd is None:
            return Decimal(0)
        net = self.net_
        if net is None or not self.over:
            # the agent's balance in the round's ledger is its net result, every wager kind together
            # (what ledger.net()'s total adds up per kind: stakes on the layout count as out)
            net = rnd.ledger.balances.get(PLAYER, _ZERO)
            self.net_ = net
        return net

    def reward(self) -> float:
        return float(self.net() / self.bet)

    def obs(self) -> dict[str, Any]:
        rnd = self.round
        assert rnd is not None
        box = rnd.boxes.get(BOX)
        h = None if self.over else rnd.current
        if h is None and box is not None and box.hands:
            h = box.hands[-1]
        total = soft = pair = n = doubled = 0
        if h is not None:
            cards = h.cards
            t, s = h.total(self.ace_one)
            total, soft, n = min(t, 31), int(s), min(len(cards), MAX_CARDS)
            pair = int(n == 2 and cards[0].points == cards[1].points)
            doubled = int(h.doubled)
        up = rnd.dealer[0].points if rnd.dealer else 0
        obs: dict[str, Any] = {
            "total": total,
            "soft": soft,
            "pair": pair,
            "num_cards": n,
            "upcard": up,
            "hands": min(len(box.hands), 4) if box is not None else 0,
            "doubled": doubled,
            "action_mask": self.mask.copy(),
        }
        if self.counts:
            c = np.zeros(10, dtype=np.int64)
            shoe = self.shoe
            assert shoe is not None
            for card in shoe.remaining_cards():
                c[card.points - 1] += 1
            obs["shoe"] = c
        return obs

    def info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.mask.copy(), "decision": bool(self.legal)}
        if self.over:
            rnd = self.round
            assert rnd is not None
            info["net"] = fmt(self.net())
            info["void"] = rnd.void_reason is not None
        return info
