"""The numba kernel of the fast British simulator (issue 27 item 7): the British banker game (003) played
round after round with table strategies (``british_tables.py``), integer money, no allocation per round.

The pack is a circular buffer of rank indices (0 = A .. 12 = K) of ``BUF`` slots (the cards in the pack
and on the table never exceed two packs): ``ps`` = [top, bottom, lazy end] as ever-growing counters, and ``ps[3]`` flags a round the pack ran out in. Cards
are dealt from the top; a bust hand's cards go to the bottom at once and the round's other cards at its
end (003 The New Deal, "without shuffling"), unless there was a Pontoon: then the whole pack is shuffled
(003 "If there was a Pontoon, the cards are shuffled and cut"). The shuffle is lazy: every card between
the top and the lazy end is uniform over those cards, drawn (Fisher-Yates, one swap per card dealt) when
it is dealt; cards put to the bottom after a shuffle stay in order. ``P_EVERY`` shuffles before every
round (the exact analysis's fresh pack); ``P_STACKED`` deals a stacked pack in order, and the cards put
to its bottom are kept aside (as the engine's stacked pack does).

Random numbers: SplitMix64 (``rng``, one uint64 of state seeded by the caller from numpy's
SeedSequence): uniform integers by Lemire's multiply-shift with rejection (exact), uniform floats from
53 bits (mixed strategies only; a pure strategy draws nothing).

Money is integer quanta times ``P_DEN`` (the denominator of the pay multiples): a hand's net is
``stake x multiple`` exactly.

The banker's Pontoon is settled before play (003 "immediately exposed"); the bank passes after a Pontoon,
always followed by a shuffle, so with every seat playing the same tables the seat that holds the bank
does not change the figures: the kernel keeps the banker in place and counts the passes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from pontoon.sim._draws import CACHE

BUF = 128  # slots of the pack's circular buffer (a power of two above two packs of 52)
MASK = BUF - 1
MAXH = 48  # hands at the table: 12 players x 4 hands (003 Split "three or even four")
# hand fields
# H_SHOOT: Shoot Pontoon, the hand's shoot bet (money quanta, not times P_DEN)
H_N, H_SHOOT, H_STAKE, H_INIT, H_STAT, H_SPLIT, H_OWNER, H_NET, H_OBS, H_TOT, H_ROYAL = range(5, 16)
NF = 16
ST_PLAY, ST_STUCK, ST_BUST, ST_PONTOON, ST_FIVE = 0, 1, 2, 3, 4
# parameters
P_PLAYERS, P_MAXSPLIT, P_ACES, P_DOUBLE, P_PONT, P_COLL, P_FIVE, P_ROYAL, P_DEN = range(9)
P_EVERY, P_STACKED, P_NOBS, P_STOP = 9, 10, 11, 12
P_ATNP, P_NATURAL, P_PICTURE = 13, 14, 15  # the Pontoon rank variations of 003 (rules fields of those names)
# Shoot Pontoon (003 "Shoot Pontoon"): played, its minimum bet, the kitty the banker puts up and the level he
# tops it up to (0: never), the player's shoot before the second card on an ace or ten-value first card,
# the bet as the whole units of (capacity x SFN / SFD), money quanta per whole unit
P_SHOOT, P_SMIN, P_KITTY, P_TOPUP, P_SH2, P_SFN, P_SFD, P_QPU = range(16, 24)
P_BURN = 24  # 003 variation burn: the hard two-card total the table burns (13, 14; 0: never)
NP = 25
# ps: [top, bottom, lazy end, ran out] (the pack) then the kitty: what it held at the round's start, what it
# gained in the round so far (bust hands' shoot bets), the shoot bets outstanding
PS_KITTY, PS_KGAIN, PS_OUT = 4, 5, 6
NPS = 7
# accumulators
A_ROUNDS, A_VOIDS, A_HANDS, A_X, A_S, A_PASSES, A_SHUFFLES, A_LINES = range(8)
NLINES = 7  # pontoon, royal_pontoon, five_card_trick, player_bust, banker_pontoon, banker_five, banker_bust
A_LNET = A_LINES + NLINES
A_SHOT = A_LNET + NLINES  # Shoot Pontoon: the shoot bets placed (money quanta)
A_SNET = A_SHOT + 1  # the banker's (kitty's) net on them
NA = A_SNET + 1
REC_PLAYERS = 3  # rec row: void, banker's net, cards dealt, then each player's net (stake bets)
MAXP = 12  # players at most (british_tables.MAX_PLAYERS)
REC_SHOOT = REC_PLAYERS + MAXP  # then each player's net on shoot bets (money quanta)
REC_KITTY = (
    REC_SHOOT + MAXP
)  # then the kitty at the round's end, before a passing bank takes it back (quanta)
REC = REC_KITTY + 1
_CLASS = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9], np.int64)
_U32 = np.uint64(0xFFFFFFFF)

_OPT: dict[str, Any] = {"cache": CACHE, "_nrt": False, "error_model": "numpy"}


@njit(**_OPT)
def _next(rng):
    """SplitMix64: the next 64 random bits."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**_OPT)
