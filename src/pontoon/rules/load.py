"""Finding presets by id or alias, applying overrides, and reading a table's TOML file."""

from __future__ import annotations

import tomllib
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from pontoon.errors import RulesError

ALIASES: dict[str, str] = {
    "mbs": "mbs",
    "marina-bay-sands": "mbs",
    "marina": "mbs",
    "pontoon": "mbs",
    "federal": "federal",
    "fed": "federal",
    "federal-pontoon": "federal",
    "rws-plus": "rws-plus",
    "plus": "rws-plus",
    "pontoon-plus": "rws-plus",
    "rws-pandemonium": "rws-pandemonium",
    "pandemonium": "rws-pandemonium",
    "pan": "rws-pandemonium",
    "blackjack": "blackjack",
    "bj": "blackjack",
    "british": "british",
    "brit": "british",
    "uk": "british",
    "shoot": "shoot",
    "shoot-pontoon": "shoot",
}

# names accepted by --set / options that differ from the model's field names
FIELD_ALIASES: dict[str, str] = {"hits_soft_17": "dealer_hits_soft_17"}


def _registry() -> dict[str, BaseModel]:
    from pontoon.rules.british import BRITISH_PRESETS
    from pontoon.rules.presets import CASINO_PRESETS

    return {**CASINO_PRESETS, **BRITISH_PRESETS}


def preset_ids() -> list[str]:
    return list(_registry())


def find_rules(name: str) -> Any:
    """The preset with this id or alias (``"mbs"``, ``"plus"``, ``"fed"`` ...)."""
    key = ALIASES.get(name.strip().lower())
    reg = _registry()
    if key is None or key not in reg:
        raise RulesError(f"unknown preset {name!r}: accepted presets are {', '.join(reg)}")
    return reg[key]


def _coerce(value: Any) -> Any:
    # keep money exact: a TOML or JSON float becomes the Decimal of its shortest text
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, list):
        return tuple(_coerce(v) for v in value)
    if isinstance(value, dict):
        return {k: _coerce(v) for k, v in value.items()}
    return value


def _parse_text_value(text: str) -> Any:
    t = text.strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return Decimal(t)
    except InvalidOperation:
        return t


def parse_set_options(items: list[str]) -> dict[str, Any]:
    """``["decks=8", "hits_soft_17=false"]`` -> ``{"decks": 8, "hits_soft_17": False}``."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise RulesError(f"bad --set {item!r}: expected NAME=VALUE, e.g. decks=8")
        k, v = item.split("=", 1)
        out[k.strip()] = _parse_text_value(v)
    return out


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
    return f"{source}: {loc}={val!r} is not allowed: {msg}"


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


def load_rules_file(path: str | Path) -> Any:
    """A table described in TOML: ``preset = "mbs"`` plus any rule fields to override."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text())
    except FileNotFoundError:
        raise RulesError(f"rules file {str(p)!r} not found") from None
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"rules file {str(p)!r} is not valid TOML: {err}") from None
    base_name = raw.pop("preset", None) or raw.pop("base", None)
    if not isinstance(base_name, str):
        raise RulesError(f"{p.name}: missing 'preset = \"mbs\"' (the preset the table is based on)")
    base = find_rules(base_name)
    return apply_overrides(base, raw, source=p.name)


def resolve_rules(name_or_path: str, overrides: dict[str, Any] | None = None) -> Any:
    """A preset id/alias or a ``.toml`` path, then optional overrides."""
    if name_or_path.endswith(".toml") or Path(name_or_path).is_file():
        rules = load_rules_file(name_or_path)
    else:
        rules = find_rules(name_or_path)
    if overrides:
        rules = apply_overrides(rules, overrides, source="--set" if overrides else "options")
    return rules
