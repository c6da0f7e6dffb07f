"""Hypothesis: recovery from any stop point of random legal play equals the uninterrupted table, and
hostile command-line input to the history commands is one line and exit 2, never a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.cli.app import run
from pontoon.history import open_store, recover
from pontoon.history.audit import audit
from tests.history.conftest import dump
from tests.history.driver import BRITISH, CASINO, finish, new_table, play


class _Stop(Exception):
    pass


@settings(max_examples=8, deadline=None)
@given(
    preset=st.sampled_from(CASINO + BRITISH),
    seed=st.integers(0, 2**32),
    frac=st.floats(0.02, 0.98),
    fair=st.booleans(),
)
def test_recovery_from_any_stop_point(preset: str, seed: int, frac: float, fair: bool) -> None:
    """``fair``: a FairShuffler table in test mode with a short casino shoe (commitments and reveals
    must come out equal too)."""
    rounds = 4 if not fair else 8
    with tempfile.TemporaryDirectory() as d:
        ref = open_store(f"sqlite:///{d}/ref.sqlite")
        t, rec = new_table(ref, preset, seed, fair=fair, short_shoe=fair)
        play(t, seed, rounds)
        finish(t, rec)
        want = dump(ref)
        stop = max(1, int(len(want["events"]) * frac))  # type: ignore[arg-type]
        s = open_store(f"sqlite:///{d}/k.sqlite")
        t, rec = new_table(s, preset, seed, fair=fair, short_shoe=fair)
        n = [0]

        def count(_r: object) -> None:
            n[0] += 1
            if n[0] >= stop:
                raise _Stop

        t.subscribe(count)
        try:
            play(t, seed, rounds)
        except _Stop:
            pass
        rec.detach()
        got = recover(s)
        if got:
            play(got[0].table, seed, rounds)
            finish(got[0].table, got[0].recorder)
        assert dump(s) == want
        audit(s)
        s.close()
        ref.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    word=st.text(min_size=1, max_size=40).filter(lambda w: not w.startswith("-")), url=st.text(max_size=60)
)
def test_hostile_ids_and_urls(word: str, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()  # each example reads its own output
    for args in (["history", word, "--db", url or "x"], ["replay", word, "--db", url or "x"]):
        rc = run(args)
        err = capsys.readouterr().err
        assert rc == 2, (args, err)
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_hostile_id_on_a_real_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    open_store(url).close()
    for word in ("0", "1e3", "99999999999999999999999", "٣", "1; DROP TABLE events"):
        assert run(["replay", word, "--db", url]) == 2
        assert capsys.readouterr().err.count("\n") == 1
