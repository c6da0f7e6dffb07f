"""A restarted server (a new server on the same SQLite file) never deals an earlier draw again:

- a restored British table numbers its games on from the store's count (it restarted at 1: a test-mode
  table's next game dealt an earlier game's pack again, commitment and all; a shared table drew its first
  banker with an earlier game's generator, so whoever saw that game knew the draw);
- a casino table's fair shuffler goes on with its shoe numbers (nonces) and the seed it committed to
  before the restart: every shoe of the table has its own nonce, commitment and seed."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest

from pontoon.history import open_store
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, LiveServer, bearer
from tests.web.play import casino_choice
from tests.web.test_table_host import made_by

QUICK = dataclasses.replace(FAST, turn_timeout_s=0.2)  # a seat that has left is played by the timer


def _until(pred: Any, what: str, budget: float = 20) -> None:
    end = time.monotonic() + budget
    while not pred():
        assert time.monotonic() < end, what
        time.sleep(0.02)


def _game_starts(live: LiveServer, tid: str, cy: str) -> tuple[int, Any]:
    """cy sits down in the free seat: a new game starts; its number and its draw's generator state."""
    live.join(tid, cy, buy_in="300")
    host = live.srv.lobby.tables[tid]
    g = host.game_obj
    assert g is not None and not g.closed
    return host.games, g.rng.bit_generator.state  # (a fair game's generator draws only the first banker)


def _game_ends(live: LiveServer, tid: str, cy: str) -> None:
    """cy leaves: the timer plays his hand out, then the game closes (one seat is left)."""
    r = live.http.post(f"/api/tables/{tid}/leave", headers=bearer(cy))
    assert r.status_code == 200, r.text
    host = live.srv.lobby.tables[tid]
    _until(lambda: host.game_obj is None, "the game did not close")


def _commitments(p: StorePersistence, tid: str, games: int) -> list[list[str]]:
    """Each stored game's pack commitments, in order (waiting for the last game's first one)."""

    def read() -> list[list[str]]:
        return [
            [str(e["data"]["commitment"]) for e in p.store.events_(t, round_no=0) if e["kind"] == "new_shoe"]
            for t in sorted(p.store_table_ids(tid))
        ]

    _until(lambda: len(read()) == games and all(read()), f"{games} games with a committed pack")
    return read()


@pytest.mark.parametrize("seed", [7, None])  # None: a shared table (secret fair packs)
def test_a_restored_british_table_numbers_its_games_on_and_never_repeats_a_draw(
    make_live: Any, tmp_path: Path, seed: int | None
) -> None:
    pytest.importorskip("pontoon.fair", reason="this build has no provably fair shuffle (pontoon.fair)")
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(QUICK, StorePersistence(store_a))
    ann, cy = a.account("ann"), a.account("cy")
    tid = made_by(a, ann, preset="british", seats=2, **({} if seed is None else {"seed": seed}))
    a.join(tid, ann, buy_in="300")
    draws = []
    for n in (1, 2, 3):  # two games played out, the third in play when the server stops
        number, draw = _game_starts(a, tid, cy)
        assert number == n
        draws.append(draw)
        if n < 3:
            _game_ends(a, tid, cy)
    _commitments(a.srv.lobby.store, tid, 3)
    a.stop()
    store_a.close()

    p = StorePersistence(open_store(url))
    b = make_live(QUICK, p)
    host = b.srv.lobby.tables[tid]
    assert host.games == 3  # the game in play is the third (a restored table said 1)
    _game_ends(b, tid, cy)
    number, draw = _game_starts(b, tid, cy)
    assert number == 4 == len(p.store_table_ids(tid))  # numbered on: the store holds four games
    packs = _commitments(p, tid, 4)
    earlier = {c for game in packs[:3] for c in game}
    assert len(earlier) == sum(len(game) for game in packs[:3])  # every pack its own seed
    assert packs[3][0] not in earlier  # a test table dealt game 2's first pack again
    # its first banker's draw is no earlier game's (the old code drew game 2's again, same generator)
    assert all(draw != d for d in draws)
    _game_ends(b, tid, cy)


def test_a_restored_casino_table_goes_on_with_its_shoe_numbers(make_live: Any, tmp_path: Path) -> None:
    pytest.importorskip("pontoon.fair", reason="this build has no provably fair shuffle (pontoon.fair)")
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    toml = 'preset = "blackjack"\ndecks = 1\npenetration = 0.5\n'  # a shoe retires every few rounds
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    tid = a.table(rules_toml=toml)  # a shared table: secret seeds
    seat = a.join(tid, a.account("ann"), box=1, buy_in="1000")

    def play_until_shoe(live: LiveServer, nonce: int) -> dict[str, Any]:
        c = live.ws(tid, seat)
        c.wait_state(lambda m: m["you"] is not None)
        for _ in range(600):
            st = c.state
            live_shoe = live.srv.lobby.tables[tid].table.fair
            if live_shoe.nonce >= nonce:
                break
            pick = casino_choice(st)
            if pick is not None:
                c.send({"type": "act", "action": pick})
            elif st["phase"] == "betting":
                c.send({"type": "bet", "amount": "10"})
            else:
                c.drain(0.02)
                continue
            c.until(lambda m: m.get("type") in ("state", "error"))
        c.close()
        assert live.srv.lobby.tables[tid].table.fair.nonce == nonce
        return dict(live.srv.lobby.tables[tid].table.fair.state())

    before = play_until_shoe(a, 2)  # the first shoe retired, the second in play
    a.stop()
    store_a.close()

    p = StorePersistence(open_store(url))
    b = make_live(FAST, p)
    fair = b.srv.lobby.tables[tid].table.fair
    assert fair.nonce == 2 and fair.next_commitment == before["live"]["next_commitment"]
    play_until_shoe(b, 3)  # the second shoe retires on the restored table
    (store_id,) = p.store_table_ids(tid)

    def shoes_seen() -> list[dict[str, Any]]:
        return [e["data"] for e in p.store.events_(store_id, round_no=0) if e["kind"] == "new_shoe"]

    _until(lambda: len(shoes_seen()) == 3, "the third shoe's commitment is stored")
    shoes = shoes_seen()
    assert [s["nonce"] for s in shoes] == [1, 2, 3]
    assert shoes[2]["commitment"] == before["live"]["next_commitment"]  # committed before the restart
    assert len({s["commitment"] for s in shoes}) == 3
    evs = p.store.events_(store_id, round_no=0)
    seeds = [e["data"]["server_seed"] for e in evs if e["kind"] == "shoe_retired"]
    assert len(seeds) == 2 and len(set(seeds)) == 2
