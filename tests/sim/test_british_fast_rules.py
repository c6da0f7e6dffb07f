"""The fast British simulator's house variations (issue 27 item 7): the Pontoon rank variations, card for
card against the engine on stacked packs rich in Pontoons (every rule the kernel plays here is the
engine's: ``british.ranking`` and ``british.settle``)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from pontoon.british.bots import BankerPolicy, Bots, PlayerPolicy
from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.cards import RANKS, Card
from pontoon.rules.load import find_rules
from pontoon.sim import _british_kernel as K
from pontoon.sim import british_fast as bf

BRITISH = find_rules("british")
FULL = [Card(r, s) for r in RANKS for s in "SHDC"]


def _rank(c: Card) -> int:
    return RANKS.index(c.rank)


def _engine(rules, cards: list[Card], players: int, bots: Bots) -> tuple[bool, dict[str, Decimal], int]:
    pack = BritishPack(cards, stacked=True)
    rnd = BritishRound(rules, [f"p{i + 1}" for i in range(players)], "bank", pack)
    while not rnd.over:
        seat, verb, amt = bots.decide(rnd)
        rnd.act(seat, verb, amt)
    if rnd.phase == "void":
        return True, {}, pack.drawn
    return False, {s: d["total"] for s, d in rnd.net().items()}, pack.drawn


def _rich_pack(rng: np.random.Generator, players: int, share: float) -> list[Card]:
    """A shuffled pack whose first two cards of each seat (the deal order) are, with chance ``share``
    each, aces or ten-value cards: Pontoons of every kind against the banker's are common."""
    rest = [FULL[i] for i in rng.permutation(52)]
    head: list[Card] = []
    for _ in range(2 * (players + 1)):
        pool = [c for c in rest if c.is_ace or c.is_ten_value] if rng.random() < share else rest
        c = pool[int(rng.integers(len(pool)))]
        rest.remove(c)
        head.append(c)
    return head + rest


def _card_for_card(rules, bots: Bots, packs: int, seed: int, share: float = 0.8) -> int:
    """Stacked packs through the engine and the kernel: the same void rounds, cards dealt and every
    seat's net; returns the number of rounds in which the banker had a Pontoon."""
    rng = np.random.default_rng(seed)
    banker_pontoons = 0
    for players in (1, 3, 5):
        spec = bf.build_spec(rules, players, player=bots.player_default, banker=bots.banker_default)
        unit = spec.quantum / spec.den
        for _ in range(packs):
            cards = _rich_pack(rng, players, share)
            void, nets, drawn = _engine(rules, cards, players, bots)
            rec, _ = bf.play_stacked(spec, [_rank(c) for c in cards])
            k = rec[0]
            assert bool(k[0]) == void and k[2] == drawn, cards
            for i in range(players):
                assert Decimal(int(k[3 + i])) * unit == nets[f"p{i + 1}"], (cards, i)
            assert Decimal(int(k[1])) * unit == nets["bank"], cards
            b = cards[players], cards[2 * players + 1]
            banker_pontoons += sum(c.is_ace for c in b) == 1 and sum(c.is_ten_value for c in b) == 1
    return banker_pontoons


@pytest.mark.parametrize(
    "variation",
    [
        {"ace_ten_not_pontoon": True},
        {"natural_beats_plain": True},
        {"ace_picture_beats_ace_ten": True},
        {"natural_beats_plain": True, "ace_picture_beats_ace_ten": True, "banker_may_double": True},
        {"natural_beats_plain": True, "ace_ten_not_pontoon": True, "pontoon_pays": Decimal("1.5")},
    ],
)
def test_pontoon_rank_variations_card_for_card(variation: dict[str, object]) -> None:
    """003 variations: A-10 "just an ordinary 21" (the player and the banker play it), a natural Pontoon
    (A-K, A-Q) beating a plain one, an ace and a picture beating an ace and a ten: a player's Pontoon that
    outranks the banker's wins, paid as a Pontoon (rul 29), an equal one loses to it."""
    rules = BRITISH.model_copy(update=variation)
    bots = Bots(player_default=PlayerPolicy(split_ranks="A8"), banker_default=BankerPolicy())
    assert _card_for_card(rules, bots, 40, 7) > 20