def _below(rng, m):
    """A uniform integer in [0, m), 0 < m < 2**32 (Lemire, with rejection: exact)."""
    mm = np.uint64(m)
    x = (_next(rng) >> np.uint64(32)) * mm
    low = x & _U32
    if low < mm:
        t = (_U32 + np.uint64(1) - mm) % mm
        while low < t:
            x = (_next(rng) >> np.uint64(32)) * mm
            low = x & _U32
    return np.int64(x >> np.uint64(32))


@njit(**_OPT)
def _uniform(rng):
    return np.float64(_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**_OPT)
def _draw(buf, ps, rng):
    """The top card (-1: the pack is empty, rulings 2); the lazy shuffle picks it where due."""
    top = ps[0]
    if top >= ps[1]:
        return -1
    if top < ps[2]:
        j = top + _below(rng, ps[2] - top)
        a = buf[top & MASK]
        buf[top & MASK] = buf[j & MASK]
        buf[j & MASK] = a
    ps[0] = top + 1
    return buf[top & MASK]


@njit(**_OPT)
def _bottom(buf, ps, c, stacked):
    """003: a used card goes to the bottom of the pack (a stacked pack keeps it aside)."""
    if stacked == 0:
        buf[ps[1] & MASK] = c
        ps[1] += 1


@njit(**_OPT)
def _capacity(ps):
    """003 Shoot: "the total of all the shoot bets is not more than what is in the kitty" (what may still
    be shot: ``BritishRound.shoot_capacity``)."""
    return max(0, ps[PS_KITTY] + ps[PS_KGAIN] - ps[PS_OUT])


