"""``pontoon.rl.british_v0``: the British banker game and Shoot Pontoon (003) as a PettingZoo AEC env.

Every seat is an agent (``seat_0`` .. ``seat_{n-1}``); one of them holds the bank, and the bank
passes as 003 The New Deal says (a player's unsplit Pontoon takes it). The agent to act is the
seat the engine (``pontoon.british.round.BritishRound``, driven through ``BritishGame``) names.
Each agent observes only its own ``view(seat)`` (003: its own cards, face-up cards of others, the
banker's cards once turned up), encoded as a vector, with the mask of its legal actions.

Actions (``Discrete(10)``): 0 twist, 1 stick, 2 buy (for the least stake accepted: the initial
stake), 3 split, 4 burn, 5 stake (table minimum), 6 stake (table maximum), 7 double (the banker
doubles the bets, a house variation), 8 pass, 9 shoot (the least shoot bet). An episode is
``rounds`` rounds; rewards are each seat's net result of a round in units of the minimum stake
(the banker's kitty is the banker's money). Shoot Pontoon: when the kitty is empty the banker puts
up a new one of ``kitty`` (default the table's kitty minimum) before the deal (003 Shoot Pontoon).

``opponent="simple"|"house"|"solved"`` (issue 27): the only agent is ``seat_0``; the other seats are bots of
that level (``pontoon.analysis.british.bots``), ``seat_1`` holding the bank first, so an agent plays against
the solved banker (and, when its Pontoon takes the bank, banks against solved players: 003 The New Deal).
The bots decide from their own seat's view only (ruling 35); their mixed decisions are sampled from a
generator seeded by ``reset(seed)``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pontoon.british.round import PHASES
from pontoon.british.table import BritishGame
from pontoon.cards import Card
from pontoon.errors import IllegalAction, RulesError
from pontoon.hands import hand_total, hard_total
from pontoon.money import fmt, to_money
from pontoon.rl import _engine
from pontoon.rules import resolve_rules
from pontoon.rules.british import BritishRules

ACTIONS = ("twist", "stick", "buy", "split", "burn", "stake", "stake_max", "double", "pass", "shoot")
N_ACTIONS = len(ACTIONS)
FEATURES = (
    "is_banker",
    "my_turn",
    *(f"phase_{p}" for p in PHASES),
    "hand_best",
    "hand_hard",
    "hand_cards",
    "my_hands",
    "hand_twisted",
    "my_stake",
    "banker_cards",
    "banker_best",
    "busted_hands",
    "others_face_up",
    "bets_doubled",
    "kitty",
    "shoot_capacity",
    "players",
    "rounds_left",
)
N_FEATURES = len(FEATURES)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo's usual ``env()`` entry): illegal moves end with an error."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def _cards(texts: list[str]) -> list[Card]:
    return [Card.parse(t) for t in texts if t != "??"]


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's naming)
    metadata: dict[str, Any] = {
        "render_modes": ["ansi"],
        "name": "pontoon_british_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str | BritishRules = "british",
        *,
        seats: int = 3,
        rounds: int = 5,
        kitty: object = None,
        render_mode: str | None = None,
        opponent: str | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__()
        r: Any = rules.with_(**overrides) if isinstance(rules, BritishRules) and overrides else rules
        if isinstance(r, str):
            r = resolve_rules(r, overrides or None)
        if not isinstance(r, BritishRules):
            raise RulesError(
                f"rules {getattr(r, 'preset', r)!r} are not a British game: british_v0 takes british, shoot "
                "or a British rules file (casino games: gymnasium.make('pontoon/Pontoon-v0'))"
            )
        if not 2 <= seats <= 12:
            raise RulesError(
                f"seats={seats}: a British table seats 2 to 12 people, the banker included (003)"
            )
        if rounds < 1:
            raise RulesError(f"rounds={rounds}: at least 1")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RulesError(f"render_mode={render_mode!r}: accepted 'ansi' or None")
        self.rules: BritishRules = r
        self.kitty_amount = r.kitty_min if kitty is None else to_money(kitty, "kitty")
        if r.shoot and not r.kitty_min <= self.kitty_amount <= r.kitty_max:
            raise RulesError(
                f"kitty {fmt(self.kitty_amount)}: accepted {fmt(r.kitty_min)} to {fmt(r.kitty_max)}"
            )
        self.n_rounds = rounds
        self.render_mode = render_mode
        self.unit = r.stake_min
        self.seat_names = [f"seat_{i}" for i in range(seats)]
        self.opponent = opponent
        self.bots: Any = None
        if opponent is not None:
            from pontoon.analysis.british.bots import LEVELS, make_bots

            if opponent not in LEVELS:
                raise RulesError(f"opponent={opponent!r}: accepted None, {', '.join(LEVELS)}")
            self.bots = make_bots(opponent, r, np.random.default_rng())
        self.possible_agents = self.seat_names if opponent is None else self.seat_names[:1]
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0e6, shape=(N_FEATURES,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.game: BritishGame | None = None
        self._rng_seed: int | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng_seed = seed
            self._np_random = np.random.default_rng(seed)
        elif not hasattr(self, "_np_random"):
            self._np_random = np.random.default_rng()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        banker = None if self.bots is None else self.seat_names[1]
        self.game = BritishGame(self.rules, self.seat_names, rng=self._np_random, banker=banker)
        self.rounds_done = 0
        self.bank_passes = 0
        if self.bots is not None and hasattr(self.bots, "rng"):
            self.bots.rng = np.random.default_rng(None if seed is None else [seed, 27])
        self._start_round()
        if self.bots is not None:
            self._play_bots()

    def _start_round(self) -> None:
        game = self.game
        assert game is not None
        while True:
            if game.needs_kitty:
                game.put_kitty(self.kitty_amount)  # 003 Shoot Pontoon: the dealer forms a kitty
            rnd = game.new_round()
            if not _engine.b_over(rnd):
                break
            self._finish_round()  # void at the deal (the pack ran out: rulings 2)
            if self.rounds_done >= self.n_rounds:
                return
        seat = rnd.to_act()
        assert seat is not None
        self.agent_selection = seat
        self._update_infos()

    def _finish_round(self) -> None:
        game = self.game
        assert game is not None
        before = game.banker
        summary = game.end_round()
        self.rounds_done += 1
        if game.banker != before:
            self.bank_passes += 1
        for a in self.agents:
            net = summary["net"].get(a, {}).get("total", Decimal(0))
            self.rewards[a] += float(net / self.unit)  # += : bots may finish several rounds in one step
        if self.rounds_done >= self.n_rounds:
            self.terminations = {a: True for a in self.agents}

    def _legal(self, agent: str) -> dict[int, tuple[Any, Decimal | None]]:
        game = self.game
        out: dict[int, tuple[Any, Decimal | None]] = {}
        if game is None or game.round is None or _engine.b_over(game.round):
            return out
        for a in _engine.b_legal(game.round, agent):
            v = a.verb
            if v == "stake":
                out[5] = (a, a.low)
                out[6] = (a, a.high)
            elif v in ACTIONS:
                out[ACTIONS.index(v)] = (a, a.low)
        return out

    def _mask(self, agent: str) -> np.ndarray:
        m = np.zeros(N_ACTIONS, dtype=np.int8)
        for i in self._legal(agent):
            m[i] = 1
        return m

    def _update_infos(self) -> None:
        for a in self.agents:
            self.infos[a] = {"action_mask": self._mask(a)}
            if self.game is not None:
                self.infos[a]["banker"] = self.game.banker

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self._features(agent), "action_mask": self._mask(agent)}

    def _features(self, agent: str) -> np.ndarray:
        f = np.zeros(N_FEATURES, dtype=np.float32)
        game = self.game
        if game is None:
            return f
        f[0] = float(game.banker == agent)
        f[FEATURES.index("rounds_left")] = float(self.n_rounds - self.rounds_done)
        rnd = game.round
        if rnd is None:
            return f
        v = rnd.view(agent)  # only what this seat may see (british/view.py)
        f[1] = float(v["to_act"] == agent)
        phase = v["phase"]
        if phase in PHASES:
            f[2 + PHASES.index(phase)] = 1.0
        mine = [h for h in v["hands"] if h["owner"] == agent]
        cur = v.get("current_hand")
        h = None
        if mine:
            h = mine[0]
            if cur is not None and cur["owner"] == agent:
                h = next((x for x in mine if x["hand"] == cur["hand"]), h)
        i = FEATURES.index("hand_best")
        if h is not None:
            cards = _cards(h["cards"])
            f[i] = float(hand_total(cards)[0]) if cards else 0.0
            f[i + 1] = float(hard_total(cards))
            f[i + 2] = float(len(cards))
            f[i + 4] = float(h["twisted"])
            f[i + 5] = float(Decimal(h["stake"]) / self.unit)
        f[i + 3] = float(len(mine))
        bcards = _cards(v["banker_cards"])
        f[i + 6] = float(len(bcards))
        f[i + 7] = float(hand_total(bcards)[0]) if bcards else 0.0
        f[i + 8] = float(sum(1 for x in v["hands"] if x["status"] == "bust"))
        f[i + 9] = float(
            sum(sum(1 for c in x["cards"] if c != "??") for x in v["hands"] if x["owner"] != agent)
        )
        f[i + 10] = float(v["bets_doubled"])
        if "kitty" in v:
            f[i + 11] = float(Decimal(v["kitty"]) / self.unit)
            f[i + 12] = float(Decimal(v["shoot_capacity"]) / self.unit)
        f[i + 13] = float(len(v["players"]))
        return f

    # ------------------------------------------------------------------------------------------
    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None and game.round is not None
        legal = self._legal(agent)
        a = None if action is None else int(action)
        if a not in legal:
            names = ", ".join(ACTIONS[i] for i in sorted(legal)) or "none"
            what = ACTIONS[a] if a is not None and 0 <= a < N_ACTIONS else repr(action)
            raise IllegalAction(f"{agent}: action {action!r} ({what}) is not legal now; legal: {names}")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {x: 0.0 for x in self.agents}
        la, amount = legal[a]
        _engine.b_act(game.round, agent, la, amount)
        if self.bots is not None:
            self._play_bots()
            self._accumulate_rewards()
            return
        if _engine.b_over(game.round):
            self._finish_round()
            if self.rounds_done < self.n_rounds:
                self._start_round()
        if game.round is not None and not _engine.b_over(game.round):
            seat = game.round.to_act()
            assert seat is not None
            self.agent_selection = seat
        self._update_infos()
        self._accumulate_rewards()

    def _play_bots(self) -> None:
        """``opponent``: the bots act until it is the agent's turn or the episode ends."""
        game = self.game
        assert game is not None
        while self.rounds_done < self.n_rounds:
            rnd = game.round
            if rnd is None or _engine.b_over(rnd):
                if rnd is not None:
                    self._finish_round()
                    if self.rounds_done >= self.n_rounds:
                        break
                self._start_round()
                continue
            seat = rnd.to_act()
            if seat in self.agents:
                self.agent_selection = seat
                break
            s, verb, amt = self.bots.decide(rnd)
            game.act(s, verb, amt)
        if self.agents and self.agent_selection not in self.agents:
            # the episode ended in a round the agent had nothing to do in (he held the bank and every
            # player bust, say): the selection left at that round's first bot goes back to the agent
            self.agent_selection = self.agents[0]
        self._update_infos()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None or self.game.round is None:
            return None
        v = self.game.round.view(self.agent_selection)
        lines = [f"banker {v['banker']}: {' '.join(v['banker_cards'])}"]
        for h in v["hands"]:
            lines.append(f"{h['owner']}.{h['hand']}: {' '.join(h['cards'])} stake {h['stake']} {h['status']}")
        return "\n".join(lines)

    def close(self) -> None:
        pass
