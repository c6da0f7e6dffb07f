"""The prefetched dealer distributions kept on disk between processes (``DealerCache.prefetch``):
keyed by the shoe, the dealer's soft-17 rule, the split rules and the code, written atomically, and
checked when read: a damaged or foreign file is computed afresh, never used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pontoon.analysis import dealer_rows
from pontoon.analysis.dealer_rows import DealerCache, _rows_ident
from pontoon.analysis.player import Params
from pontoon.rules.load import resolve_rules


@pytest.fixture()
def rows_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(dealer_rows, "_TRIE_DIR", tmp_path)
    return tmp_path


def _prefetched(decks: int, h17: bool = False) -> tuple[DealerCache, Params]:
    rules = resolve_rules("blackjack", {"decks": decks, "hits_soft_17": h17})
    pr = Params.of(rules, None)
    full = np.array([4 * decks] * 9 + [16 * decks], dtype=np.int64)
    dc = DealerCache(full, pr.h17)
    dc.prefetch(pr)
    return dc, pr


def test_a_second_process_reads_the_same_rows(rows_dir: Path) -> None:
    first, _ = _prefetched(1)
    files = list(rows_dir.glob("dealer_rows_*.npy"))
    assert len(files) == 1
    second, _ = _prefetched(1)  # a new cache object, as in a new process: read from the file
    assert second.by_up.base is not None  # mapped from the file, not computed
    assert np.array_equal(first.keys, second.keys)
    assert np.array_equal(first.by_up, second.by_up)  # bit for bit
    assert not list(rows_dir.glob("*.tmp"))  # written aside, then renamed


def test_rows_are_keyed_by_shoe_and_rules(rows_dir: Path) -> None:
    _prefetched(1)
    _prefetched(1, h17=True)
    _prefetched(2)
    assert len(list(rows_dir.glob("dealer_rows_*.npy"))) == 3
    full = np.array([4] * 9 + [16], dtype=np.int64)
    assert _rows_ident(full, False, 4, False) != _rows_ident(full, True, 4, False)
    assert _rows_ident(full, False, 4, False) != _rows_ident(full, False, 3, False)
    assert _rows_ident(full, False, 4, False) != _rows_ident(full, False, 4, True)


def test_a_partial_shoe_is_computed_not_kept(rows_dir: Path) -> None:
    """Effects of removal and index charts analyse shoes short of whole decks: nothing of theirs
    is written (a 15 MB file each, pushing a table's own shoe off the disk)."""
    whole, pr = _prefetched(1)
    assert len(list(rows_dir.glob("dealer_rows_*.npy"))) == 1
    short = whole.full.copy()
    short[4] -= 1
    part = DealerCache(short, pr.h17)
    part.prefetch(pr)
    assert len(part.keys) > 0
    assert len(list(rows_dir.glob("dealer_rows_*.npy"))) == 1


@pytest.mark.parametrize("damage", ["truncate", "garbage", "other_ident", "unsorted_keys"])
def test_a_damaged_file_is_not_used(rows_dir: Path, damage: str) -> None:
    good, pr = _prefetched(1)
    (path,) = rows_dir.glob("dealer_rows_*.npy")
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x93NUMPY" + bytes(range(256)) * 4)
    else:
        ident = str(np.load(path))
        keys = good.keys.copy()
        if damage == "other_ident":
            ident = "0" * len(ident)
        else:
            keys[[0, 1]] = keys[[1, 0]]
        with path.open("wb") as f:
            np.save(f, np.array(ident))
            np.save(f, keys)
            np.save(f, good.by_up)
    again = DealerCache(good.full, pr.h17)
    assert not again._load_rows(_rows_ident(good.full, pr.h17, pr.max_hands, pr.resplit_aces))
    again.prefetch(pr)  # computed afresh (and written again)
    assert np.array_equal(again.keys, good.keys)
    assert np.array_equal(again.by_up, good.by_up)


def test_a_folder_that_cannot_be_written_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(dealer_rows, "_TRIE_DIR", blocker / "sub")  # mkdir fails: not a directory
    dc, _ = _prefetched(1)
    assert len(dc.keys) > 1000
