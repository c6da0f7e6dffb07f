"""Issue 27 item 5: British hints (the exact EV of each decision from the seat's view only) and the drill.

Exactness: on a reduced pack every deal is played through the engine; the difference between two engine
values that differ only in the decision at one information set equals the hint's difference there times
the chance of reaching it (the hint is conditional on what the seat sees)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.enumerate import engine_value
from pontoon.analysis.british.game import ACE, TEN, multiset_p
from pontoon.analysis.british.hints import round_hint
from pontoon.analysis.british.values import _k_stay, banker_response, player_flow, player_q
from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.rules.british import BRITISH

SMALL = BRITISH.with_(pack_ranks="A5T", pack_suits=4)


@pytest.fixture(scope="module")
def small(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The reduced pack's solution, solved once for the module (cached in a temporary directory)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PONTOON_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    S._MEMO.clear()
    yield S.solved(SMALL)
    S._MEMO.clear()
    mp.undo()


def _policies(sol, sigma, tw):  # type: ignore[no-untyped-def]
    g = sol.game
    oi = {o: i for i, o in enumerate(g.obs)}

    def player(st):  # type: ignore[no-untyped-def]
        i = g.node_index[st]
        return dict(zip(g.nodes[i].actions, sigma[i], strict=True))

    def banker(hand, obs):  # type: ignore[no-untyped-def]
        return 0.0 if obs is None else float(tw[oi[obs], g.banker_index[hand]])

    return player, banker


def _round(rules, order: str) -> BritishRound:  # type: ignore[no-untyped-def]
    rnd = BritishRound(rules, ["p"], "b", BritishPack.stacked_from(order, packs=rules.packs_for(2)))
    rnd.act("p", "stake", "1")
    return rnd


def test_player_hint_equals_the_engine_on_a_reduced_pack(small) -> None:  # type: ignore[no-untyped-def]
    sol = small
    g = sol.game
    rnd = _round(SMALL, "5S AS 5H 5D")  # p: 5-5 (face down), b: A-5
    hint = round_hint(rnd, "p")
    assert hint["role"] == "player" and set(hint["values"]) == {"twist", "buy 1", "buy 2"}
    q, _, _ = player_q(g, sol.tables, sol.tw)
    br = [np.eye(len(x))[int(np.argmax(x))] for x in q]  # his later decisions played best
    node = g.node_index[((4, 4), (), ())]
    reach = multiset_p(g.counts, (), (4, 4)) * (1 - multiset_p(g.counts, (4, 4), (ACE, TEN)))
    engine = {}
    for a in ("twist", "buy1", "buy2"):
        sigma = list(br)
        sigma[node] = np.array([1.0 if b == a else 0.0 for b in g.nodes[node].actions])
        engine[a] = float(engine_value(SMALL, *_policies(sol, sigma, sol.tw)))
    v = hint["values"]
    assert abs((engine["twist"] - engine["buy1"]) - reach * (v["twist"] - v["buy 1"])) < 1e-12
    assert abs((engine["buy2"] - engine["buy1"]) - reach * (v["buy 2"] - v["buy 1"])) < 1e-12


def test_banker_hint_equals_the_engine_on_a_reduced_pack(small) -> None:  # type: ignore[no-untyped-def]
    sol = small
    g, tb = sol.game, sol.tables
    rnd = _round(SMALL, "5S AS 5H 5D 5C TS")  # p: 5-5, b: A-5 (soft 16)
    rnd.act("p", "twist")  # the 5C face up: the banker sees it
    rnd.act("p", "stick")
    assert rnd.phase == "banker"
    hint = round_hint(rnd, "b")
    assert hint["role"] == "banker" and set(hint["values"]) == {"stick", "twist"}
    from pontoon.analysis.british.infosets import banker_observation

    hand, obs = banker_observation(rnd.view("b"), "1")
    o, k = g.obs.index(obs), g.banker_index[hand]
    y = player_flow(g, sol.sigma)
    best, _, _ = banker_response(g, tb, y)
    mass = np.zeros((len(g.obs), len(g.banker)))
    _k_stay(
        tb.f_kind,
        tb.f_obs,
        tb.f_pset,
        tb.f_total,
        np.ones_like(tb.f_stake),
        tb.prob,
        y,
        np.ones((23, len(g.banker))),
        mass,
    )
    engine = {}
    for a, p in (("stick", 0.0), ("twist", 1.0)):
        tw = best.copy()
        tw[o, k] = p
        engine[a] = float(engine_value(SMALL, *_policies(sol, sol.sigma, tw)))
    v = hint["values"]  # the banker's net: minus the player's
    assert abs((engine["twist"] - engine["stick"]) + mass[o, k] * (v["twist"] - v["stick"])) < 1e-12


def test_hints_read_only_what_the_seat_sees() -> None:
    """Deals that differ only in cards a seat cannot see give that seat the same hint."""
    # the banker: p holds 5-7 or 6-6 face down, buys a 4, twists a 3 and sticks
    seen = []
    for order in ("5S 5H 7D KC 4S 3H", "6S 5H 6D KC 4S 3H"):
        rnd = _round(BRITISH, order)
        rnd.act("p", "buy", "1")
        rnd.act("p", "twist")
        rnd.act("p", "stick")
        seen.append(round_hint(rnd, "b"))
    assert seen[0] == seen[1] and seen[0]["values"]
    # the player: the banker's face-down cards differ (5-K against 9-K)
    mine = [round_hint(_round(BRITISH, order), "p") for order in ("TS 5H 6D KC", "TS 9H 6D KC")]
    assert mine[0] == mine[1] and mine[0]["values"]


def test_hint_is_empty_when_the_seat_is_not_to_act() -> None:
    rnd = _round(BRITISH, "TS 5H 6D KC")
    assert round_hint(rnd, "b")["values"] == {}


def _cli(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_play_with_solved_bots_and_hints_and_the_drill_from_the_command_line() -> None:
    p = _cli(
        "play",
        "--rules",
        "british",
        "--bots",
        "solved",
        "--hints",
        "--seed",
        "3",
        "--rounds",
        "2",
        "--no-history",
        stdin="\n" * 30,
    )
    assert p.returncode == 0, p.stderr
    assert "hint (player, expected net)" in p.stdout and "After 2 rounds" in p.stdout
    t = _cli(
        "train",
        "--rules",
        "shoot",
        "--seed",
        "2",
        "--hands",
        "4",
        "--no-history",
        stdin="t\nt\ns\ns\nt\ns\n" * 3,
    )
    assert t.returncode == 0, t.stderr
    assert "session: 4 hands" in t.stdout and ("correct" in t.stdout or "mistake" in t.stdout)
    bad = _cli("train", "--rules", "british", "--only", "soft", "--no-history", stdin="")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")
