"""Finding presets by id or alias, applying overrides, and reading a table's TOML file."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pontoon.errors import RulesError
from pontoon.rules.overrides import FIELD_ALIASES, apply_overrides
from pontoon.rules.presets import CASINO_PRESETS

__all__ = [
    "ALIASES",
    "FIELD_ALIASES",
    "apply_overrides",
    "find_rules",
    "load_rules_file",
    "parse_set_options",
    "preset_ids",
    "resolve_rules",
]

MAX_RULES_BYTES = 1 << 20  # a table's TOML file is at most 1 MiB
MAX_DEPTH = 8  # TOML tables and arrays nested at most this deep

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


def _registry() -> dict[str, BaseModel]:
    # the British models are imported where they are asked for (``pontoon analyze`` of a casino
    # preset does not build them: issue 15, a whole process's time)
    from pontoon.rules.british import BRITISH_PRESETS

    return {**CASINO_PRESETS, **BRITISH_PRESETS}


def preset_ids() -> list[str]:
    return list(_registry())


def find_rules(name: str) -> Any:
    """The preset with this id or alias (``"mbs"``, ``"plus"``, ``"fed"`` ...)."""
    if not isinstance(name, str):
        raise RulesError(f"a preset is named by a string such as 'mbs', not {type(name).__name__}")
    key = ALIASES.get(name.strip().lower())
    if key in CASINO_PRESETS:
        return CASINO_PRESETS[key]
    reg = _registry()
    if key is None or key not in reg:
        raise RulesError(f"unknown preset {name!r}: accepted presets are {', '.join(reg)}")
    return reg[key]


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


def load_rules_file(path: str | Path) -> Any:
    """A table described in TOML: ``preset = "mbs"`` plus any rule fields to override."""
    import tomllib  # only where a file is read (a preset's analyze process does not: issue 15)

    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_RULES_BYTES + 1)
    except FileNotFoundError:
        raise RulesError(f"rules file {str(p)!r} not found") from None
    except OSError as err:
        raise RulesError(f"rules file {str(p)!r} cannot be read: {err.strerror or err}") from None
    if len(data) > MAX_RULES_BYTES:
        raise RulesError(f"rules file {str(p)!r} is larger than {MAX_RULES_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RulesError(
            f"rules file {str(p)!r} is not UTF-8 text (byte {err.start}): a table is a TOML file"
        ) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"rules file {str(p)!r} is not valid TOML: {str(err).splitlines()[0]}") from None
    except RecursionError:
        raise RulesError(f"rules file {str(p)!r} is nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as err:  # e.g. an integer of more than 4300 digits
        raise RulesError(
            f"rules file {str(p)!r}: a value cannot be read: {str(err).splitlines()[0]}"
        ) from None
    _check_depth(raw, str(p))
    base_name = raw.pop("preset", None) or raw.pop("base", None)
    if not isinstance(base_name, str):
        raise RulesError(f"{p.name}: missing 'preset = \"mbs\"' (the preset the table is based on)")
    base = find_rules(base_name)
    return apply_overrides(base, raw, source=p.name)


def _check_depth(data: Any, where: str) -> None:
    """Tables and arrays nested at most ``MAX_DEPTH`` deep (iterative: never a RecursionError)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        obj, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RulesError(f"rules file {where!r} is nested too deeply (at most {MAX_DEPTH} levels)")
        items = obj.values() if isinstance(obj, dict) else obj
        stack.extend((x, depth + 1) for x in items if isinstance(x, dict | list))


def _is_file(name: str) -> bool:
    try:
        return Path(name).is_file()
    except (OSError, ValueError):  # a name too long, or with a NUL byte, is no file
        return False


def resolve_rules(name_or_path: str, overrides: dict[str, Any] | None = None) -> Any:
    """A preset id/alias or a ``.toml`` path, then optional overrides."""
    if not isinstance(name_or_path, str):
        raise RulesError(f"rules are named by a preset id or a .toml path, not {type(name_or_path).__name__}")
    if name_or_path.endswith(".toml") or _is_file(name_or_path):
        rules = load_rules_file(name_or_path)
    else:
        rules = find_rules(name_or_path)
    if overrides:
        rules = apply_overrides(rules, overrides, source="--set" if overrides else "options")
    return rules
