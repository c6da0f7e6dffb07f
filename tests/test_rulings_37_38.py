"""Rulings 37 (PAN side wagers need the player's own main wager) and 38 (a shoe holding more of a card
than its decks can: void in PLUS, refused elsewhere). The golden files: scenarios/rws-plus/rul38-*.json
(played by test_scenarios_plus_pandemonium.py) and scenarios/*/refused/*.json (here: each must be
refused with the one-line error its ``expect.error`` names, exit 2 on the command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from pontoon.casino.round import CasinoRound
from pontoon.errors import BetError, PontoonError, ScenarioError
from pontoon.rules import find_rules
from pontoon.rules.model import CasinoRules
from pontoon.scenario_runner import run_scenario
from pontoon.shoe import Shoe

ROOT = Path(__file__).resolve().parent.parent
REFUSED = sorted(ROOT.glob("scenarios/*/refused/*.json"))
D = Decimal


def casino(preset: str, shoe: str, **options: object) -> CasinoRound:
    rules = find_rules(preset)
    assert isinstance(rules, CasinoRules)
    if options:
        rules = rules.with_(**options)
    return CasinoRound(rules, Shoe.stacked_from(shoe, pack=rules.pack), jackpot=[2])


@pytest.mark.parametrize("path", REFUSED, ids=[f"{p.parent.parent.name}/{p.name}" for p in REFUSED])
def test_refused_scenario(path: Path) -> None:
    data = json.loads(path.read_text())
    assert data["rules"] == path.parent.parent.name and data.get("description")
    with pytest.raises(PontoonError) as err:
        run_scenario(data)
    assert data["expect"]["error"] in str(err.value)


def test_refused_scenarios_exist() -> None:
    names = {p.name for p in REFUSED}
    assert any(n.startswith("rul37") for n in names) and any(n.startswith("rul38") for n in names)


def test_cli_refuses_an_impossible_shoe_with_exit_2() -> None:
    path = ROOT / "scenarios" / "mbs" / "refused" / "rul38-five-7s-at-4-decks-refused.json"
    p = subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", "scenario", "--check", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("error: ") and "5 x 7S: more than 4 decks" in p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------------------ rul 38
def test_rul38_plus_voids_the_round_and_returns_every_wager() -> None:
    rnd = casino("rws-plus", "7S 7S 7S 7S 7S", decks=4)
    rnd.place_bet(1, "ann", "main", D(10))
    rnd.place_bet(1, "ann", "pair", D(5))
    rnd.place_bet(1, "bob", "bonus", D(5))
    rnd.close_bets()
    assert rnd.is_over() and rnd.void_reason == "excess of cards in the deck: 5 x 7S (004 5.5.2)"
    assert rnd.shoe.dealt == 0  # nothing dealt, nothing paid
    net = rnd.ledger.net(rnd.players())
    assert all(v == 0 for d in net.values() for v in d.values())


@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-pandemonium"])
def test_rul38_other_games_refuse_the_shoe_and_leave_the_round_open(preset: str) -> None:
    rnd = casino(preset, "7S 7S 7S 7S 7S 9D", decks=4)
    rnd.place_bet(1, "ann", "main", D(10))
    n = len(rnd.log)
    with pytest.raises(ScenarioError, match="rulings 38"):
        rnd.close_bets()
    assert len(rnd.log) == n and not rnd.is_over() and rnd.shoe.dealt == 0


def test_rul38_as_many_as_the_decks_hold_is_a_good_shoe() -> None:
    rnd = casino("rws-plus", "7S 7S 7S 7S 9D KH", decks=4)
    rnd.place_bet(1, "ann", "main", D(10))
    rnd.close_bets()
    assert rnd.void_reason is None


# ------------------------------------------------------------------------------ rul 37
@pytest.mark.parametrize("kind", ["pandemonium", "pair"])
def test_rul37_pan_side_wager_needs_the_players_own_main(kind: str) -> None:
    rnd = casino("rws-pandemonium", "KH 6D AS")
    rnd.place_bet(1, "ann", "main", D(20))
    with pytest.raises(
        BetError, match=r"needs bob's own main wager on that box first \(002 3\.3, rulings 37"
    ):
        rnd.place_bet(1, "bob", kind, D(10))
    rnd.place_bet(1, "bob", "main", D(10))
    rnd.place_bet(1, "bob", kind, D(10))  # with his own main wager he may


@pytest.mark.parametrize(("preset", "kind"), [("rws-plus", "pair"), ("rws-plus", "bonus")])
def test_rul37_plus_keeps_any_main_wager_on_the_box(preset: str, kind: str) -> None:
    rnd = casino(preset, "KH 6D AS")
    rnd.place_bet(1, "ann", "main", D(20))
    rnd.place_bet(1, "bob", kind, D(10))  # 004 3.9: a main wager on the box, anyone's


def test_rul37_pan_side_wager_returned_when_its_own_main_is_withdrawn() -> None:
    rnd = casino("rws-pandemonium", "KH 6D AS")
    rnd.place_bet(1, "ann", "main", D(20))
    rnd.place_bet(1, "bob", "main", D(10))
    rnd.place_bet(1, "bob", "pandemonium", D(10))
    rnd.withdraw_bet(1, "bob", "main")
    rnd.close_bets()
    assert rnd.is_over()
    net = rnd.ledger.net(rnd.players())
    assert net["bob"]["total"] == 0 and net["ann"]["total"] == D(30)  # nothing paid to bob's orphan
