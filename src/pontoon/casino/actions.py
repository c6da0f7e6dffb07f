"""Casino actions: the protocol's ``Action`` record, which round-trips through the scenario text form ``"1 hit"``."""

from __future__ import annotations

from pontoon.protocol import CASINO_VERBS as VERBS
from pontoon.protocol import Action

__all__ = ["VERBS", "Action"]
