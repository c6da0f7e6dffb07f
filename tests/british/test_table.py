"""Between rounds (003 The New Deal, Shoot Pontoon kitty), bots, simulation and terminal play."""

from __future__ import annotations

import io
from collections import Counter
from decimal import Decimal

import pytest
from rich.console import Console

from pontoon.british.bots import Bots, PlayerPolicy, play_round
from pontoon.british.pack import BritishPack
from pontoon.british.table import BritishGame
from pontoon.cards import PACKS, parse_cards
from pontoon.cli.play_british import play_british
from pontoon.errors import BetError, IllegalAction
from pontoon.rules.british import BRITISH, SHOOT
from pontoon.sim.british import simulate_british

D = Decimal


def ordered_pack(top: str) -> tuple[BritishPack, list[str]]:
    first = parse_cards(top)
    rest = [c for c in PACKS["standard52"] if c not in first]
    cards = first + rest
    return BritishPack(cards), [str(c) for c in cards]


def test_new_deal_bottom_without_shuffle_then_pontoon_shuffles_and_passes_bank() -> None:
    # round 1: ann 9S 7C, bob 5H TD, dan 8C 9D; round 2: ann AS KS (Pontoon), bob 2C 4C, dan 3C 5C
    pack, order = ordered_pack("9S 5H 8C 7C TD 9D AS 2C 3C KS 4C 5C")
    game = BritishGame(BRITISH, ["dan", "ann", "bob"], banker="dan", pack=pack, rng=7)
    assert game.players == ["ann", "bob"]
    r = game.new_round()
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.stick("ann")
    r.stick("bob")
    r.stick("dan")
    s = game.end_round()
    # 003: "the dealer adds all the used cards to the bottom of the pack and without shuffling deals a new hand"
    assert s["shuffled"] is False and game.banker == "dan"
    assert [str(c) for c in game.pack.cards()] == order[6:] + ["9S", "7C", "5H", "TD", "8C", "9D"]
    assert game.balances() == {"dan": 10, "ann": -5, "bob": -5}
    r2 = game.new_round()
    assert [str(h.cards[0]) for h in r2.hands] == ["AS", "2C"]
    r2.stake("ann", 5)
    r2.stake("bob", 5)
    assert r2.hands[0].status == "pontoon"
    play_round_rest(game)
    s2 = game.end_round()
    # 003: a Pontoon without splitting, the banker without one: the player becomes the new banker
    assert s2["next_banker"] == "ann" and game.banker == "ann"
    assert game.players == ["bob", "dan"]
    # 003: "If there was a Pontoon, the cards are shuffled and cut before the next deal"
    assert s2["shuffled"] is True
    assert Counter(game.pack.cards()) == Counter(PACKS["standard52"])
    unshuffled = order[12:] + ["9S", "7C", "5H", "TD", "8C", "9D"]
    assert [str(c) for c in game.pack.cards()] != unshuffled + [str(c) for c in r2.in_play_cards()]
    assert game.total_money() == 0


def play_round_rest(game: BritishGame) -> None:
    bots = Bots()
    r = game.round
    assert r is not None
    while not r.over:
        seat, verb, amt = bots.decide(r)
        r.act(seat, verb, amt)


def test_sell_the_bank() -> None:
    # 003: "sell the bank to another player at a mutually agreed price"
    game = BritishGame(BRITISH, ["dan", "ann", "bob"], banker="dan", rng=1)
    with pytest.raises(IllegalAction, match="other than the banker"):
        game.sell_bank("dan", 5)
    game.sell_bank("bob", 12)
    assert game.banker == "bob" and game.balances() == {"dan": 12, "ann": 0, "bob": -12}
    game.new_round()
    with pytest.raises(IllegalAction, match="only between rounds"):
        game.sell_bank("ann", 1)


def test_kitty_lifecycle() -> None:
    # 003 Shoot: kitty between limits; top up, never take out; empty kitty: new kitty or sale
    pack, _ = ordered_pack("9S 8C TC 9D")
    game = BritishGame(SHOOT, ["dan", "ann"], banker="dan", pack=pack, rng=3)
    with pytest.raises(IllegalAction, match="kitty is empty"):
        game.new_round()
    with pytest.raises(BetError, match="accepted 1 to 100"):
        game.put_kitty(101)
    game.put_kitty(1)
    with pytest.raises(BetError, match="never take out"):
        game.top_up_kitty(-1)
    r = game.new_round()
    r.stake("ann", 5)
    r.shoot("ann", 1)
    r.stick("ann")
    r.stick("dan")
    game.end_round()
    assert game.kitty == 0 and game.needs_kitty
    with pytest.raises(IllegalAction, match="put up a new kitty.*or sell the bank"):
        game.new_round()
    game.sell_bank("ann", 10)
    assert game.banker == "ann" and game.needs_kitty
    game.put_kitty(5)
    game.top_up_kitty(2)
    assert game.kitty == 7 and game.total_money() == 0


