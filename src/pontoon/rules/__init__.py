"""Rules as data: the frozen rules models, the presets, and TOML tables."""

from pontoon.rules.load import (
    apply_overrides,
    find_rules,
    load_rules_file,
    parse_set_options,
    preset_ids,
    resolve_rules,
)
from pontoon.rules.model import BonusPayTable, CasinoRules, SuperBonusTier

__all__ = [
    "BonusPayTable",
    "CasinoRules",
    "SuperBonusTier",
    "apply_overrides",
    "find_rules",
    "load_rules_file",
    "parse_set_options",
    "preset_ids",
    "resolve_rules",
]
