"""One small hierarchy of errors. Every message says what was wrong and what is accepted."""

from __future__ import annotations


class PontoonError(ValueError):
    """Base of every error this package raises on bad input or an illegal move."""


class CardError(PontoonError):
    """A card or shoe string that does not parse."""


class RulesError(PontoonError):
    """An unknown preset, an unknown rule field or an out-of-range rule value."""


class IllegalAction(PontoonError):
    """An action that the rules do not allow at this moment; the round is unchanged."""


class BetError(IllegalAction):
    """A wager that is not accepted (limits, box without a main wager, closed betting)."""


class ScenarioError(PontoonError):
    """A malformed scenario file."""


class ShoeExhausted(PontoonError):
    """The shoe has no card left to deal (the round becomes void: rulings 2)."""
