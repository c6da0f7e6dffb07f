"""The simulator kernels' layout: the parameter vector, strategy codes, pay lines, wager kinds,
hand fields and card points (plain module constants: numba reads them as compile-time values).

``api.py`` fills the ``P`` vector by these indices; ``stats.py`` names the lines.
"""

from __future__ import annotations

import numpy as np

# ---- parameter vector indices -------------------------------------------------------------
P_CUT = 0  # cards dealt before the cut card comes out; 0 = continuous shuffler (every round)
P_BOXES = 1
P_HOLE = 2  # dealer takes a hole card in the initial deal (blackjack)
P_PEEK = 3  # dealer peeks for a natural with an Ace or ten-value up card
P_H17 = 4  # dealer hits soft 17 (rulings 7)
P_21WINS = 5  # rulings 5: a player's 21 is paid at once and cannot lose
P_NATPUSH = 6  # player natural pushes against a dealer natural (blackjack); else paid at once
P_SPLIT_RANK = 7  # split needs equal rank (else equal value: rulings 10)
P_MAXHANDS = 8
P_RSA = 9  # resplit aces
P_HSA = 10  # hit split aces
P_DBL_ANY = 11  # FED: double on any number of cards
P_DAS = 12
P_DSA = 13  # double split aces
P_DBL_ACE1 = 14  # rulings 12: Aces among the first two cards count 1 on a doubled hand
P_RESCUE = 15  # rulings 13
P_DBL_ORIG = 16  # rulings 6: a doubled hand loses only its original wager to a dealer Pontoon
P_SPLIT_ONE = 17  # FED: a split box loses only one wager to a dealer Pontoon
P_SURR = 18  # 0 none, 1 early (before any draw, lost in full to a dealer natural), 2 late
P_INS = 19  # insurance offered (and taken on every box by this bettor)
P_FORCED = 20  # rulings 14: a hand below this best total must draw (0 = none)
P_SB_AMT = 21  # Super Bonus fixed amount for the simulated wager (0 = none)
P_SB_OTHER = 22  # the payment to every other box in a Super Bonus round
P_PAIR = 23
P_BONUS = 24
P_PAN = 25
P_W = 26  # the main wager
P_WIN = 27  # a regular win on W
P_NAT = 28  # a natural (Pontoon) on W
P_5C = 29
P_6C = 30
P_7C = 31
P_678M = 32
P_678S = 33
P_678SP = 34
P_777M = 35
P_777S = 36
P_777SP = 37
P_INS_STAKE = 38
P_INS_WIN = 39
P_SURR_LOSS = 40
P_SIDE = 41  # side wager
P_PAIR_WIN = 42
P_B_SA = 43
P_B_AA = 44
P_B_HP = 45
P_B_AP = 46
P_B_LP = 47
P_B_AL = 48
P_SUR_ANYUP = 49  # surrender against any up card (blackjack late surrender)
P_SPLIT_NAT = 50  # split Ace + ten counts as a natural
P_SB_ON = 51  # Super Bonus offered (rulings 17)
P_COMP = 52  # 1 = the composition table ``comp`` overrides the chart (``--strategy optimal``)
P_ROOT = 53  # the empty hand's state in ``trans`` (``--strategy optimal``)
NP = 54

# ---- strategy codes -----------------------------------------------------------------------
C_H = 0
C_S = 1
C_D = 2  # double, else hit
C_DS = 3  # double, else stand
C_P = 4
C_R = 5  # surrender, else hit
C_RS = 6  # surrender, else stand
C_NONE = -1  # pair table: no split advice (play the total)
K_HARD = 0
K_SOFT = 1
K_PAIR = 2
K_RESCUE = 3
K_PAIRPLAY = 4  # an unsplit two-card pair's own play (counter's index rows); C_NONE: its total's
NC_MAX = 9  # card-count index: min(ncards, NC_MAX)
# composition table (``--strategy optimal``, ``analysis.optimal_table.optimal_tables``):
# comp[upcard points, kind, state]; state = the hand's multiset of card values, followed card by
# card through trans[state, value index] (``analysis.states.state_space``); kind 0 / 1 = an
# unsplit two-card hand of different / one suit, 2 = an unsplit hand of 3+ cards, 3 + p = a hand
# from a split of value index p. -1 = no entry (play the chart); else ``code & 7`` is C_H C_S
# C_D or C_R and ``code & COMP_SPLIT`` says split (or resplit) where the rules allow it.
# With Aces among the first two cards counting one on a double of any number of cards (FED), the
# table holds three blocks of kinds, comp[upcard, a2 * COMP_KINDS + kind, state], a2 = the Aces
# among the hand's first two cards (``analysis.optimal_table.optimal_tables_by_a2``).
COMP_SPLIT = 8
COMP_KIND_SPLIT = 3
# the rescue of a doubled hand, on the entry of the state it holds after its doubling card (in its
# kind): COMP_RESCUE = the table decides, then rescue where COMP_RESCUE_HARD (the doubled total
# counts every Ace 1) or COMP_RESCUE_SOFT (an Ace counts 11) is set; else the chart's rescue row
COMP_RESCUE_HARD = 16
COMP_RESCUE_SOFT = 32
COMP_RESCUE = 64
COMP_KINDS = COMP_KIND_SPLIT + 10
NF = 14  # integer fields per hand (``_play_round``: F_N .. F_KD)

