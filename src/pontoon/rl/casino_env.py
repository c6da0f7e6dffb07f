"""``pontoon/Pontoon-v0``: one box at a casino table (any preset or rules file) as a Gymnasium env.

An episode is one round. The shoe is finite and carried across episodes; a new shoe is shuffled
(from the env's ``np_random``) when the cut card has come out (rules' ``penetration``) or when
``reset(seed=...)`` is given a seed. The round engine (``pontoon.casino.round.CasinoRound``) is the
only truth: the env places the wagers, asks the engine what is legal and passes the chosen action on.

Actions (``Discrete(7)``): 0 hit, 1 stand, 2 double, 3 split, 4 rescue, 5 surrender, 6 insurance
(half the main wager, rounded down to the cent). The mask of legal ones is in the observation
(``obs["action_mask"]``) and in ``info["action_mask"]`` (MaskablePPO's convention).

A round that needs no decision (a Pontoon paid at once, a void round) still shows one observation:
its mask holds only ``stand``, which acknowledges it; ``info["decision"]`` is False there.
An action the mask forbids leaves the round unchanged and earns ``illegal_reward`` (default 0,
``info["illegal_action"]`` True), or raises ``IllegalAction`` with ``illegal="raise"``.

Rewards are the round's net result for the agent in units of the main wager (insurance and, when
``side_bets`` are configured, the side bets included), given when the round ends; exact Decimal
money underneath (``info["net"]`` is the exact decimal text).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pontoon.casino.round import CasinoRound
from pontoon.errors import RulesError
from pontoon.money import fmt, to_money
from pontoon.rl._core import ACTION_INDEX, ACTIONS, BOX, MAX_CARDS, N_ACTIONS, PLAYER, CasinoCore
from pontoon.rules import CasinoRules, resolve_rules
from pontoon.shoe import Shoe

__all__ = ["ACTIONS", "ACTION_INDEX", "BOX", "MAX_CARDS", "N_ACTIONS", "PLAYER", "PontoonEnv", "casino_rules"]


def casino_rules(rules: str | CasinoRules, overrides: dict[str, Any] | None = None) -> CasinoRules:
    """A casino preset id/alias, a rules file, or a CasinoRules object, with optional field overrides."""
    if isinstance(rules, CasinoRules):
        r: Any = rules.with_(**overrides) if overrides else rules
    elif isinstance(rules, str):
        r = resolve_rules(rules, overrides or None)
    else:
        raise RulesError(
            f"rules must be a preset name, a .toml file or CasinoRules, not {type(rules).__name__}"
        )
    if not isinstance(r, CasinoRules):
        raise RulesError(
            f"rules {getattr(r, 'preset', rules)!r} are not a casino game: Pontoon-v0 takes mbs, federal, "
            "rws-plus, rws-pandemonium, blackjack or a casino rules file (British games: pontoon.rl.british_v0)"
        )
    return r


class PontoonEnv(gym.Env[dict[str, Any], np.int64]):
    """One box against the dealer. See the module docstring."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        rules: str | CasinoRules = "mbs",
        *,
        decks: int | None = None,
        penetration: float | None = None,
        bet: object = None,
        side_bets: dict[str, object] | None = None,
        counts: bool = False,
        illegal: str = "ignore",
        illegal_reward: float = 0.0,
        render_mode: str | None = None,
        **overrides: Any,
    ) -> None:
        changes: dict[str, Any] = dict(overrides)
        if decks is not None:
            changes["decks"] = decks
        if penetration is not None:
            changes["penetration"] = penetration
        self.rules = casino_rules(rules, changes)
        r = self.rules
        self.bet = r.table_min if bet is None else to_money(bet, "bet")
        if not r.table_min <= self.bet <= r.table_max:
            raise RulesError(
                f"bet {fmt(self.bet)} is outside the table limits {fmt(r.table_min)} to {fmt(r.table_max)}"
            )
        self.side_bets: dict[str, Decimal] = {}
        for kind, amount in (side_bets or {}).items():
            if kind not in r.side_bets:
                raise RulesError(
                    f"side bet {kind!r}: {r.preset} offers {', '.join(r.side_bets) or 'no side bets'}"
                )
            amt = to_money(amount, f"side bet {kind}")
            if not r.side_min <= amt <= r.side_max:
                raise RulesError(
                    f"side bet {kind} {fmt(amt)}: accepted {fmt(r.side_min)} to {fmt(r.side_max)}"
                )
            self.side_bets[kind] = amt
        if illegal not in ("ignore", "raise"):
            raise RulesError(f"illegal={illegal!r}: accepted 'ignore' or 'raise'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RulesError(f"render_mode={render_mode!r}: accepted {self.metadata['render_modes']} or None")
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.counts = counts
        self._unit = self.bet
        self._n_cards = (48 if r.pack == "pontoon48" else 52) * r.decks
        space: dict[str, spaces.Space[Any]] = {
            "total": spaces.Discrete(32),  # best total of the hand to act (22..31: bust)
            "soft": spaces.Discrete(2),
            "pair": spaces.Discrete(2),  # two cards of equal value (rulings 10)
            "num_cards": spaces.Discrete(MAX_CARDS + 1),
            "upcard": spaces.Discrete(11),  # dealer's up card in points (1 = Ace), 0 before the deal
            "hands": spaces.Discrete(5),  # hands in the box after splits
            "doubled": spaces.Discrete(2),  # the hand has doubled and holds its doubling card (rescue spot)
            "action_mask": spaces.MultiBinary(N_ACTIONS),
        }
        if counts:
            # the cards the agent has not seen by point value (index 0 = Aces .. 9 = ten-value cards), rul 35
            space["shoe"] = spaces.Box(0, self._n_cards, shape=(10,), dtype=np.int64)
        self.observation_space = spaces.Dict(space)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.shoe: Shoe | None = None
        self.round: CasinoRound | None = None
        self.shoes_used = 0
        # the per-step work, compiled with mypyc (rl/_core.py): the round's legal actions, mask, obs, info
        self._core = CasinoCore(r, self.bet, self.side_bets, counts, illegal, self.illegal_reward)

    # ------------------------------------------------------------------------------------------
    def _new_shoe(self) -> Shoe:
        r = self.rules
        self.shoes_used += 1
        return Shoe.shuffled(r.decks, self.np_random, pack=r.pack, penetration=r.penetration)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None or self.shoe is None or self.shoe.needs_shuffle:
            self.shoe = self._new_shoe()  # the cut card is out (000 5.x shoe; rules.penetration)
        obs_info = self._core.reset(self.shoe, self.np_random)
        self.round = self._core.round
        return obs_info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        return self._core.step(int(action))

    # the core's state, read as the env's own (as before the core was split out)
    @property
    def _legal(self) -> dict[int, Any]:
        return self._core.legal

    @property
    def _mask(self) -> np.ndarray:
        return self._core.mask  # type: ignore[no-any-return]

    @property
    def _over(self) -> bool:
        return self._core.over

    # ------------------------------------------------------------------------------------------
    def net(self) -> Decimal:
        """The agent's exact net result of the round so far (all its wagers)."""
        return self._core.net()

    def legal_verbs(self) -> list[str]:
        """The engine's legal actions for the agent now, by name (empty when no decision is due)."""
        return [ACTIONS[i] for i in sorted(self._core.legal)]

    def action_masks(self) -> np.ndarray:
        """sb3-contrib's MaskablePPO asks the env for this."""
        return self._core.mask.astype(bool)

    def render(self) -> str | None:  # type: ignore[override]
        if self.render_mode != "ansi" or self.round is None:
            return None
        rnd = self.round
        lines = [f"dealer: {' '.join(str(c) for c in rnd.dealer)}"]
        for h in rnd.all_hands():
            t, s = h.total(self.rules.double_ace_counts_one)
            lines.append(
                f"box {h.box}.{h.index}: {' '.join(str(c) for c in h.cards)} ({'soft ' if s else ''}{t})"
            )
        lines.append("legal: " + ", ".join(ACTIONS[i] for i in sorted(self._core.legal)))
        return "\n".join(lines)
