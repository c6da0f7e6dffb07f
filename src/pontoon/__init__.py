"""Pontoon: every rule set played exactly, exact odds, fast simulation."""

__version__ = "0.1.0"