# ---- lines (acc[line, 0] = count, acc[line, 1] = net quanta) --------------------------------
L_PONTOON = 0
L_21_5 = 1
L_21_6 = 2
L_21_7 = 3
L_678_M = 4
L_678_S = 5
L_678_SP = 6
L_777_M = 7
L_777_S = 8
L_777_SP = 9
L_21 = 10  # any other 21 paid at once (split two-card 21, 3/4-card 21, doubled 21)
L_WIN = 11
L_PUSH = 12
L_LOSS = 13
L_BUST = 14
L_SURR = 15
L_RESCUE = 16
L_SB = 17
L_SB_OTHER = 18
L_INS = 19
L_PAIR = 20
L_BONUS = 21
L_PAN = 22
L_VOID = 23  # count only
L_DOUBLE = 24  # count only (hands doubled)
L_SPLIT = 25  # count only (splits made)
L_DEALER_PONTOON = 26  # count only
L_B_SA = 27  # bonus sub-lines: count = hits, money = amount won (already inside L_BONUS)
L_B_AA = 28
L_B_HP = 29
L_B_AP = 30
L_B_LP = 31
L_B_AL = 32
L_PAIR_LOSE = 33
L_BONUS_LOSE = 34
L_PAN_LOSE = 35
L_INS_LOSE = 36
NL = 37

# wager kinds of the per-round record (and of each line); -1 = information only
K_MAIN = 0
K_INSUR = 1
K_PAIRB = 2
K_BONUSB = 3
K_PANB = 4
K_SUPER = 5
NK = 6
REC_W = 8  # record row: NK kinds, then the jackpot multiplier index (-1 none), then void flag
LINE_KIND = np.array(
    [K_MAIN] * 17
    + [K_SUPER, K_SUPER, K_INSUR, K_PAIRB, K_BONUSB, K_PANB]
    + [-1] * 10
    + [K_PAIRB, K_BONUSB, K_PANB, K_INSUR],
    dtype=np.int64,
)

MAXCARDS = 24  # cards per hand (cannot exceed 21 points with more than 21 cards)
LOGN = 256

# ---- cards ----------------------------------------------------------------------------------
# code = rank_index * 4 + suit_index; ranks "A23456789TJQK", suits "SHDC" (pontoon.cards)
POINTS = np.array([min(r + 1, 10) for r in range(13) for _ in range(4)], dtype=np.int64)


U32 = np.uint64(0xFFFFFFFF)
INV32 = 1.0 / 4294967296.0  # 2**-32

# ---- hand fields: hi[h, F_*] (hand h of box b is row b * 4 + k) --------------------------------
F_N = 0  # cards (-2: a natural already paid)
F_HARD = 1
F_ACE = 2  # any Ace
F_ACE2 = 3  # an Ace at index >= 2 (may count 11 on a doubled hand)
F_SPLIT = 4  # hand comes from a split
F_SACE = 5  # split Aces hand
F_DBL = 6
F_LIVE = 7  # 1 = waits for the dealer
F_SURR = 8
F_NAT = 9  # natural waiting for the dealer (blackjack push rule)
F_TOT = 10  # final total of a live hand
F_SB = 11
F_ST = 12  # the hand's state in ``trans`` (-1 past 21), kept only with a composition table
F_KD = 13  # its composition-table kind when split (3 + pair value index), else -1
