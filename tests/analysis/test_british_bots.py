"""Issue 27 item 6: British bots at levels (simple, house, solved) from the shipped solved strategies; the
shipped files are still equilibria of the current model; the bots read only their seat's view (ruling 35)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.bots import LevelBots, make_bots
from pontoon.british.bots import Bots, play_round
from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.rules.british import BRITISH, SHOOT

SMALL = BRITISH.with_(pack_ranks="A5T", pack_suits=4)


@pytest.mark.parametrize(
    "rules,edge",
    [
        (BRITISH, (0.035, 0.042)),
        pytest.param(BRITISH.with_(packs=2), (0.027, 0.033), marks=pytest.mark.slow),
    ],
    ids=["one-pack", "two-packs"],
)
def test_shipped_strategy_is_an_equilibrium_of_the_current_model(rules, edge) -> None:  # type: ignore[no-untyped-def]
    """The shipped file fits the current model state for state, and its exploitability, computed by the exact
    best responses of both sides, is at most 0.001 of the initial stake."""
    sol = S.solved(rules)
    assert sol.source == "shipped"
    value, pbr, bbr = sol.quality()
    assert bbr <= value <= pbr
    assert 0 <= sol.exploitability <= 1e-3
    assert edge[0] < -value < edge[1]  # the banker's edge (docs/analysis.md)


def test_other_rules_are_solved_once_then_read_from_a_bounded_cache(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PONTOON_CACHE_DIR", str(tmp_path))
    S._MEMO.clear()
    lines: list[str] = []
    first = S.solved(SMALL, log=lines.append)
    assert first.source == "solved" and first.exploitability <= 1e-3
    assert any("CFR+" in x for x in lines)  # progress shown
    files = list((tmp_path / "british").glob("*.npz"))
    assert [f.name for f in files] == [f"{S.fingerprint(SMALL)}.npz"]
    S._MEMO.clear()
    again = S.solved(SMALL)
    assert again.source == "cache"
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(again.sigma, first.sigma, strict=True))
    assert np.allclose(again.tw, first.tw, atol=1e-6)
    for i in range(S.CACHE_FILES + 3):  # bounded: the least recently used files go
        (tmp_path / "british" / f"old{i}.npz").write_bytes(b"x")
    S._prune(tmp_path / "british")
    assert len(list((tmp_path / "british").glob("*.npz"))) == S.CACHE_FILES
    S._MEMO.clear()


def test_a_rules_file_equal_to_a_preset_uses_the_shipped_strategy() -> None:
    """Shoot's analysed game is the british one; a renamed table or other limits change nothing."""
    for same in (BRITISH.with_(name="my kitchen table", stake_max=5), SHOOT, BRITISH.with_(two_packs_from=9)):
        assert S.shipped_path(same) == S.DATA / "british.npz"
    assert S.shipped_path(SHOOT.with_(packs=2)) == S.DATA / "british-2packs.npz"
    assert S.shipped_path(SMALL) is None and S.shipped_path(BRITISH.with_(stick_minimum=16)) is None


def test_levels_are_named_and_checked() -> None:
    assert type(make_bots("simple", BRITISH)) is Bots
    assert isinstance(make_bots("house", BRITISH), LevelBots)
    with pytest.raises(ValueError, match="accepted simple, house, solved"):
        make_bots("expert", BRITISH)


def _deal(order: str) -> BritishRound:
    rnd = BritishRound(BRITISH, ["p"], "b", BritishPack.stacked_from(order, packs=1))
    rnd.act("p", "stake", "1")
    return rnd


def test_solved_player_plays_the_solution_at_its_state() -> None:
    """p holds 5-7 (hard 12): the bot's decisions over many seeds follow the solution's mix at that state."""
    sol = S.solved(BRITISH)
    node = sol.node((4, 6), (), ())
    assert node is not None
    mix = dict(zip(sol.game.nodes[node].actions, sol.sigma[node], strict=True))
    bots = make_bots("solved", BRITISH, np.random.default_rng(1))
    seen: dict[str, int] = {}
    for _ in range(200):
        _, verb, amt = bots.decide(_deal("5S 5H 7D KC 4S 3H 2C 2D 2H"))
        key = verb if verb != "buy" else f"buy{amt:g}"
        seen[key] = seen.get(key, 0) + 1
    for a, w in mix.items():
        assert abs(seen.get(a, 0) / 200 - w) < 0.1, (a, w, seen)
    assert set(seen) <= {a for a, w in mix.items() if w > 0}


@pytest.mark.parametrize("level", ["house", "solved", "best"])
def test_banker_bots_never_read_the_players_face_down_cards(level: str) -> None:
    """Two deals that differ only in the player's face-down cards (5-7 against 6-6, then a bought 4 and a
    twisted 3): the banker's decisions, with the same random stream, are identical at every step."""
    decisions = []
    for order in ("5S 5H 7D KC 4S 3H 2C 9D 8H 7H", "6S 5H 6D KC 4S 3H 2C 9D 8H 7H"):
        rnd = _deal(order)
        rnd.act("p", "buy", "1")
        rnd.act("p", "twist")
        rnd.act("p", "stick")
        bots = make_bots(level, BRITISH, np.random.default_rng(5))
        got = []
        while not rnd.over:
            seat, verb, amt = bots.decide(rnd)
            got.append((seat, verb, amt))
            rnd.act(seat, verb, amt)
        decisions.append(got)
    assert decisions[0] == decisions[1] and decisions[0][0][0] == "b"


def test_house_banker_stays_on_17() -> None:
    bots = make_bots("house", BRITISH, np.random.default_rng(0))
    rnd = _deal("TS 7H 8D KC")  # p: T-8 (18), b: 7-K (17)
    rnd.act("p", "stick")
    assert bots.decide(rnd) == ("b", "stick", None)
    rnd = _deal("TS 6H 8D KC 2C")  # b: 6-K (16): twists
    rnd.act("p", "stick")
    assert bots.decide(rnd) == ("b", "twist", None)


@pytest.mark.parametrize(
    "level,rules",
    [("simple", SHOOT), ("house", BRITISH), ("solved", BRITISH), ("solved", SHOOT), ("best", BRITISH)],
    ids=["simple-shoot", "house-british", "solved-british", "solved-shoot", "best-british"],
)
def test_levels_play_whole_rounds_at_a_table_of_four(level: str, rules) -> None:  # type: ignore[no-untyped-def]
    game = BritishGame(rules, ["a", "b", "c", "d"], rng=7)
    bots = make_bots(level, rules, np.random.default_rng(7))
    total = Decimal(0)
    for _ in range(15):
        summary = play_round(game, bots)
        total += sum((n.get("total", Decimal(0)) for n in summary["net"].values()), Decimal(0))
    assert game.rounds_played == 15
    assert total == 0 or rules.shoot  # money is conserved between the seats (Shoot: and the kitty)
