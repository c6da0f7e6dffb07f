"""The per-step work of ``pontoon/Pontoon-v0`` (``casino_env.PontoonEnv``), in a module that setup.py
compiles with mypyc: the round, the agent's legal actions by index and their mask, the observation,
the info and the reward. ``PontoonEnv`` (a ``gymnasium.Env``, kept a Python class) holds one
``CasinoCore`` and hands ``reset`` and ``step`` to it; the engine (``CasinoRound``) stays the only truth.

Made for speed (``bench/bench_rl.py``): a reset is one call into the compiled core (the round, its
observation and its info together); the masks of the 128 sets of legal actions are made once at import
(read-only, handed out only as fresh copies); the observation and the info are built once per step from
what ``refresh`` read off the engine; the shoe counts of ``counts=True`` come from one ``bincount`` over
the point values of the shoe's cards, worked out once per shoe.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

import numpy as np

from pontoon.casino.round import CasinoRound
from pontoon.casino.seats import face_up_cards
from pontoon.casino.state import Hand
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

Step = tuple[dict[str, Any], float, bool, bool, dict[str, Any]]


def _all_masks() -> list[Any]:
    """The mask of every set of legal action indices, by its bits (bit i: action i is legal)."""
    out = []
    for bits in range(1 << N_ACTIONS):
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        for i in range(N_ACTIONS):
            if bits >> i & 1:
                mask[i] = 1
        mask.flags.writeable = False  # shared by every env: handed out only as copies
        out.append(mask)
    return out


_MASKS: Final[list[Any]] = _all_masks()
_STAND_ONLY: Final = 1 << STAND


def mask_of(key: tuple[int, ...]) -> Any:
    """The shared read-only mask with ones at ``key`` (handed out only as copies)."""
    bits = 0
    for i in key:
        bits |= 1 << i
    return _MASKS[bits]


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
        self.mask: Any = _MASKS[0]
        self.legal: dict[int, Action] = {}
        self.over = False
        self.net_: Decimal | None = None
        self._points_of: Shoe | None = None  # the shoe whose cards' point values _points holds
        self._points: Any = None
        self._whole: Any = None  # the whole shoe by point value
        self._before_at = -1  # the round start (shoe position) that _left_before is for
        self._left_before: Any = None  # the shoe less the earlier rounds' cards, by point value
        self._rewards: dict[Decimal, float] = {}  # net -> float(net / bet), for this env's bet

    def start(self, shoe: Shoe, rng: Any) -> CasinoRound:
        """A new round on ``shoe``: the wagers placed, the cards dealt; returns the round."""
        rnd = CasinoRound(self.rules, shoe, rng=rng)
        rnd.place_bet(BOX, PLAYER, "main", self.bet)
        if self.side_bets:
            for kind, amount in self.side_bets.items():
                rnd.place_bet(BOX, PLAYER, kind, amount)
        rnd.close_bets()
        self.shoe = shoe
        self.round = rnd
        self.refresh()
        return rnd

    def reset(self, shoe: Shoe, rng: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """``start`` and the first observation and info, in one call."""
        self.start(shoe, rng)
        return self.obs(), self.info()

    def refresh(self) -> None:
        """Read the agent's legal actions off the engine: ``legal`` (index -> the engine's action) and
        the mask."""
        rnd = self.round
        assert rnd is not None
        legal: dict[int, Action] = {}
        over = rnd.is_over()
        bits = 0
        if not over:
            for a in rnd.legal_actions(PLAYER):
                i = ACTION_INDEX.get(a.verb)
                if i is not None and not bits >> i & 1:
                    legal[i] = a
                    bits |= 1 << i
        self.over = over
        self.net_ = None
        self.mask = _MASKS[bits] if bits else _MASKS[_STAND_ONLY]
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
        """The net result in units of the main wager: ``float(net / bet)``, worked out once per amount (a
        round's results repeat: a few multiples of the wager), the same float every time."""
        net = self.net()
        if not net:
            return -0.0 if net.is_signed() else 0.0  # float(net / bet): bet > 0 keeps the zero's sign
        got = self._rewards.get(net)  # equal amounts (7.5, 7.50) give the same quotient
        if got is None:
            got = float(net / self.bet)
            if len(self._rewards) < 4096:
                self._rewards[net] = got
        return got

    def obs(self) -> dict[str, Any]:
        rnd = self.round
        assert rnd is not None
        box = rnd.boxes.get(BOX)
        h: Hand | None = None if self.over else rnd.current
        if h is None and box is not None and box.hands:
            h = box.hands[-1]
        total = soft = pair = n = doubled = 0
        if h is not None:
            cards = h.cards
            t, s = h.total(self.ace_one)
            total = t if t < 31 else 31
            soft = 1 if s else 0
            n = len(cards)
            if n > MAX_CARDS:
                n = MAX_CARDS
            pair = 1 if n == 2 and cards[0].points == cards[1].points else 0
            doubled = 1 if h.doubled else 0
        dealer = rnd.dealer
        obs: dict[str, Any] = {
            "total": total,
            "soft": soft,
            "pair": pair,
            "num_cards": n,
            "upcard": dealer[0].points if dealer else 0,
            "hands": (len(box.hands) if len(box.hands) < 4 else 4) if box is not None else 0,
            "doubled": doubled,
            "action_mask": self.mask.copy(),
        }
        if self.counts:
            obs["shoe"] = self.shoe_counts()
        return obs

    def shoe_counts(self) -> Any:
        """The cards the agent has not seen, by point value (index 0 = Aces .. 9 = ten-value cards),
        int64 (rul 35): the shoe's cards less those dealt face up, in the shoe's earlier rounds
        (``seats.shown_before``) and in this round (``seats.face_up_cards``, the cards its view shows);
        a face-down hole card counts as unseen. The whole shoe's and the earlier rounds' counts are
        worked out once per shoe and once per round."""
        shoe = self.shoe
        rnd = self.round
        assert shoe is not None and rnd is not None
        if self._points_of is not shoe:
            cards = shoe.dealt_cards() + shoe.remaining_cards()  # the whole shoe, once per shoe
            self._points = np.array([c.points - 1 for c in cards], dtype=np.intp)
            self._whole = np.bincount(self._points, minlength=10).astype(np.int64)
            self._points_of = shoe
            self._before_at = -1
        if self._before_at != rnd.first_dealt:  # once per round
            self._before_at = rnd.first_dealt
            self._left_before = self._whole - np.bincount(self._points[: rnd.first_dealt], minlength=10)
        out = self._left_before.copy()
        for c in face_up_cards(rnd):
            out[c.points - 1] -= 1
        return out

    def info(self) -> dict[str, Any]:
        if self.over:
            rnd = self.round
            assert rnd is not None
            return {
                "action_mask": self.mask.copy(),
                "decision": bool(self.legal),
                "net": fmt(self.net()),
                "void": rnd.void_reason is not None,
            }
        return {"action_mask": self.mask.copy(), "decision": bool(self.legal)}
