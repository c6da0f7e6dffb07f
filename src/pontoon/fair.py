"""Provably fair shuffles: commit to a secret server seed, shuffle from HMAC-SHA256, reveal, verify.

The scheme (``SCHEME``), exactly; ``docs/fairness.md`` has a worked example that the tests check:

1. The server seed is 32 bytes from ``secrets``, written as 64 lower-case hex digits. Its
   commitment is ``SHA-256(server seed bytes)`` (the 32 bytes, not the hex text), in hex; the table
   logs it before the first card of the shoe is dealt and reveals the seed when the shoe is retired.
2. The client seed is 1 to 64 printable ASCII characters, chosen by the player (or drawn at random
   and shown); the nonce is the shoe number, an integer from 0 up.
3. Block ``k`` (``k = 0, 1, 2, ...``) of the stream is
   ``HMAC-SHA256(key = server seed bytes, message = ASCII "{client_seed}:{nonce}:{k}")``, the
   numbers in decimal without leading zeros; each 32-byte block is eight 32-bit words, big-endian,
   used in order, and a block is made only when the words before it are used up.
4. An index in ``[0, n)``: take the next word ``w``; if ``w >= 2**32 - (2**32 % n)`` (the largest
   multiple of ``n`` not above ``2**32``) reject it and take the next word, else the index is ``w % n``.
   Every index then has exactly the same number of accepted words.
5. The shoe starts in canonical order: the cards of ``pontoon.cards.pack_cards(pack)`` (ace to king,
   each rank in the suit order S H D C; ``pontoon48`` leaves the tens out), deck after deck. Fisher-Yates
   from the end: for ``i = len - 1`` down to ``1``, ``j`` = the next index in ``[0, i + 1)``, swap
   positions ``i`` and ``j``. Position 0 is the top of the shoe, the first card dealt.

``FairShuffler`` runs this per table: a new server seed for each shoe, the nonce counting the
shoes, and a client seed the player may change (from the next shoe on). ``verify_record`` checks a
revealed shoe from plain JSON data, so that anyone (``pontoon verify``) can check a logged shoe.

A test-only deterministic mode (``FairShuffler(test_seed=N)``) derives the server seed of shoe
``k`` as ``SHA-256(ASCII "pontoon-fair-test:{N}:{k}")``: it is NOT secret (anyone who knows ``N``
knows every shoe) and exists so that tests and kill tests can reproduce a table exactly.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from pontoon.cards import PACKS, Card, pack_cards
from pontoon.errors import CardError, PontoonError

SCHEME: Final = "hmac-sha256-fisher-yates-v1"
WORD_BITS: Final = 32
MAX_DECKS: Final = 8  # the rules allow 1 to 8 decks (rules/model.py); two British packs at most (003)
MAX_CLIENT_SEED: Final = 64
MAX_NONCE: Final = 2**63 - 1
MAX_RECORD_BYTES: Final = 256 * 1024  # a real record is under 4 KB (8 decks of 52 cards dealt)
RECORD_KEYS: Final = ("scheme", "server_seed", "client_seed", "nonce", "commitment", "pack", "decks", "dealt")
OPTIONAL_KEYS: Final = ("shoe",)  # an identifier the store may add (a number or a short string)
_HEX: Final = frozenset("0123456789abcdef")
_WORDS = struct.Struct(">8I")


class FairRecordError(PontoonError):
    """A verification record (or a client seed) that is malformed: one line saying what and what is accepted."""


# --------------------------------------------------------------------------------------------
# seeds and the commitment
def new_server_seed() -> str:
    """32 bytes from ``secrets``, as 64 lower-case hex digits."""
    return secrets.token_hex(32)


def new_client_seed() -> str:
    """A random client seed for a player who does not choose one (16 bytes, hex)."""
    return secrets.token_hex(16)


def deterministic_server_seed(test_seed: int, nonce: int) -> str:
    """The deterministic (NOT secret) server seed of shoe ``nonce`` in test mode."""
    return hashlib.sha256(f"pontoon-fair-test:{test_seed}:{nonce}".encode("ascii")).hexdigest()


def commitment(server_seed: str) -> str:
    """SHA-256 of the server seed's 32 bytes, in hex: published before the shoe is used."""
    return hashlib.sha256(_seed_bytes(server_seed, "server_seed")).hexdigest()


def _seed_bytes(text: str, what: str) -> bytes:
    if not isinstance(text, str) or len(text) != 64 or not set(text) <= _HEX:
        raise FairRecordError(f"{what} must be 64 lower-case hex digits (32 bytes), not {_show(text)}")
    return bytes.fromhex(text)


