"""British Pontoon (003): the banker game, its house variations and Shoot Pontoon.

Entry points: ``BritishRound`` (one round), ``BritishGame`` (a table across rounds),
``run_british_scenario`` (scenario files), ``pontoon.sim.british.simulate_british`` (bots through the engine) and
``pontoon.cli.play_british.play_british`` (terminal play).
"""

from pontoon.british.round import BritishHand, BritishRound, LegalAction
from pontoon.british.scenario import run_british_scenario
from pontoon.british.table import BritishGame

__all__ = ["BritishGame", "BritishHand", "BritishRound", "LegalAction", "run_british_scenario"]
