"""Applying rule-field overrides to a rules model (``--set``, scenario ``options``, TOML fields).

Kept apart from ``load`` so that the models (``model``, ``british``) can offer ``with_`` without an
import cycle: this module imports neither of them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ValidationError

from pontoon.errors import RulesError

# names accepted by --set / options that differ from the model's field names
FIELD_ALIASES: dict[str, str] = {"hits_soft_17": "dealer_hits_soft_17"}


def _coerce(value: Any) -> Any:
    # keep money exact: a TOML or JSON float becomes the Decimal of its shortest text
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return value  # refused by the model's validation, naming the field
        return Decimal(repr(value))
    if isinstance(value, list):
        return tuple(_coerce(v) for v in value)
    if isinstance(value, dict):
        return {k: _coerce(v) for k, v in value.items()}
    return value


def _one_line(err: ValidationError, source: str, model: type[BaseModel]) -> str:
    e = err.errors()[0]
    loc = ".".join(str(p) for p in e["loc"]) or "rules"
    if e["type"] == "extra_forbidden":
        fields = ", ".join(sorted(model.model_fields))
        return f"{source}: unknown rule field {loc!r}; accepted fields: {fields}"
    msg = e["msg"].removeprefix("Value error, ")
    val = e.get("input")
    if loc == "rules" or isinstance(val, dict):
        return f"{source}: {msg}"
    shown = str(val) if isinstance(val, Decimal) else repr(val)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"{source}: {loc}={shown} is not allowed: {msg}"


def apply_overrides(base: BaseModel, changes: dict[str, Any], *, source: str = "options") -> BaseModel:
    """A validated copy of ``base`` with ``changes``; raises RulesError with a one-line message."""
    data = base.model_dump()
    changes = {FIELD_ALIASES.get(k, k): _coerce(v) for k, v in changes.items()}
    # blackjack: dealer_peeks=false means no hole card at all (analysis-json.md)
    if "dealer_peeks" in changes and "dealer_hole_card" not in changes and "dealer_hole_card" in data:
        changes["dealer_hole_card"] = bool(changes["dealer_peeks"])
    if "preset" in changes and changes["preset"] != data.get("preset"):
        raise RulesError(f"{source}: 'preset' cannot be overridden; name the base preset instead")
    data.update(changes)
    model = type(base)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise RulesError(_one_line(err, source, model)) from None
