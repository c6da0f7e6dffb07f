"""Every message the server accepts, as pydantic models (unknown fields refused, sizes bounded)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

# A name is data (rulings 32): the engines keep the house, layout, bank and kitty as enum accounts,
# so no name can alias them; the server also keeps names short and printable for the page.
Name = Annotated[
    str, StringConstraints(min_length=1, max_length=24, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.-]*$")
]
Money = Annotated[str, StringConstraints(min_length=1, max_length=16, pattern=r"^[0-9]{1,9}(\.[0-9]{1,2})?$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TableIn(Strict):
    preset: str | None = Field(None, max_length=40, description="a preset id or alias (see /api/presets)")
    rules_toml: str | None = Field(
        None, max_length=16_000, description='a rules file\'s TOML text: preset = "mbs" plus rule fields'
    )
    name: str | None = Field(None, max_length=40, pattern=r"^[^\x00-\x1f<>&]*$")
    seats: int = Field(
        2, ge=2, le=6, description="British: how many seats (the game starts when all are taken)"
    )
    seed: int | None = Field(None, ge=0, lt=2**63, description="seed for the shuffle (default: random)")


class JoinIn(Strict):
    box: int | None = Field(None, ge=1, le=9, description="casino: the box to sit at as its seated bettor")
    stand_on: int | None = Field(None, ge=1, le=9, description="casino: the box to stand behind")
    buy_in: Money | None = Field(None, description="money brought to the table (default: up to 1000)")


class JoinOut(Strict):
    table: str
    name: str
    token: str
    expires_in_s: int
    role: str
    box: int | None = None


class LeaveIn(Strict):
    token: str | None = Field(None, max_length=1024, description="a seat token (default: the session's seat)")


class ActionIn(Strict):
    """An engine action as ``Action.to_json`` writes it (no ``low``/``high``: those are listings)."""

    verb: str = Field(max_length=16)
    box: int | None = Field(None, ge=1, le=99)
    hand: int | None = Field(None, ge=1, le=99)
    player: Name | None = None
    amount: Money | None = None
    players: list[Name] | None = Field(None, max_length=8)
    decline: list[Name] = Field(default_factory=list, max_length=8)
    what: str | None = Field(None, max_length=16)


class ActMsg(Strict):
    type: Literal["act"]
    action: ActionIn


class BetMsg(Strict):
    type: Literal["bet"]
    kind: str = Field("main", max_length=16)
    amount: Money
    # the round the wager is for (the page names the round it shows open for betting): refused, never
    # placed on another round, when that round was dealt before the wager came (web/casino_host.py)
    round: int | None = Field(None, ge=1, le=2**62)


class SimpleMsg(Strict):
    type: Literal["deal", "clear_bets", "ping", "hints", "resync"]


class KittyMsg(Strict):
    type: Literal["kitty"]
    amount: Money


class TopUpMsg(Strict):
    type: Literal["top_up"]
    amount: Money


class SellBankMsg(Strict):
    """The banker offers the bank (003 The New Deal) to ``buyer`` (None: any player); no price withdraws it."""

    type: Literal["sell_bank"]
    buyer: Name | None = None
    price: Money | None = None


class BuyBankMsg(Strict):
    type: Literal["buy_bank"]
    price: Money


class ChatMsg(Strict):
    """A chat line to the people at the table (WebSocket only): at most 200 characters, no control."""

    type: Literal["chat"]
    text: str = Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$")


ClientMsg = Annotated[
    ActMsg | BetMsg | SimpleMsg | KittyMsg | TopUpMsg | SellBankMsg | BuyBankMsg | ChatMsg,
    Field(discriminator="type"),
]


class Envelope(Strict):
    msg: ClientMsg


# A WebSocket message's text parsed and validated in one pass (pydantic's JSON parser: no ``json.loads``
# and no ``Envelope`` around it; the same models, the same errors but for their ``msg`` location).
CLIENT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ClientMsg)
PARSED_KEPT = 1024  # distinct message texts kept parsed (``parse_client``); then the memo starts again
PARSED_LEN = 200  # only texts this short are kept (a move, a wager: 30 to 80 characters)
_parsed: dict[str, Any] = {}


def parse_client(text: str) -> Any:
    """A WebSocket message's text parsed and validated (``CLIENT_MESSAGE``), each text once: the
    messages are a few texts sent again and again (a hit, a stand on box 1, a wager of 10) and their
    models are frozen, so the one validated object serves every copy of its text (pydantic's parse
    was 7 to 10 us of a message in the server). A text that fails raises as before and is not kept;
    a short one that passes is kept, at most ``PARSED_KEPT`` of them (bounded under a flood of texts).
    The handlers never change a message (``action_json`` copies an action's lists)."""
    msg = _parsed.get(text)
    if msg is None:
        msg = CLIENT_MESSAGE.validate_json(text)
        if len(text) <= PARSED_LEN:
            if len(_parsed) >= PARSED_KEPT:
                _parsed.clear()
            _parsed[text] = msg
    return msg


def action_json(a: ActionIn) -> dict[str, Any]:
    """``a`` as ``Action.from_json`` reads it: what ``a.model_dump(exclude_none=True,
    exclude_defaults=True)`` gives (the fields given, an empty ``decline`` left out: its default),
    without pydantic's walk of the model."""
    d = {k: list(v) if type(v) is list else v for k, v in a.__dict__.items() if v is not None}
    if d.get("decline") == []:
        del d["decline"]
    return d


class MessageIn(Strict):
    """A client message over REST (``POST /api/tables/{id}/messages``), with the seat token it acts for."""

    token: str | None = Field(None, max_length=1024, description="a seat token (default: the session's seat)")
    message: ClientMsg