@njit(**_OPT)
def _shoot_amount(cap, P):
    """The bots' shoot bet (``bots.player_decision``): the whole units of ``shoot_fraction`` of what may be
    shot, at least the minimum bet and at most ``cap``."""
    amt = (cap * P[P_SFN] // P[P_SFD]) * P[P_QPU]
    if amt < P[P_SMIN]:
        amt = P[P_SMIN]
    if amt > cap:
        amt = cap
    return amt


@njit(**_OPT)
def _kitty_up(ps, P):
    """003 Shoot S11: "If there is nothing in the kitty ... the dealer must ... put up a new kitty"; S10:
    "Before each new deal the dealer has the option to add more money to the kitty" (the bots:
    ``prepare_table``). The round's gains and outstanding bets start at 0."""
    if ps[PS_KITTY] <= 0:
        ps[PS_KITTY] = P[P_KITTY]
    elif ps[PS_KITTY] < P[P_TOPUP]:
        ps[PS_KITTY] = P[P_TOPUP]
    ps[PS_KGAIN] = 0
    ps[PS_OUT] = 0


@njit(**_OPT)
def _shoot_second(H, npl, ps, P):
    """003 Shoot S2: "After all the players have bet on their first card ... they each have a turn to make a
    shoot bet"; the bots shoot on an ace or a ten-value first card (S3: none once the kitty is all shot)."""
    for p in range(npl):
        cap = _capacity(ps)
        if cap < P[P_SMIN]:
            break  # nothing more may be shot: the shoot bets end (BritishRound._next_shooter)
        c0 = _CLASS[H[p, 0]]
        if c0 == 0 or c0 == 9:
            amt = _shoot_amount(cap, P)
            H[p, H_SHOOT] = amt
            ps[PS_OUT] += amt


@njit(**_OPT)
def _choose(node, probs, det, rng):
    a = det[node]
    if a >= 0:
        return a
    u = _uniform(rng)
    acc = 0.0
    last = 0
    for k in range(4):
        p = probs[node, k]
        if p > 0.0:
            last = k
            acc += p
            if u < acc:
                return k
    return last


@njit(**_OPT)
def _pontoon_grade(a, b, P):
    """Two cards (rank indices, 0 = A .. 9 = T, 10 = J, 11 = Q, 12 = K): 0 when not a Pontoon, else 1 plus
    its rank among Pontoons (``ranking.pontoon_grade``: higher beats lower, equal goes to the banker).
    003: "21 points in two cards ... ace plus a picture card or ten"; variations (003 "Variations"):
    ``ace_ten_not_pontoon`` (V10) "A-10 is not a pontoon at all, but just an ordinary 21";
    ``natural_beats_plain`` (V11) "A-K or A-Q is a natural pontoon, which beats a plain pontoon of A-J or A-10";
    ``ace_picture_beats_ace_ten`` (V9) "a Pontoon consisting of an ace and a picture beats ... an ace and a ten"
    (rul 29: equal ranks go to the banker). Clause ids: docs/rules/british.md."""
    if a == 0:
        o = b
    elif b == 0:
        o = a
    else:
        return 0
    if o < 9 or (o == 9 and P[P_ATNP] != 0):
        return 0
    g = 1
    if P[P_NATURAL] != 0 and o >= 11:
        g += 2  # the first key of (natural, picture)
    if P[P_PICTURE] != 0 and o >= 10:
        g += 1
    return g


@njit(**_OPT)
def _is_pontoon(H, h, P):
    """003: an unsplit two-card hand of an ace and a ten-value card (rulings 21; the variations above)."""
    if H[h, H_SPLIT] != 0 or H[h, H_N] != 2 or (H[h, 0] != 0 and H[h, 1] != 0):
        return False  # no ace: not a Pontoon (checked here, before the call: the common case)
    return _pontoon_grade(H[h, 0], H[h, 1], P) > 0


@njit(**_OPT)
def _new_hand(H, h, owner, c, split, init):
    for f in range(NF):
        H[h, f] = 0
    H[h, 0] = c
    H[h, H_N] = 1
    H[h, H_OWNER] = owner
    H[h, H_SPLIT] = split
    H[h, H_STAKE] = init
    H[h, H_INIT] = init


@njit(**_OPT)
def _split(H, h, nh, buf, ps, rng):
    """003 Split: the pair becomes two hands (the new one right after), each dealt a card face down;
    returns the number of hands (``ps[3]`` = 1: the pack ran out)."""
    for j in range(nh, h + 1, -1):
        for f in range(NF):
            H[j, f] = H[j - 1, f]
    _new_hand(H, h + 1, H[h, H_OWNER], H[h, 1], 1, H[h, H_INIT])
    H[h, H_SPLIT] = 1
    H[h, H_N] = 1
    for k in (h, h + 1):
        c = _draw(buf, ps, rng)
        if c < 0:
            ps[3] = 1
            return nh + 1
        H[k, 1] = c
        H[k, H_N] = 2
    return nh + 1


@njit(**_OPT)
def _may_split(H, h, nh, P, split_ok):
    """003 Split: a pair of equal rank, fewer hands than the most allowed, aces only where so played;
    and the player's table splits that rank."""
    if H[h, H_N] != 2 or H[h, 0] != H[h, 1] or split_ok[H[h, 0]] == 0:
        return False
    if P[P_ACES] != 0 and H[h, 0] != 0:
        return False
    owned = 0
    for j in range(nh):
        if H[j, H_OWNER] == H[h, H_OWNER]:
            owned += 1
    return owned < P[P_MAXSPLIT]


@njit(**_OPT)
def _may_burn(H, h, P):
    """003 V12, V13: "a 'hard' 13 (not A-2)" (or 14, not A-3) in two cards may be burned (V14: again after a
    burn, and on either hand of a split: the caller's loop); the table burns
    where ``P_BURN`` (the total, 0: never) says so (the bots burn every one: ``PlayerPolicy.burn``)."""
    if P[P_BURN] == 0 or H[h, H_N] != 2:
        return False
    a = _CLASS[H[h, 0]]
    b = _CLASS[H[h, 1]]
    return a != 0 and b != 0 and a + b + 2 == P[P_BURN]


@njit(**_OPT)
def _burn(H, h, buf, ps, rng, P):
    """003 V12: "These two cards are shown and discarded, and two new cards dealt" (the discarded
    cards to the bottom of the pack first, as ``moves.do_burn``; ``ps[3]`` = 1: the pack ran out)."""
    _bottom(buf, ps, H[h, 0], P[P_STACKED])
    _bottom(buf, ps, H[h, 1], P[P_STACKED])
    H[h, H_N] = 0
    for k in range(2):
        c = _draw(buf, ps, rng)
        if c < 0:
            ps[3] = 1
            return
        H[h, k] = c
        H[h, H_N] = k + 1


@njit(**_OPT)
def _shoot_fourth(H, h, node, ps, P, shx):
    """003 Shoot "The fourth card" (S5, S6): a shoot bet before the fourth card of a three-card hand below 21,
    within what may still be shot (S2), where the table shoots (``shx[node, 1]``); rul 31: placed "before
    receiving the card", it commits him to it: returns the draw he then takes (-1: no shoot bet)."""
    if shx[node, 1] == 0:
        return -1
    cap = _capacity(ps)
    if cap < P[P_SMIN]:
        return -1
    amt = _shoot_amount(cap, P)
    H[h, H_SHOOT] += amt
    ps[PS_OUT] += amt
    return shx[node, 0]


@njit(inline="always", **_OPT)
def _play_hand(
    H, h, nh, buf, ps, rng, P, probs, det, kid, nbest, nroyal, nobs, root, sroot, split_ok, mult, shx
):  # fmt: skip
    """Play hand ``h`` to its end; returns the number of hands (a split adds one; ``ps[3]`` = 1: void).
    ``shx[node]``: (the draw the table takes when a shoot bet commits the hand to a card, 1 where the
    table shoots before the fourth card)."""
    if _is_pontoon(H, h, P):
        H[h, H_STAT] = ST_PONTOON  # 003 Declare a Pontoon (declared at once: scenario-format)
        return nh
    while _may_split(H, h, nh, P, split_ok) or (P[P_BURN] != 0 and _may_burn(H, h, P)):
        if _may_split(H, h, nh, P, split_ok):
            nh = _split(H, h, nh, buf, ps, rng)
        else:
            _burn(H, h, buf, ps, rng, P)
        if ps[3] != 0:
            return nh
        if _is_pontoon(H, h, P):  # a burned unsplit hand's new cards (a split hand is never a Pontoon)
            H[h, H_STAT] = ST_PONTOON
            return nh
    c0 = _CLASS[H[h, 0]]
    c1 = _CLASS[H[h, 1]]
    node = sroot[c0, c1] if H[h, H_SPLIT] != 0 else root[c0, c1]
    while True:
        a = _shoot_fourth(H, h, node, ps, P, shx) if P[P_SHOOT] != 0 else -1
        if a < 0:
            a = _choose(node, probs, det, rng)
        if a == 0:  # 003 Stick
            H[h, H_STAT] = ST_STUCK
            H[h, H_OBS] = nobs[node]
            H[h, H_TOT] = nbest[node]
            H[h, H_ROYAL] = nroyal[node]
            return nh
        c = _draw(buf, ps, rng)
        if c < 0:
            ps[3] = 1
            return nh
        n = H[h, H_N]
        H[h, n] = c
        H[h, H_N] = n + 1
        if a == 2:  # 003 Buy: the initial stake, or twice it
            H[h, H_STAKE] += H[h, H_INIT]
        elif a == 3:
            H[h, H_STAKE] += 2 * H[h, H_INIT]
        code = kid[node, a - 1, _CLASS[c]]
        if code == -1:  # 003 Going bust: the banker takes the stake at once, cards to the bottom
            H[h, H_STAT] = ST_BUST
            H[h, H_NET] = -H[h, H_STAKE] * mult * P[P_DEN]  # rul 30: a doubled bet loses double
            sb = H[h, H_SHOOT]
            if (
                sb > 0
            ):  # 003 Shoot S8 "Going bust": "that hand's shoot bet ... is immediately added to the kitty"
                ps[PS_KGAIN] += sb
                ps[PS_OUT] -= sb
            for i in range(n + 1):
                _bottom(buf, ps, H[h, i], P[P_STACKED])
            return nh
        if code <= -2:  # 003 Five Card Trick
            H[h, H_STAT] = ST_FIVE
            H[h, H_OBS] = -2 - code
            return nh
        node = code


@njit(**_OPT)
def _settle(H, nh, out, btot, mult, P, acc):
    """003 The Banker's Turn outcomes for every live hand (out: 0 bust, 1 five card trick, else stay)."""
    den = P[P_DEN]
    for h in range(nh):
        st = H[h, H_STAT]
        if st == ST_BUST:
            continue
        s = H[h, H_STAKE]
        if st == ST_STUCK and H[h, H_ROYAL] != 0:
            net = s * P[P_ROYAL]  # 003 variation: a Royal Pontoon beats everything, paid treble
        elif out == 1:  # 003 "The dealer makes a Five Card Trick": pays Pontoons only
            net = s * P[P_PONT] if st == ST_PONTOON else -s * P[P_FIVE]
        elif st == ST_PONTOON:
            net = s * P[P_PONT]  # 003 "Pontoons and Five Card Tricks are paid double"
        elif st == ST_FIVE:
            net = s * P[P_FIVE]
        elif out == 0 or H[h, H_TOT] > btot:
            net = s * mult * den  # 003 the dealer goes bust / a higher hand is paid (rul 30: doubled)
        else:
            net = -s * mult * den  # 003 "collects from those who have equal or less"
        H[h, H_NET] = net


@njit(**_OPT)
def _end_cards(H, nh, bc, bn, buf, ps, P):
    """End of round: the cards still on the table to the bottom, players' hands then the banker's."""
    st = P[P_STACKED]
    for h in range(nh):
        if H[h, H_STAT] != ST_BUST:
            for i in range(H[h, H_N]):
                _bottom(buf, ps, H[h, i], st)
    for i in range(bn):
        _bottom(buf, ps, bc[i], st)


@njit(inline="always", **_OPT)
def _round(
    buf, ps, rng, P, probs, det, kid, nbest, nroyal, nobs, root, sroot, split_ok, stake,
    btw, bpair, bkid, btwistable, bout, dbl, shx, H, bc, acc, mom, rec, ri,
):  # fmt: skip
    """One round; returns 1 when a Pontoon calls for a shuffle, 0 otherwise, -1 for a void round."""
    npl = P[P_PLAYERS]
    den = P[P_DEN]
    drawn0 = ps[0]
    if P[P_SHOOT] != 0:
        _kitty_up(ps, P)
    nh = npl
    bn = 0
    void = False
    # 003 The Deal: one card to each player from the dealer's left, then the dealer
    for p in range(npl):
        _new_hand(H, p, p, 0, 0, 0)
        H[p, H_N] = 0
    for p in range(npl):
        c = _draw(buf, ps, rng)
        if c < 0:
            void = True
            break
        H[p, 0] = c
        H[p, H_N] = 1
        H[p, H_INIT] = stake[c]  # 003 initial stakes, on the first card
        H[p, H_STAKE] = stake[c]
    if not void:
        c = _draw(buf, ps, rng)
        if c < 0:
            void = True
        else:
            bc[0] = c
            bn = 1
    mult = 1
    if not void and P[P_DOUBLE] != 0 and dbl[bc[0]] != 0:
        mult = 2  # 003 variation: the banker doubles the bets
    if not void and P[P_SHOOT] != 0 and P[P_SH2] != 0:
        _shoot_second(H, npl, ps, P)
    if not void:  # 003: "a second card face down to each player", then the dealer
        for p in range(npl):
            c = _draw(buf, ps, rng)
            if c < 0:
                void = True
                break
            H[p, 1] = c
            H[p, H_N] = 2
    if not void:
        c = _draw(buf, ps, rng)
        if c < 0:
            void = True
        else:
            bc[1] = c
            bn = 2
    bpont = False
    bgrade = 0
    if not void:
        if bc[0] == 0 or bc[1] == 0:
            bgrade = _pontoon_grade(bc[0], bc[1], P)
        bpont = bgrade > 0
    out = 0
    btot = 0
    live = False
    if not void and bpont:
        # 003: the banker's Pontoon, shown at once, "collects double the amount staked" (rul 30: not doubled);
        # variations V9, V11 (rul 29): a player's Pontoon of a higher rank wins, paid as a Pontoon; S4: "all the
        # shoot bets are added to the pot" (``_settle_shoot``: all but such a Pontoon's)
        for h in range(nh):
            if _pontoon_grade(H[h, 0], H[h, 1], P) > bgrade:
                H[h, H_NET] = H[h, H_STAKE] * P[P_PONT]
            else:
                H[h, H_NET] = -H[h, H_STAKE] * P[P_COLL]
        live = True
        out = -1
    elif not void:
        h = 0
        while h < nh:
            nh = _play_hand(
                H,
                h,
                nh,
                buf,
                ps,
                rng,
                P,
                probs,
                det,
                kid,
                nbest,
                nroyal,
                nobs,
                root,
                sroot,
                split_ok,
                mult,
                shx,
            )
            if ps[3] != 0:
                void = True
                break
            h += 1
        if not void:
            for h in range(nh):
                if H[h, H_STAT] != ST_BUST:
                    live = True
            if live:  # 003 The Banker's Turn
                row = P[P_NOBS]
                if npl == 1 and nh == 1 and H[0, H_STAT] != ST_PONTOON and H[0, H_OBS] < row:
                    row = H[0, H_OBS]
                k = bpair[_CLASS[bc[0]], _CLASS[bc[1]]]
                while btwistable[k] != 0:
                    p = btw[row, k]
                    if p <= 0.0 or (p < 1.0 and _uniform(rng) >= p):
                        break
                    c = _draw(buf, ps, rng)
                    if c < 0:
                        void = True
                        break
                    bc[bn] = c
                    bn += 1
                    k = bkid[k, _CLASS[c]]
                if not void:
                    out = bout[k]
                    btot = out
                    _settle(H, nh, out, btot, mult, P, acc)
    if void:  # rulings 2: the pack ran out; every wager returned, the cards to the bottom
        ps[3] = 0
        _end_cards(H, nh, bc, bn, buf, ps, P)
        acc[A_ROUNDS] += 1
        acc[A_VOIDS] += 1
        if rec.shape[0] > 0:
            rec[ri, 0] = 1
            rec[ri, 2] = ps[0] - drawn0
            rec[ri, REC_KITTY] = ps[PS_KITTY]  # every shoot bet returned: the kitty as it was
        return -1
    # the round's figures
    x = 0
    s = 0
    pont = False
    for h in range(nh):
        net = H[h, H_NET]
        x -= net
        s += H[h, H_INIT]
        st = H[h, H_STAT]
        line = -1
        if st == ST_BUST:
            line = 3
        elif H[h, H_N] == 3 and H[h, H_ROYAL] != 0 and st == ST_STUCK:
            line = 1
        elif _is_pontoon(H, h, P):
            line = 0
        elif H[h, H_N] == 5:
            line = 2
        if line >= 0:
            acc[A_LINES + line] += 1
            acc[A_LNET + line] += net
        if st == ST_PONTOON:
            pont = True
        if rec.shape[0] > 0:
            rec[ri, REC_PLAYERS + H[h, H_OWNER]] += net
    bline = 4 if out == -1 else 5 if out == 1 else 6 if out == 0 and live else -1
    if bline >= 0:
        acc[A_LINES + bline] += 1
        acc[A_LNET + bline] -= x
    if P[P_SHOOT] != 0:
        _settle_shoot(H, nh, ps, acc, rec, ri)
    acc[A_ROUNDS] += 1
    acc[A_HANDS] += nh
    acc[A_X] += x
    acc[A_S] += s
    xf = x / den
    mom[0] += xf * xf
    mom[1] += xf * s
    mom[2] += np.float64(s) * s
    if rec.shape[0] > 0:
        rec[ri, 1] = x
        rec[ri, 2] = ps[0] - drawn0
    _end_cards(H, nh, bc, bn, buf, ps, P)
    if rec.shape[0] > 0:
        rec[ri, REC_KITTY] = ps[PS_KITTY]  # the kitty at the round's end (before it goes back to its banker)
    if bpont or pont:
        if not bpont:
            acc[A_PASSES] += 1  # 003 The New Deal: the bank passes to the (unsplit) Pontoon
            # 003 Shoot S12: "the old dealer retrieves anything that was left in the kitty, and the new dealer
            # puts up a new kitty" (before the next deal)
            ps[PS_KITTY] = 0
        return 1
    return 0


@njit(**_OPT)
def _settle_shoot(H, nh, ps, acc, rec, ri):
    """003 Shoot S9: "Players who have a better hand than the dealer are paid an amount equal to their shoot
    bets out of the kitty, and players whose hands are equal to or worse than the dealer's have their shoot
    bets added to the kitty" (a hand that won its stake wins its shoot bet: ``settle.settle_shoot``); a bust
    hand's went to the kitty when it went bust (S8); the banker's Pontoon takes them all (S4; but from a
    Pontoon that outranks his: V9, V11, rul 29). A split leaves the bet on the first hand (S7); the bots place
    none on the other hand (they pass in that window)."""
    kitty_net = 0
    for h in range(nh):
        sb = H[h, H_SHOOT]
        if sb == 0:
            continue
        acc[A_SHOT] += sb
        sn = sb if H[h, H_STAT] != ST_BUST and H[h, H_NET] > 0 else -sb
        kitty_net -= sn
        if rec.shape[0] > 0:
            rec[ri, REC_SHOOT + H[h, H_OWNER]] += sn
    ps[PS_KITTY] += kitty_net
    acc[A_SNET] += kitty_net


@njit(cache=CACHE, nogil=True)
def run(
    buf, ps, rng, P, probs, det, kid, nbest, nroyal, nobs, root, sroot, split_ok, stake,
    btw, bpair, bkid, btwistable, bout, dbl, shx, max_rounds, acc, mom, rec,
):  # fmt: skip
    """Play up to ``max_rounds`` rounds (``P_STOP``: stop after a round that calls for a shuffle) from
    the pack ``buf``/``ps``; returns the rounds played. ``rec`` (rows): one record per round."""
    H = np.zeros((MAXH, NF), np.int64)
    bc = np.zeros(5, np.int64)
    return _loop(
        buf, ps, rng, P, probs, det, kid, nbest, nroyal, nobs, root, sroot, split_ok, stake,
        btw, bpair, bkid, btwistable, bout, dbl, shx, H, bc, max_rounds, acc, mom, rec,
    )  # fmt: skip


@njit(**_OPT)
def _loop(
    buf, ps, rng, P, probs, det, kid, nbest, nroyal, nobs, root, sroot, split_ok, stake,
    btw, bpair, bkid, btwistable, bout, dbl, shx, H, bc, max_rounds, acc, mom, rec,
):  # fmt: skip
    done = 0
    while done < max_rounds:
        if P[P_EVERY] != 0:
            ps[2] = ps[1]  # a fresh pack every round (the exact analysis's game)
        if P[P_STACKED] != 0 and ps[0] >= ps[1]:
            break
        r = _round(
            buf, ps, rng, P, probs, det, kid, nbest, nroyal, nobs, root, sroot, split_ok, stake,
            btw, bpair, bkid, btwistable, bout, dbl, shx, H, bc, acc, mom, rec, done,
        )  # fmt: skip
        done += 1
        if r == 1:
            acc[A_SHUFFLES] += 1
            ps[2] = ps[1]  # 003 "If there was a Pontoon, the cards are shuffled and cut"
            if P[P_STOP] != 0:
                break
    return done
