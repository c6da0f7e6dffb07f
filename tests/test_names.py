"""Account names are data, never keys of the house (rulings 32, issue 10 item 1).

A player named ``house`` or ``layout`` at a casino table, or ``kitty`` at a Shoot Pontoon table, once
merged with the ledger's own accounts: money silently lost (exit 0, wrong ``net``), or an
AssertionError for a British player named ``layout``. The ledger's house, layout, kitty and bank
accounts now live in their own namespace (``settlement.System``), so any printable name works.

The property tests play the same round twice, once with ordinary names and once with hostile ones
(the same shoe, the same decisions by position in the list of legal actions), and check that money is
conserved and every seat's net is the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.casino.round import CasinoRound
from pontoon.casino.table import CasinoTable
from pontoon.errors import PontoonError
from pontoon.protocol import TABLE, Action
from pontoon.rules import find_rules
from pontoon.rules.british import BritishRules
from pontoon.rules.model import CasinoRules
from pontoon.scenario_runner import run_scenario
from pontoon.settlement import HOUSE, KITTY, LAYOUT, Ledger, System, is_system
from pontoon.shoe import Shoe

HOSTILE = [
    "house",
    "layout",
    "kitty",
    "bank",
    "banker",
    "dealer",
    "table",
    "total",
    "HOUSE",
    "<house>",
    "System.HOUSE",
    "",
    " ",
    "house ",
    "ann bob",
    "Ünïcødé 🂡",
    "x" * 5000,
]
CASINO = ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"]


# --------------------------------------------------------------------------------------------
# the reproductions of issue 10 item 1, each failed before the fix
def _pontoon_for(name: str) -> dict:
    return {
        "rules": "mbs",
        "shoe": "AS 5C 9H KD QC 8D",
        "boxes": {"1": [{"player": name, "main": 10}], "2": [{"player": "bob", "main": 20}]},
        "actions": ["2 stand"],
    }


@pytest.mark.parametrize("name", ["house", "layout", "kitty", "bank", "ann"])
def test_casino_player_named_like_an_account_is_paid(name: str) -> None:
    out = run_scenario(_pontoon_for(name))
    # 000 3.7, 4.1: A-K is a Pontoon paid 3 to 2 (10 -> +15); bob's 15 loses 20 to 17
    assert out["net"][name] == {"main": 15, "total": 15}
    assert out["net"]["bob"] == {"main": -20, "total": -20}
    assert out["house"] == 5


def test_casino_player_named_house_through_the_cli() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", "scenario", "-"],
        input=json.dumps(_pontoon_for("house")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["net"]["house"]["total"] == 15 and out["house"] == 5


def _shoot(kitty_player: str) -> dict:
    # scenarios/british/shoot-bets-and-bust-to-kitty.json with bob renamed
    return {
        "rules": "shoot",
        "players": ["ann", kitty_player],
        "banker": "dan",
        "kitty": 20,
        "shoe": "9S 5H 8C TC 8D 9C KD",
        "actions": [
            "ann stake 5",
            f"{kitty_player} stake 5",
            "ann shoot 10",
            f"{kitty_player} shoot 10",
            "ann stick",
            f"{kitty_player} twist",
            "dan stick",
        ],
    }


@pytest.mark.parametrize("name", ["kitty", "layout", "house", "bob"])
def test_shoot_player_named_kitty_keeps_his_money(name: str) -> None:
    out = run_scenario(_shoot(name))
    assert out["status"] == "settled"
    assert out["net"]["ann"] == {"stake": 5, "shoot": 10, "total": 15}
    assert out["net"][name] == {"stake": -5, "shoot": -10, "total": -15}
    assert out["net"]["dan"] == {"stake": 0, "shoot": 0, "total": 0}
    assert out["kitty"] == 20


@pytest.mark.parametrize("name", ["layout", "kitty", "house", "bob"])
def test_british_player_named_layout_settles(name: str) -> None:
    data = {
        "rules": "british",
        "players": ["ann", name],
        "banker": "dan",
        "shoe": "9S 5H 8C TC 8D 9C KD",
        "actions": ["ann stake 5", f"{name} stake 5", "ann stick", f"{name} twist", "dan stick"],
    }
    out = run_scenario(data)
    # deal: ann 9S, NAME 5H, dan 8C; then ann TC, NAME 8D, dan 9C. ann's 19 sticks; NAME's 13 twists KD
    # and busts (-5); dan's 17: ann's 19 wins 5
    assert out["net"]["ann"]["total"] == 5
    assert out["net"][name]["total"] == -5
    assert out["net"]["dan"]["total"] == 0


def test_banker_named_kitty_in_shoot() -> None:
    data = _shoot("bob")
    data["banker"] = "kitty"
    data["actions"] = [a.replace("dan", "kitty") for a in data["actions"]]
    out = run_scenario(data)
    assert out["net"]["kitty"] == {"stake": 0, "shoot": 0, "total": 0}
    assert out["kitty"] == 20


# --------------------------------------------------------------------------------------------
# the ledger itself
def test_system_accounts_are_never_equal_to_a_name() -> None:
    for acct in System:
        assert is_system(acct)
        for name in (acct.value, acct.name, str(acct), repr(acct)):
            assert acct != name and name != acct
            assert not is_system(name)
    assert {HOUSE: 1, "house": 2} == {"house": 2, HOUSE: 1}
    assert len({HOUSE, "house", LAYOUT, "layout", KITTY, "kitty"}) == 6


def test_ledger_net_skips_system_accounts_by_type() -> None:
    led = Ledger()
    led.stake("house", "main", Decimal(10))
    led.stake("layout", "main", Decimal(10))
    led.collect("house", "main", Decimal(10), "lose")
    led.give_back("layout", "main", Decimal(10), "win")
    led.pay("layout", "main", Decimal(10), "win")
    led.move("kitty", KITTY, Decimal(3), kind="kitty", player="kitty", reason="new kitty")
    net = led.net()
    assert net["house"] == {"main": Decimal(-10), "total": Decimal(-10)}
    assert net["layout"] == {"main": Decimal(10), "total": Decimal(10)}
    assert net["kitty"] == {"kitty": Decimal(-3), "total": Decimal(-3)}
    assert led.total() == 0 and led.on_layout() == 0
    assert led.balances[HOUSE] == 0 and led.balances["house"] == -10
    assert led.balances[KITTY] == 3 and led.balances["kitty"] == -3


def test_transfer_accounts_encode_without_ambiguity() -> None:
    from pontoon.settlement import account_from_json, account_json

    for acct in (*System, "house", "layout", "kitty", "", '{"system": "house"}'):
        enc = account_json(acct)
        assert account_from_json(json.loads(json.dumps(enc))) == acct
    assert account_json(HOUSE) != account_json("house")
    with pytest.raises(PontoonError):
        account_from_json({"system": "nobody"})
    with pytest.raises(PontoonError):
        account_from_json(7)


def test_transfers_round_trip_through_json() -> None:
    from pontoon.settlement import Transfer

    led = Ledger()
    led.stake("house", "main", Decimal("12.50"))
    led.collect("house", "main", Decimal("12.50"), "lose")
    for t in led.transfers:
        again = Transfer.from_json(json.loads(json.dumps(t.to_json())))
        assert again == t
    assert led.transfers[1].to_json()["dest"] == {"system": "house"}
    assert led.transfers[1].to_json()["player"] == "house"
    for bad in (
        {},
        {"source": "a", "dest": "b", "amount": "NaN", "kind": "k", "player": "p", "reason": "r"},
        {"source": "a", "dest": "b", "amount": "-1", "kind": "k", "player": "p", "reason": "r"},
        {"source": "a", "dest": "b", "amount": "x", "kind": "k", "player": "p", "reason": "r"},
    ):
        with pytest.raises(PontoonError):
            Transfer.from_json(bad)


# --------------------------------------------------------------------------------------------
# property: the same round with ordinary names and with hostile ones
def _names() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(HOSTILE),
        st.text(max_size=12),
        st.builds(lambda c, n: c * n, st.characters(blacklist_categories=("Cs",)), st.integers(200, 3000)),
    )


def _distinct(n: int) -> st.SearchStrategy[list[str]]:
    return st.lists(_names(), min_size=n, max_size=n, unique=True)


def _pick(gen: np.random.Generator, legal: list[Action]) -> Action:
    a = legal[int(gen.integers(len(legal)))]
    if a.low is not None:
        a = a.with_amount(a.low if gen.integers(2) else a.high)
    return a


def _play_casino(rules: CasinoRules, seed: int, names: list[str]) -> tuple[dict, Decimal, Ledger]:
    """Box 1: names[0] seated (with a side bet) and names[1] standing; box 2: names[2]."""
    rnd = CasinoRound(rules, Shoe.shuffled(rules.decks, seed, pack=rules.pack), rng=seed)
    lo = rules.table_min
    rnd.place_bet(1, names[0], "main", lo * 2)
    rnd.place_bet(1, names[1], "main", lo)
    rnd.place_bet(2, names[2], "main", lo)
    for kind in rules.side_bets:
        rnd.place_bet(1, names[0], kind, rules.side_min)
    rnd.close_bets()
    gen = np.random.default_rng(seed)
    steps = 0
    while not rnd.is_over():
        steps += 1
        assert steps < 200
        rnd.act(TABLE, _pick(gen, rnd.legal_actions(TABLE)))
        assert rnd.ledger.total() == 0
    res = rnd.result()
    return res.net, res.house, rnd.ledger


@pytest.mark.parametrize("preset", CASINO)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=_distinct(3), seed=st.integers(0, 2**32 - 1))
def test_casino_any_name_nets_as_an_ordinary_name(preset: str, names: list[str], seed: int) -> None:
    rules = find_rules(preset)
    assert isinstance(rules, CasinoRules)
    if any(not n.strip() for n in names):
        # a blank name is refused with a one-line error, never taken as an account
        with pytest.raises(PontoonError, match="player name"):
            _play_casino(rules, seed, names)
        return
    plain = ["p1", "p2", "p3"]
    net0, house0, _ = _play_casino(rules, seed, plain)
    net, house, led = _play_casino(rules, seed, names)
    assert house == house0
    assert set(net) == set(names)
    for n, p in zip(names, plain, strict=True):
        assert net[n] == net0[p]
    assert led.total() == 0 and led.on_layout() == 0
    assert led.balances[HOUSE] == -sum((net[n]["total"] for n in names), Decimal(0))
    assert sum((led.balances[n] for n in names), Decimal(0)) == -house


def _play_british(
    rules: BritishRules, seed: int, players: list[str], banker: str
) -> tuple[dict, Decimal, Ledger]:
    rnd = BritishRound(
        rules, players, banker, BritishPack.shuffled(1, seed), kitty=Decimal(20) if rules.shoot else 0
    )
    gen = np.random.default_rng(seed)
    steps = 0
    while not rnd.is_over():
        steps += 1
        assert steps < 300
        who = rnd.to_act()
        assert isinstance(who, str)
        rnd.act(who, _pick(gen, rnd.legal_actions(who)))
        assert rnd.ledger.total() == 0
    return rnd.net(), rnd.kitty(), rnd.ledger


@pytest.mark.parametrize("preset", ["british", "shoot"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=_distinct(4), seed=st.integers(0, 2**32 - 1))
def test_british_any_name_nets_as_an_ordinary_name(preset: str, names: list[str], seed: int) -> None:
    rules = find_rules(preset)
    assert isinstance(rules, BritishRules)
    plain = ["p1", "p2", "p3", "bk"]
    net0, kitty0, _ = _play_british(rules, seed, plain[:3], plain[3])
    try:
        net, kitty, led = _play_british(rules, seed, names[:3], names[3])
    except PontoonError:
        # only a blank name may be refused, with the project's one-line error
        assert any(not n.strip() for n in names)
        return
    assert kitty == kitty0
    assert set(net) == set(names)
    for n, p in zip(names, plain, strict=True):
        assert net[n] == net0[p]
    # money conserved: the seats' totals and the kitty's change sum to zero
    assert sum((net[n]["total"] for n in names), Decimal(0)) == 0
    assert led.total() == 0 and led.on_layout() == 0


# --------------------------------------------------------------------------------------------
# the tables keep the names apart too
def test_casino_table_players_named_house_and_layout() -> None:
    rules = find_rules("mbs")
    assert isinstance(rules, CasinoRules)
    table = CasinoTable(rules, shoe=Shoe.stacked_from("AS 5C 9H KD QC 8D"))
    table.join("house", 100)
    table.join("layout", 100)
    table.new_round()
    table.place_bet(1, "house", "main", 10)
    table.place_bet(2, "layout", "main", 20)
    table.deal()
    table.act("layout", Action("stand", 2))
    summary = table.end_round()
    assert table.balances() == {"house": Decimal(115), "layout": Decimal(80)}
    assert summary["house"] == "5"


def test_shoot_table_seat_named_kitty() -> None:
    rules = find_rules("shoot")
    assert isinstance(rules, BritishRules)
    game = BritishGame(rules, ["kitty", "layout", "house"], banker="house", rng=7)
    game.put_kitty(20)
    assert game.kitty == 20 and game.balance("kitty") == 0 and game.balance("house") == -20
    assert game.total_money() == 0
    rnd = game.new_round()
    gen = np.random.default_rng(7)
    while not rnd.is_over():
        who = rnd.to_act()
        assert isinstance(who, str)
        game.act(who, _pick(gen, rnd.legal_actions(who)))
    game.end_round()
    assert game.total_money() == 0
    assert sum(game.balances().values()) + game.kitty == 0
