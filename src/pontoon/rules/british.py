"""British Pontoon rules (003). PLACEHOLDER owned by the British engine work: replaced there."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field


class BritishRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    preset: str
    name: str = ""
    document: str = "003_8651e4cdf686b569.txt"
    stick_minimum: int = Field(15, ge=15, le=16)
    stake_min: Decimal = Decimal(1)
    stake_max: Decimal = Decimal(100)
    shoot: bool = False


BRITISH = BritishRules(preset="british", name="Traditional British Pontoon")
SHOOT = BritishRules(preset="shoot", name="Shoot Pontoon", shoot=True)
BRITISH_PRESETS: dict[str, BritishRules] = {"british": BRITISH, "shoot": SHOOT}