def _nets(rules, deal: str, players: int = 2) -> list[Decimal]:
    """The players' nets of one stacked deal, the kernel's (checked equal to the engine's)."""
    cards = [Card.parse(c) for c in deal.split()]
    cards += [c for c in FULL if c not in cards]
    spec = bf.build_spec(rules, players)
    rec, _ = bf.play_stacked(spec, [_rank(c) for c in cards])
    void, eng, _ = _engine(rules, list(cards), players, Bots())
    assert not void and not rec[0][0]
    unit = spec.quantum / spec.den
    out = [Decimal(int(x)) * unit for x in rec[0][3 : 3 + players]]
    assert out == [eng[f"p{i + 1}"] for i in range(players)]
    return out


def test_pontoon_rank_variations_change_the_result() -> None:
    """The same stacked deals settle differently under each variation (the checks above are not vacuous).
    Deal order: p1, p2, banker, p1, p2, banker; the bots stake 2 on a first ace or ten-value card, else 1."""
    v = {
        name: BRITISH.model_copy(update=upd)
        for name, upd in (
            ("plain", {}),
            ("natural", {"natural_beats_plain": True}),
            ("picture", {"ace_picture_beats_ace_ten": True}),
            ("a10", {"ace_ten_not_pontoon": True}),
        )
    }
    natural = "AS AH AD KS TS JC"  # p1 A-K, p2 A-10, banker A-J
    assert _nets(v["plain"], natural) == [-4, -4]  # 003: the banker's Pontoon collects double
    assert _nets(v["natural"], natural) == [4, -4]  # A-K natural beats A-J plain; A-10 ties plain: banker
    assert _nets(v["picture"], natural) == [-4, -4]  # ace-picture against ace-picture: equal, banker
    ten = "AS 9H AD KS 8C TC"  # p1 A-K, p2 9-8, banker A-10
    assert _nets(v["plain"], ten) == [-4, -2]
    assert _nets(v["picture"], ten) == [4, -2]  # an ace and a picture beats an ace and a ten
    assert _nets(v["natural"], ten) == [4, -2]  # A-K natural beats A-10 plain
    assert _nets(v["a10"], ten) == [4, -1]  # the banker's A-10 is an ordinary 21: he stays on it


# ------------------------------------------------------------------------------------------------
# Shoot Pontoon: the kitty and the bots' shoot bets

SHOOT = find_rules("shoot")


def _engine_shoot(rules, cards: list[Card], players: int, bots: Bots, kitty: Decimal):
    pack = BritishPack(cards, stacked=True)
    rnd = BritishRound(rules, [f"p{i + 1}" for i in range(players)], "bank", pack, kitty=kitty)
    while not rnd.over:
        seat, verb, amt = bots.decide(rnd)
        rnd.act(seat, verb, amt)
    shot = sum((h.shoot for h in rnd.hands), Decimal(0))
    return rnd, pack.drawn, shot


SHOOT_CASES = [
    (SHOOT, Bots()),  # the kitty maximum (100): the bots' quarter of what may be shot
    # a small kitty: the capacity binds (the second shooter gets less, later ones none), busts refill it
    (SHOOT, Bots(banker_default=BankerPolicy(kitty=Decimal(6)))),
    (
        SHOOT.model_copy(update={"shoot_min": Decimal("0.5"), "banker_may_double": True}),
        Bots(
            player_default=PlayerPolicy(
                shoot_fraction=Decimal("0.5"), shoot_fourth_up_to=13, split_ranks="A8T"
            ),
            banker_default=BankerPolicy(kitty=Decimal("4.5")),
        ),
    ),
    (
        SHOOT.model_copy(update={"natural_beats_plain": True, "royal_pontoon": True}),
        Bots(player_default=PlayerPolicy(buy_up_to=14, shoot_fourth_up_to=14)),
    ),
]


