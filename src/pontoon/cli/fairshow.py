"""The provably fair shuffle at a recorded terminal table (``pontoon play``): the shuffler, and the
lines that show each shoe's commitment when it starts and its revealed seed when it is retired.

The lines are collected from the table's events and printed by the game loop after the table call
that made them has returned, so after the recorder has committed them (each event before it is shown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from pontoon.errors import PontoonError
from pontoon.events import TableRecord
from pontoon.fair import FairRecordError, FairShuffler, check_client_seed

if TYPE_CHECKING:
    from pontoon.history.session import Session


def make_fair(*, history: bool, seed: int | None, client_seed: str | None) -> FairShuffler | None:
    """The table's shuffler: fair when the session is recorded (docs/fairness.md); ``--seed N`` is then
    the documented, NOT secret test mode; ``--no-history`` keeps the seeded numpy shoe."""
    if client_seed is not None:
        try:
            check_client_seed(client_seed)
        except FairRecordError as err:
            raise PontoonError(f"--client-seed: {err}") from None
    if not history:
        if client_seed is not None:
            raise PontoonError(
                "--client-seed seeds the fair shuffle of a recorded session: leave out --no-history"
            )
        return None
    return FairShuffler(client_seed, test_seed=seed)


class ShoeNotes:
    """Collects the commitment and reveal lines of a fair table's shoes; ``show`` prints them."""

    def __init__(self, table: Any, session: Session | None) -> None:
        self.session = session
        self.lines: list[str] = []
        self._unsubscribe = table.subscribe(self._on)

    def _on(self, rec: TableRecord) -> None:
        if rec.round_no != 0:
            return
        kind, d = rec.event.kind, rec.event.data
        if kind == "new_shoe" and "commitment" in d:
            mode = " [yellow](test mode from --seed: NOT secret)[/yellow]" if d.get("secret") is False else ""
            self.lines.append(
                f"[cyan]shoe {d['shoe']} is shuffled: commitment {d['commitment']} "
                f"(client seed {escape(repr(d['client_seed']))}, nonce {d['nonce']}){mode}; "
                f"next shoe's commitment {d['next_commitment']}[/cyan]"
            )
        elif kind == "shoe_retired" and "server_seed" in d:
            sid = self.session.shoe_id(int(d["shoe"])) if self.session is not None else None
            check = f"; check it with: pontoon verify {sid}" if sid is not None else ""
            self.lines.append(
                f"[cyan]shoe {d['shoe']} retired after {d['dealt']} cards: server seed {d['server_seed']}{check}[/cyan]"
            )

    def show(self, console: Console) -> None:
        for line in self.lines:
            console.print(line, highlight=False, soft_wrap=True)  # a seed stays on one line (copy and paste)
        self.lines.clear()

    def detach(self) -> None:
        self._unsubscribe()