def check_client_seed(seed: object) -> str:
    """A client seed is 1 to 64 printable ASCII characters (so that its encoding is unambiguous)."""
    if (
        not isinstance(seed, str)
        or not 1 <= len(seed) <= MAX_CLIENT_SEED
        or not seed.isascii()
        or not seed.isprintable()
    ):
        raise FairRecordError(
            f"client_seed must be 1 to {MAX_CLIENT_SEED} printable ASCII characters, not {_show(seed)}"
        )
    return seed


def _show(value: object) -> str:
    return f"{value!r:.60}" if isinstance(value, str) else f"a {type(value).__name__}"


# --------------------------------------------------------------------------------------------
# the stream, the index, the shuffle
def stream_message(client_seed: str, nonce: int, counter: int) -> bytes:
    """The HMAC message of block ``counter``: ASCII ``"{client_seed}:{nonce}:{counter}"``."""
    return f"{client_seed}:{nonce}:{counter}".encode("ascii")


def blocks(server_seed: str, client_seed: str, nonce: int) -> Iterator[bytes]:
    """The HMAC-SHA256 blocks 0, 1, 2, ... (counter mode; the key is the server seed's bytes)."""
    key = _seed_bytes(server_seed, "server_seed")
    prefix = f"{client_seed}:{nonce}:".encode("ascii")
    counter = 0
    while True:
        yield hmac.digest(key, prefix + str(counter).encode("ascii"), "sha256")
        counter += 1


def words(server_seed: str, client_seed: str, nonce: int) -> Iterator[int]:
    """32-bit words: each block's 32 bytes read as eight big-endian unsigned integers, in order."""
    for block in blocks(server_seed, client_seed, nonce):
        yield from _WORDS.unpack(block)


def rejection_limit(n: int, bits: int = WORD_BITS) -> int:
    """Words at or above this are rejected for an index in [0, n): the largest multiple of n up to 2**bits."""
    if n < 1:
        raise ValueError(f"an index range needs n >= 1, got {n}")
    span = 1 << bits
    return span - span % n


def index_below(n: int, stream: Iterator[int], bits: int = WORD_BITS) -> int:
    """An unbiased index in [0, n) from the word stream, by rejection sampling."""
    limit = rejection_limit(n, bits)
    for w in stream:
        if w < limit:
            return w % n
    raise ValueError("the word stream ended")  # the HMAC stream never ends; a finite test stream may


@dataclass
class Trace:
    """What a shuffle did, step by step (for the worked example and for anyone checking by hand)."""

    words: list[int] = field(default_factory=list)  # every word taken, rejected ones included
    steps: list[tuple[int, int]] = field(default_factory=list)  # (i, j): positions swapped


def fisher_yates(cards: Sequence[Card], stream: Iterator[int], trace: Trace | None = None) -> list[Card]:
    """Fisher-Yates from the end over ``cards``: for i = len-1 .. 1, swap i with an index in [0, i+1)."""
    out = list(cards)
    if trace is not None:
        stream = _traced(stream, trace.words)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = (1 << WORD_BITS) - (1 << WORD_BITS) % n
        for w in stream:
            if w < limit:
                j = w % n
                break
        else:
            raise ValueError("the word stream ended")
        out[i], out[j] = out[j], out[i]
        if trace is not None:
            trace.steps.append((i, j))
    return out


def _traced(stream: Iterator[int], seen: list[int]) -> Iterator[int]:
    for w in stream:
        seen.append(w)
        yield w


def canonical_shoe(pack: str, decks: int) -> list[Card]:
    """The order before shuffling: ``pack_cards(pack)`` deck after deck."""
    return list(pack_cards(pack)) * decks


def shuffle_cards(
    cards: Sequence[Card], server_seed: str, client_seed: str, nonce: int, trace: Trace | None = None
) -> list[Card]:
    """The fair order of ``cards`` (given in canonical order), top first."""
    return fisher_yates(cards, words(server_seed, client_seed, nonce), trace)


def shuffled_shoe(pack: str, decks: int, server_seed: str, client_seed: str, nonce: int) -> list[Card]:
    """The whole shoe of ``decks`` packs in the fair order, top first."""
    return shuffle_cards(canonical_shoe(pack, decks), server_seed, client_seed, nonce)