@pytest.mark.parametrize("case", range(len(SHOOT_CASES)))
def test_shoot_bets_card_for_card(case: int) -> None:
    """Random stacked packs (some cut short): the kernel places the same shoot bets as the bots in the
    engine (before the second card on an ace or ten-value, before the fourth card at a low hard total, within
    what the kitty still covers), and every seat's stake net, shoot net and the cards dealt agree."""
    rules, bots = SHOOT_CASES[case]
    kitty = bots.kitty_for(rules, "bank")
    rng = np.random.default_rng(40 + case)
    shots = fourth = 0
    for players in (1, 2, 4, 6):
        spec = bf.build_spec(rules, players, player=bots.player_default, banker=bots.banker_default)
        unit = spec.quantum / spec.den
        for _ in range(30):
            cards = [FULL[i] for i in rng.permutation(52)]
            if rng.random() < 0.2:
                cards = cards[: int(rng.integers(2 * players + 2, 3 * players + 8))]
            rnd, drawn, shot = _engine_shoot(rules, cards, players, bots, kitty)
            rec, _ = bf.play_stacked(spec, [_rank(c) for c in cards])
            k = rec[0]
            assert bool(k[0]) == (rnd.phase == "void") and k[2] == drawn, cards
            if rnd.phase == "void":
                continue
            net = rnd.net()
            for i in range(players):
                p = f"p{i + 1}"
                assert Decimal(int(k[3 + i])) * unit == net[p]["stake"], (cards, p)
                assert Decimal(int(k[K.REC_SHOOT + i])) * spec.quantum == net[p]["shoot"], (cards, p)
            assert Decimal(int(k[K.REC_KITTY])) * spec.quantum == rnd.kitty(), cards
            shots += shot > 0
            fourth += any(e.kind == "shoot" and e.clause.endswith("fourth card") for e in rnd.events())
    assert shots > 20 and fourth > 3


def test_shoot_kitty_across_rounds_as_the_engine_table() -> None:
    """Round after round from one pack (used cards to the bottom), the kitty carried, renewed when empty
    and when the bank passes (003 Shoot): the kernel's nets and kitty equal the engine table's, up to the
    first shuffle."""
    from pontoon.british.bots import play_round
    from pontoon.british.table import BritishGame

    rng = np.random.default_rng(3)
    compared = emptied = 0
    for players, kitty in ((1, Decimal(5)), (3, Decimal(8)), (5, Decimal(100))):
        bots = Bots(banker_default=BankerPolicy(kitty=kitty))
        spec = bf.build_spec(SHOOT, players, banker=bots.banker_default)
        unit = spec.quantum / spec.den
        for _ in range(6):
            cards = [FULL[i] for i in rng.permutation(52)]
            game = BritishGame(SHOOT, ["bank", *[f"p{i + 1}" for i in range(players)]], banker="bank",
                               pack=BritishPack(list(cards)), rng=1)  # fmt: skip
            for j in range(1, 25):
                summary = play_round(game, bots)
                rec, left = bf.play_stacked(spec, [_rank(c) for c in cards], rounds=j, keep=True)
                k = rec[-1]
                assert (summary["status"] == "void") == bool(k[0])
                for i in range(players):
                    p = f"p{i + 1}"
                    assert Decimal(int(k[3 + i])) * unit == summary["net"][p]["stake"]
                    assert Decimal(int(k[K.REC_SHOOT + i])) * spec.quantum == summary["net"][p]["shoot"]
                if summary["next_banker"] == "bank":  # else the old banker took the kitty back (003 Shoot)
                    assert Decimal(int(k[K.REC_KITTY])) * spec.quantum == game.kitty
                    emptied += game.kitty == 0
                else:
                    assert game.kitty == 0
                compared += 1
                if summary["shuffled"]:
                    break
                assert [_rank(c) for c in game.pack.cards()] == list(left)
    assert compared > 40 and emptied > 0


def test_shoot_simulation_reports_the_shoot_edge() -> None:
    """``simulate --rules shoot`` on the kernel: the shoot bets are played and reported (``shoot_edge``, the
    banker's net on them per unit shot, as the engine simulator reports it), no note that they are not."""
    out = bf.simulate_british_fast(SHOOT, 200_000, 4, 4, chunk_rounds=100_000)
    assert Decimal(out["shot"]) > 0 and "notes" not in out
    assert -0.5 < out["shoot_edge"] < 0.5 and out["shoot_edge"] != 0.0