def test_old_banker_retrieves_kitty_when_bank_passes() -> None:
    # 003 Shoot: "the old dealer retrieves anything that was left in the kitty"
    pack, _ = ordered_pack("AS 9C KS 8D")
    game = BritishGame(SHOOT, ["dan", "ann"], banker="dan", pack=pack, rng=3)
    game.put_kitty(20)
    r = game.new_round()
    r.stake("ann", 5)
    r.pass_("ann")
    r.stick("dan")
    game.end_round()
    assert game.banker == "ann" and game.kitty == 0 and game.needs_kitty
    assert game.balances() == {"dan": -10, "ann": 10}


def test_bots_play_many_rounds_and_conserve_money() -> None:
    for rules in (BRITISH, SHOOT.with_(burn="hard13", royal_pontoon=True, banker_may_double=True)):
        game = BritishGame(rules, ["a", "b", "c", "d", "e", "f", "g", "h"], rng=5)
        assert game.pack.packs == 2  # 003: two packs for 8 or more
        bots = Bots(players={"a": PlayerPolicy(stick_on=15, buy_up_to=14)})
        for _ in range(60):
            play_round(game, bots)
            assert game.total_money() == 0
            assert Counter(game.pack.cards()) == Counter(PACKS["standard52"] * 2)


def test_simulate_british() -> None:
    a = simulate_british(BRITISH, 300, seed=11)
    b = simulate_british(BRITISH, 300, seed=11)
    for key in ("rounds", "seconds", "rounds_per_second", "house_edge", "ci95", "sd", "lines"):
        assert key in a
    assert a["house_edge"] == b["house_edge"] and a["rounds"] == 300
    assert {"pontoon", "five_card_trick", "banker_pontoon", "banker_bust"} <= set(a["lines"])
    assert 0 < a["lines"]["pontoon"]["hit_rate"] < 0.15
    s = simulate_british(SHOOT, 200, seed=2, players=6)
    assert "shoot_edge" in s


def run_cli(text: str, **kw: object) -> tuple[int, str]:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False, color_system=None)
    rc = play_british(
        kw.pop("rules", BRITISH),
        input_stream=io.StringIO(text),
        console=console,  # type: ignore[arg-type]
        stdin_is_tty=False,
        **kw,
    )  # type: ignore[arg-type]
    return rc, out.getvalue()


def test_cli_piped_actions_play_to_the_end() -> None:
    rc, out = run_cli("stake 5\ns\nt\n\n" + "\n" * 200, seed=4, rounds=3)
    assert rc == 0 and "After 3 rounds" in out and "[k] stake 1..100" in out


def test_cli_seat_none_means_you() -> None:
    rc, out = run_cli("", seat=None, seed=1, rounds=1)
    assert rc == 0 and "you are you" in out


def test_cli_ends_cleanly_at_end_of_input() -> None:
    rc, out = run_cli("k 5\n", seed=4, rounds=None)
    # the unfinished round is void (every stake returned) and counted as a round of the table
    assert rc == 0 and "End of input." in out and "Round 1 unfinished: void, every stake returned." in out
    assert "After 1 rounds" in out and "you 0" in out


def test_cli_bad_input_is_reported_and_reread() -> None:
    rc, out = run_cli("x\nstake 1000\nstake 5\n" + "\n" * 100, seed=4, rounds=1)
    assert rc == 0 and "not one of the legal actions" in out and "out of range" in out


def test_cli_human_banker_shoot() -> None:
    rc, out = run_cli("10\n" + "\n" * 300, rules=SHOOT, seat="bank", seed=9, rounds=2)
    assert rc == 0 and "kitty" in out and "After 2 rounds" in out


def test_cli_hides_bots_bought_cards() -> None:
    # the human only ever sees its own view: no bot's face-down card is printed while the round is on
    rc, out = run_cli("\n" * 400, seed=21, rounds=5, players=4)
    assert rc == 0
    assert "buys a card for" in out or "twists" in out
    for line in out.splitlines():
        if "buys a card for" in line and not line.startswith("you"):
            assert ":" not in line


def test_first_banker_chosen_at_random_from_the_injected_rng() -> None:
    # 003: "the first banker is chosen at random (whoever cuts the highest card)"
    chosen = {BritishGame(BRITISH, ["a", "b", "c"], rng=seed).banker for seed in range(40)}
    assert chosen == {"a", "b", "c"}
    assert (
        BritishGame(BRITISH, ["a", "b", "c"], rng=5).banker
        == BritishGame(BRITISH, ["a", "b", "c"], rng=5).banker
    )
