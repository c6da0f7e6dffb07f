"""``pontoon play --count`` (cli/count_readout.py): the count of the cards the seat saw."""

from __future__ import annotations

import re
import subprocess
import sys
from decimal import Decimal

from rich.console import Console

from pontoon.analysis.counts import SYSTEMS
from pontoon.casino.table import CasinoTable
from pontoon.cli.count_readout import CountReadout
from pontoon.rules.load import resolve_rules
from pontoon.shoe import make_rng

HILO = {
    "A": -1,
    "2": 1,
    "3": 1,
    "4": 1,
    "5": 1,
    "6": 1,
    "7": 0,
    "8": 0,
    "9": 0,
    "T": -1,
    "J": -1,
    "Q": -1,
    "K": -1,
}


def test_readout_counts_every_card_shown_and_restarts_with_each_shoe() -> None:
    rules = resolve_rules("mbs")
    table = CasinoTable(rules, rng=make_rng(9))
    table.join("p", Decimal(100000))
    ro = CountReadout(rules, "walker-hi-lo")
    console = Console(file=open("/dev/null", "w"), highlight=False)  # noqa: SIM115
    running = -24
    shoe = None
    shuffles = 0
    for _ in range(120):
        rnd = table.new_round()
        table.place_bet(1, "p", "main", Decimal(10))
        table.deal()
        table.play_out_for_absent()
        table.end_round()
        if shoe is not None and table.shoes_used != shoe:
            running, shuffles = -24, shuffles + 1
        shoe = table.shoes_used
        running += sum(HILO[c.rank] for c in [*rnd.dealer, *(c for h in rnd.all_hands() for c in h.cards)])
        ro.after_round(console, rnd, table.shoes_used)
        assert ro.running == running
    assert shuffles >= 1  # the count started again with a new shoe
    assert ro.system is SYSTEMS["walker-hi-lo"]


def test_play_count_from_the_command_line() -> None:
    code = "from pontoon.cli.app import main; main()"
    args = [sys.executable, "-c", code, "play", "--rules", "mbs", "--no-history", "--seed", "5"]
    r = subprocess.run(
        [*args, "--count", "zen"], input="\ns\ns\nq\n", capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert re.search(r"count \(Zen\): running [+-]?\d+, true [+-]\d+\.\d", r.stdout)
    bad = subprocess.run([*args, "--count", "nope"], input="", capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "count system 'nope' is not known" in bad.stderr