# --------------------------------------------------------------------------------------------
# a table's shuffler
class FairShuffler:
    """One per table: a fresh server seed per shoe, the shoe number as nonce, the player's client seed.

    ``new_shoe(pack, decks)`` returns the cards (top first) and the commitment data the table logs
    (event ``new_shoe``) before dealing; ``retire()`` returns the reveal (event ``shoe_retired``).
    Each server seed is drawn one shoe ahead: ``next_commitment`` (also in every ``new_shoe`` event)
    is the next shoe's commitment, fixed before the player chooses the client seed for that shoe.
    ``set_client_seed`` changes the client seed from the next shoe on (the current order is committed).
    """

    def __init__(self, client_seed: str | None = None, *, test_seed: int | None = None) -> None:
        if test_seed is not None and (isinstance(test_seed, bool) or not isinstance(test_seed, int)):
            raise TypeError(f"test_seed must be an int, not {type(test_seed).__name__}")
        self.test_seed = test_seed
        if client_seed is None:
            client_seed = new_client_seed() if test_seed is None else f"test-{test_seed}"
        self._client_seed = check_client_seed(client_seed)
        self.nonce = 0  # shoes shuffled so far; the next shoe's nonce is nonce + 1
        self._server_seed: str | None = None  # the live shoe's seed: secret until retire()
        self._live: dict[str, Any] | None = None
        # the next shoe's seed is drawn (and its commitment shown) a shoe ahead, so that a player can
        # choose the client seed after seeing it: the house cannot then pick a seed to suit the client seed
        self._next_seed = self._draw_seed(1)
        # and the seed after it is drawn (never shown) one more shoe ahead, so that the recovery snapshot
        # taken at a round's start holds every seed a crash-replay of that round can need (a British
        # reshuffle at the round's end commits to the seed after the next one)
        self._after_seed = self._draw_seed(2)
        # the next shoe's order, shuffled ahead (``prepare``, e.g. in a worker thread) with what it was
        # shuffled from: used by ``new_shoe`` only if the seed, client seed, nonce, pack and decks agree
        self._ready: tuple[tuple[str, str, int, str, int], list[Card]] | None = None

    def _draw_seed(self, nonce: int) -> str:
        return (
            new_server_seed() if self.test_seed is None else deterministic_server_seed(self.test_seed, nonce)
        )

    @property
    def next_commitment(self) -> str:
        """The commitment of the next shoe's server seed (shown before the player sets a client seed)."""
        return commitment(self._next_seed)

    @property
    def client_seed(self) -> str:
        """The client seed the next shoe will use (shown to the players)."""
        return self._client_seed

    def set_client_seed(self, seed: str) -> None:
        """The player's own client seed, used from the next shoe on."""
        self._client_seed = check_client_seed(seed)

    @property
    def live(self) -> bool:
        """True while a shoe is in use (committed, not yet revealed)."""
        return self._live is not None

    def prepare(self, pack: str, decks: int) -> None:
        """Shuffle the next shoe now, ahead of ``new_shoe`` (the server does it in a worker thread when
        a table is made and after each new shoe, so that no table's first deal shuffles on the event
        loop). It changes nothing a player can see or check: the order is the one ``new_shoe`` would
        compute from the same committed seed, client seed and nonce (a client seed changed meanwhile
        makes ``new_shoe`` shuffle afresh), and it stays as secret as the seed it comes from."""
        key = (self._next_seed, self._client_seed, self.nonce + 1, pack, decks)
        ready = self._ready
        if ready is not None and ready[0] == key:
            return
        self._ready = (key, shuffled_shoe(pack, decks, *key[:3]))

    @property
    def prepared(self) -> int | None:
        """The nonce of the shoe shuffled ahead by ``prepare`` (None: none; it may be stale)."""
        ready = self._ready
        return None if ready is None else ready[0][2]

    def new_shoe(self, pack: str, decks: int) -> tuple[list[Card], dict[str, Any]]:
        """Shuffle a new shoe: its cards top first, and the commitment to log before any card is dealt."""
        if self._live is not None:
            raise RuntimeError(
                "retire() the shoe in use before shuffling a new one (its seed must be revealed)"
            )
        self.nonce += 1
        seed = self._next_seed
        ready, self._ready = self._ready, None
        if ready is not None and ready[0] == (seed, self._client_seed, self.nonce, pack, decks):
            cards = ready[1]  # (prepare: the same order, shuffled ahead)
        else:
            cards = shuffled_shoe(pack, decks, seed, self._client_seed, self.nonce)
        self._server_seed = seed
        self._next_seed = self._after_seed
        self._after_seed = self._draw_seed(self.nonce + 2)
        self._live = {
            "scheme": SCHEME,
            "commitment": commitment(seed),
            "client_seed": self._client_seed,
            "nonce": self.nonce,
            "pack": pack,
            "decks": decks,
            "cards": len(cards),
            "next_commitment": commitment(self._next_seed),
        }
        if self.test_seed is not None:
            self._live["secret"] = False  # test mode: the seed follows from test_seed (not secret)
        return cards, dict(self._live)

    def state(self) -> dict[str, Any]:
        """Everything needed to go on exactly (the store's private recovery snapshot): the client seed,
        the nonce, the live shoe's secret seed and commitment data, the seeds of the next two shoes,
        test mode. A restored shuffler makes the same next two shoes (and commitments) as the original;
        in secret mode the shoe after those gets a fresh seed (it was never shown).
        SECRET: the seeds must never be shown or logged before their shoe is retired."""
        return {
            "scheme": SCHEME,
            "client_seed": self._client_seed,
            "nonce": self.nonce,
            "server_seed": self._server_seed,
            "live": dict(self._live) if self._live is not None else None,
            "next_seed": self._next_seed,
            "after_seed": self._after_seed,
            "test_seed": self.test_seed,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> FairShuffler:
        """The inverse of ``state``: the same next shoe, commitment and reveal as an uninterrupted shuffler."""
        if not isinstance(state, dict) or state.get("scheme") != SCHEME:
            raise FairRecordError(
                f"a fair shuffler state of scheme {SCHEME!r} is expected, not {_show(state)}"
            )
        test_seed = state.get("test_seed")
        out = cls(str(state["client_seed"]), test_seed=None if test_seed is None else int(test_seed))
        out.test_seed = None if test_seed is None else int(test_seed)
        out.nonce = int(state["nonce"])
        live = state.get("live")
        seed = state.get("server_seed")
        if (live is None) != (seed is None):
            raise FairRecordError(
                "a fair shuffler state has a live shoe without its server seed (or the reverse)"
            )
        out._server_seed = None if seed is None else str(seed)
        out._live = None if live is None else dict(live)
        next_seed, after_seed = str(state["next_seed"]), str(state["after_seed"])
        _seed_bytes(next_seed, "next_seed")
        _seed_bytes(after_seed, "after_seed")
        out._next_seed, out._after_seed = next_seed, after_seed
        return out

    def retire(self) -> dict[str, Any] | None:
        """Reveal the live shoe's server seed (``None`` when no shoe is live)."""
        if self._live is None or self._server_seed is None:
            return None
        out = {"scheme": SCHEME, "nonce": self._live["nonce"], "server_seed": self._server_seed}
        self._live = self._server_seed = None
        return out


# --------------------------------------------------------------------------------------------
# records and their verification
@dataclass(frozen=True)
class FairRecord:
    """A revealed shoe: enough to recompute its order and check the cards dealt from it."""

    server_seed: str
    client_seed: str
    nonce: int
    commitment: str
    pack: str
    decks: int
    dealt: tuple[Card, ...]
    scheme: str = SCHEME

    def to_json(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "server_seed": self.server_seed,
            "client_seed": self.client_seed,
            "nonce": self.nonce,
            "commitment": self.commitment,
            "pack": self.pack,
            "decks": self.decks,
            "dealt": [str(c) for c in self.dealt],
        }


@dataclass(frozen=True)
class VerifyResult:
    """``ok`` when the commitment, the order and every card dealt agree; ``difference`` names the first that does not."""

    ok: bool
    checked: tuple[str, ...]
    difference: str | None = None
    order: tuple[Card, ...] = ()


def parse_record(data: object) -> FairRecord:
    """Check the types and ranges of a record (a JSON object); raise FairRecordError on the first problem."""
    if not isinstance(data, dict):
        raise FairRecordError(
            f"a record is a JSON object with keys {', '.join(RECORD_KEYS)}, not {_show(data)}"
        )
    unknown = [k for k in data if k not in RECORD_KEYS and k not in OPTIONAL_KEYS]
    if unknown:
        raise FairRecordError(
            f"unknown key {_show(str(unknown[0]))}: a record has {', '.join(RECORD_KEYS)} (and optionally shoe)"
        )
    shoe = data.get("shoe")
    if shoe is not None and not (
        (isinstance(shoe, int) and not isinstance(shoe, bool)) or (isinstance(shoe, str) and len(shoe) <= 64)
    ):
        raise FairRecordError(
            f"shoe must be an integer or a string of at most 64 characters, not {_show(shoe)}"
        )
    missing = [k for k in RECORD_KEYS if k not in data]
    if missing:
        raise FairRecordError(f"the record has no {missing[0]!r}: a record has {', '.join(RECORD_KEYS)}")
    if data["scheme"] != SCHEME:
        raise FairRecordError(f"scheme {_show(data['scheme'])} is not supported: accepted is {SCHEME!r}")
    server_seed = data["server_seed"]
    _seed_bytes(server_seed, "server_seed")
    com = data["commitment"]
    _seed_bytes(com, "commitment")
    client_seed = check_client_seed(data["client_seed"])
    nonce = data["nonce"]
    if isinstance(nonce, bool) or not isinstance(nonce, int) or not 0 <= nonce <= MAX_NONCE:
        raise FairRecordError(f"nonce must be an integer from 0 to 2**63-1, not {_show(nonce)}")
    pack = data["pack"]
    if not isinstance(pack, str) or pack not in PACKS:
        raise FairRecordError(f"pack {_show(pack)} is unknown: accepted packs are {', '.join(PACKS)}")
    decks = data["decks"]
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS:
        raise FairRecordError(f"decks must be an integer from 1 to {MAX_DECKS}, not {_show(decks)}")
    dealt = data["dealt"]
    size = len(PACKS[pack]) * decks
    if not isinstance(dealt, list) or len(dealt) > size:
        raise FairRecordError(
            f"dealt must be a list of at most {size} card strings (the shoe's size), not {_show(dealt)}"
        )
    cards = []
    for i, text in enumerate(dealt):
        if not isinstance(text, str):
            raise FairRecordError(f"dealt[{i}] must be a card string such as 7S, not {_show(text)}")
        try:
            cards.append(Card.parse(text))
        except CardError as err:
            raise FairRecordError(f"dealt[{i}]: {err}") from None
    return FairRecord(server_seed, client_seed, nonce, com, pack, decks, tuple(cards))


def verify(record: FairRecord) -> VerifyResult:
    """Recompute the commitment and the order; check that the cards dealt are the top of that order."""
    checked = [f"scheme {record.scheme}"]
    actual = commitment(record.server_seed)
    if actual != record.commitment:
        return VerifyResult(
            False,
            tuple(checked),
            f"commitment {record.commitment} is not SHA-256 of the revealed server seed (that is {actual})",
        )
    checked.append(f"commitment {record.commitment} = SHA-256 of the revealed server seed")
    order = shuffled_shoe(record.pack, record.decks, record.server_seed, record.client_seed, record.nonce)
    checked.append(
        f"order of {len(order)} cards ({record.decks} x {record.pack}) from client seed "
        f"{record.client_seed!r}, nonce {record.nonce}"
    )
    for i, card in enumerate(record.dealt):
        if card != order[i]:
            return VerifyResult(
                False,
                tuple(checked),
                f"card {i + 1} dealt was {card}, the committed order has {order[i]} there",
                tuple(order),
            )
    checked.append(f"the {len(record.dealt)} cards dealt are the first {len(record.dealt)} of that order")
    return VerifyResult(True, tuple(checked), None, tuple(order))


def verify_record(data: object) -> VerifyResult:
    """Parse a record (plain JSON data) and verify it; FairRecordError when it is malformed."""
    return verify(parse_record(data))


def load_record_text(raw: bytes | str) -> object:
    """JSON text of a record, bounded: too large, not UTF-8, not JSON or nested too deeply is a FairRecordError."""
    if len(raw) > MAX_RECORD_BYTES:
        raise FairRecordError(f"the record is over {MAX_RECORD_BYTES} bytes: a record is a small JSON object")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise FairRecordError(f"the record is not UTF-8 text (byte {err.start})") from None
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise FairRecordError("the record is nested too deeply: a record is one flat JSON object") from None
    except ValueError as err:  # json.JSONDecodeError, and integers of more than 4300 digits
        raise FairRecordError(f"the record is not valid JSON: {str(err).splitlines()[0][:120]}") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def records_from_events(events: Iterable[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Verification records of the retired fair shoes in a table's event stream.

    ``events`` are ``(kind, data)`` pairs in the order the table published them: ``new_shoe`` (with a
    commitment), the cards dealt (``card`` events of a casino round, ``draw`` events of a British round),
    ``shoe_retired`` (with the server seed). A British shoe's record holds at most the first
    ``cards`` draws after its shuffle: later draws are used cards that came back to the bottom (003).
    """
    out: list[dict[str, Any]] = []
    live: dict[str, Any] | None = None
    for kind, data in events:
        if kind == "new_shoe" and data.get("scheme") == SCHEME:
            live = {k: data[k] for k in ("scheme", "client_seed", "nonce", "commitment", "pack", "decks")}
            live["dealt"] = []
            live["_size"] = data["cards"]
        elif kind in ("card", "draw") and live is not None:
            if len(live["dealt"]) < live["_size"]:
                live["dealt"].append(data["card"])
        elif kind == "shoe_retired" and live is not None and "server_seed" in data:
            live["server_seed"] = data["server_seed"]
            del live["_size"]
            out.append(live)
            live = None
    return out
