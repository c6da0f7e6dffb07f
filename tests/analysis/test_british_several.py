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
from pontoon.analysis.british.enumerate import engine_value
from pontoon.analysis.british.several import blind_response, sample
from pontoon.analysis.british.values import player_q
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
    """Exchangeability: three solved players against the exact blind best response lose, per player, the
    heads-up value (within three standard errors of 1,500 engine rounds); the paired seeing banker is
    sampled on the same deals."""
    sol = S.solved(BRITISH)
    _, value = blind_response(sol)
    got = sample(BRITISH, 3, 1500, 4)
    assert abs(got["blind"] + value) < 3 * got["blind_se"], (got, value)
    assert got["difference_se"] < got["blind_se"]  # the pairing cancels most of the deal's variance


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