# ------------------------------------------------------------------------------------------------
# burn (003 variations V12-V14)


@pytest.mark.parametrize(
    ("update", "policy"),
    [
        ({"burn": "hard13"}, PlayerPolicy()),
        ({"burn": "hard14"}, PlayerPolicy(split_ranks="A8")),  # 7-7 (hard 14) is burned, not split
        ({"burn": "hard14"}, PlayerPolicy(split_ranks="A78")),  # 7-7 is split, then either hand may burn
        ({"burn": "hard13", "banker_may_double": True, "natural_beats_plain": True}, PlayerPolicy()),
        ({"burn": "hard13"}, PlayerPolicy(burn=False)),
    ],
)
def test_burn_card_for_card(update: dict[str, object], policy: PlayerPolicy) -> None:
    """003 V12-V14: a hard 13 (14) in two cards is burned by the bots: shown, put to the bottom of the
    pack, two new cards dealt, the stake kept; again after a burn and on either hand of a split; new
    cards making A + ten on an unsplit hand are a Pontoon. Stacked packs rich in hard 13s and 14s (some cut
    short): the same nets, cards dealt and void rounds as the engine."""
    rules = BRITISH.model_copy(update=update)
    bots = Bots(player_default=policy, banker_default=BankerPolicy())
    total = rules.burn_total
    rng = np.random.default_rng(60)
    burns = 0
    for players in (1, 3, 5):
        spec = bf.build_spec(rules, players, player=policy, banker=bots.banker_default)
        unit = spec.quantum / spec.den
        for _ in range(30):
            cards = [FULL[i] for i in rng.permutation(52)]
            # put pairs making the burn total (no ace) in the players' deal slots, then more of them on top
            # of the rest so that burns come again
            pairs = [(a, b) for a in cards for b in cards if a != b and not a.is_ace and not b.is_ace
                     and a.points + b.points == total]  # fmt: skip
            for _k in range(players + 2):
                if not pairs:
                    break
                a, b = pairs[int(rng.integers(len(pairs)))]
                cards.remove(a)
                cards.remove(b)
                slot = int(rng.integers(players + 2))
                if slot < players:  # the player's first and second card
                    cards.insert(slot, a)
                    cards.insert(slot + players + 1, b)
                else:  # the next two cards dealt after the deal
                    cards[2 * players + 2 : 2 * players + 2] = [a, b]
                pairs = [(x, y) for x, y in pairs if x not in (a, b) and y not in (a, b)]
            if rng.random() < 0.2:
                cards = cards[: int(rng.integers(2 * players + 3, 3 * players + 8))]
            pack = BritishPack(cards, stacked=True)
            rnd = BritishRound(rules, [f"p{i + 1}" for i in range(players)], "bank", pack)
            while not rnd.over:
                seat, verb, amt = bots.decide(rnd)
                rnd.act(seat, verb, amt)
            rec, _ = bf.play_stacked(spec, [_rank(c) for c in cards])
            k = rec[0]
            assert bool(k[0]) == (rnd.phase == "void") and k[2] == pack.drawn, cards
            burns += sum(e.kind == "burn" for e in rnd.events())
            if rnd.phase == "void":
                continue
            net = rnd.net()
            for i in range(players):
                assert Decimal(int(k[3 + i])) * unit == net[f"p{i + 1}"]["stake"], (cards, i)
    assert (burns > 30) == policy.burn


def test_burn_and_shoot_on_the_command_line() -> None:
    """``pontoon simulate --rules british --set burn=hard14`` and ``--rules shoot`` run on the kernel."""
    import json

    from tests.sim.test_cli_simulate import pontoon

    p = pontoon("--rules", "british", "--set", "burn=hard14", "--rounds", "20000", "--seed", "2", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["simulator"] == "kernel"
    s = pontoon("--rules", "shoot", "--rounds", "20000", "--seed", "2", "--json")
    assert s.returncode == 0, s.stderr
    out = json.loads(s.stdout)
    assert out["simulator"] == "kernel" and Decimal(out["shot"]) > 0 and "notes" not in out
