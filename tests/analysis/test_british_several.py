"""Issue 27 item 3: several players. The blind banker's best response (his own cards only) and the players'
best response to it equal the engine's enumeration of a reduced pack heads-up, and, by exchangeability, hold
per player at a table of several (checked by sampling the engine)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.bots import make_bots
from pontoon.analysis.british.enumerate import engine_value
from pontoon.analysis.british.infosets import card_class
from pontoon.analysis.british.several import blind_response
from pontoon.analysis.british.values import player_q
from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import BritishRound
from pontoon.rules.british import BRITISH

SMALL = BRITISH.with_(pack_ranks="A5T", pack_suits=4)


def _policies(sol, sigma, tw):  # type: ignore[no-untyped-def]
    g = sol.game
    oi = {o: i for i, o in enumerate(g.obs)}

    def player(st):  # type: ignore[no-untyped-def]
        i = g.node_index[st]
        return dict(zip(g.nodes[i].actions, sigma[i], strict=True))

    def banker(hand, obs):  # type: ignore[no-untyped-def]
        return 0.0 if obs is None else float(tw[oi[obs], g.banker_index[hand]])

    return player, banker


def test_blind_banker_and_the_players_response_equal_the_engine(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PONTOON_CACHE_DIR", str(tmp_path))
    S._MEMO.clear()
    sol = S.solved(SMALL)
    tw, value = blind_response(sol)
    assert (tw == tw[0]).all()  # the same decision whatever he sees of the player
    assert abs(float(engine_value(SMALL, *_policies(sol, sol.sigma, tw))) - value) < 1e-12
    q, _, best = player_q(sol.game, sol.tables, tw)
    br = [np.eye(len(x))[int(np.argmax(x))] for x in q]
    assert abs(float(engine_value(SMALL, *_policies(sol, br, tw))) - float(best)) < 1e-12
    # a blind banker is no better than one who sees the player: the heads-up best response
    _, _, bbr = sol.quality()
    assert bbr <= value + 1e-12
    S._MEMO.clear()


@pytest.mark.slow
def test_blind_banker_holds_per_player_at_a_table_of_three() -> None:
    """Exchangeability: three solved players against the blind banker win, per player, the heads-up value
    (within three standard errors of 3,000 engine rounds)."""
    sol = S.solved(BRITISH)
    tw, value = blind_response(sol)
    bots = make_bots("solved", BRITISH, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    xs = []
    for _ in range(3000):
        rnd = BritishRound(BRITISH, ["a", "b", "c"], "bank", BritishPack.shuffled(1, rng, one_pack(BRITISH)))
        while not rnd.is_over():
            if rnd.phase == "banker":
                hand = tuple(sorted(card_class(str(c)) for c in rnd.banker_cards))
                k = sol.game.banker_index[hand]
                rnd.act(
                    "bank",
                    "twist"
                    if tw[0, k] > 0.5 and any(a.verb == "twist" for a in rnd.legal_actions())
                    else "stick",
                )
                continue
            seat, verb, amt = bots.decide(rnd)
            rnd.act(seat, verb, amt)
        net = rnd.net()
        xs.append(float(sum(net[s]["total"] for s in ("a", "b", "c"))) / 3)
    mean, se = float(np.mean(xs)), float(np.std(xs, ddof=1) / np.sqrt(len(xs)))
    assert abs(mean - value) < 3 * se, (mean, se, value)


def test_analyze_players_json() -> None:
    code = "from pontoon.cli.app import main; main()"
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "analyze",
            "--rules",
            "british",
            "--set",
            "pack_ranks=A5T",
            "--players",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)["several_players"]
    assert rep["players"] == 3 and set(rep["by_packs"]) == {"1", "2"}
    for row in rep["by_packs"].values():
        assert row["seeing_one"] >= row["blind"] - 1e-12  # seeing the player is worth something
        assert row["players_best_response_to_blind"] <= row["blind"] + 1e-12
    bad = subprocess.run(
        [sys.executable, "-c", code, "analyze", "--rules", "british", "--players", "9"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("error: --players")
