"""Issue 29 items 5 to 7: every reader of the command line is bounded, the database's refusals are
named, and options that did not apply are refused (README "Limits").

Real processes where the behaviour is a process's (an endless standard input, a closed one, the
environment, a full or read-only database); the command line's own checks in this process
(``pontoon.cli.app.run``), which answers exactly as the process does.
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pontoon.cli.app import run
from pontoon.cli.limits import MAX_LINE
from pontoon.history import open_store
from tests.history.driver import new_table, play

ROOT = Path(__file__).resolve().parent.parent
PONTOON = [sys.executable, "-m", "pontoon.cli.app"]
MAX_SEED = 2**128 - 1
LONG_LINE = f"a line of over {MAX_LINE} characters"


def _env(**more: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="120", **more)
    env.pop("PONTOON_CRASH_AT", None)
    return env


def _one_error(p: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    """Exit ``code`` and exactly one line on standard error, ``error: ...`` holding each needle."""
    assert p.returncode == code, (p.returncode, p.stdout[-500:], p.stderr[-2000:])
    assert p.stderr.startswith("error: ") and p.stderr.count("\n") == 1, p.stderr[-2000:]
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr
    for n in needles:
        assert n in p.stderr, p.stderr


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``pontoon ARGS`` in this process, with an empty standard input (a command that should have
    refused its options and plays instead meets the end of input at once)."""
    capsys.readouterr()
    stdin, sys.stdin = sys.stdin, io.StringIO("")
    try:
        code = run(list(args))
    finally:
        sys.stdin = stdin
    err = capsys.readouterr().err
    return code, err


def _refused(capsys: pytest.CaptureFixture[str], *args: str, needle: str) -> None:
    code, err = cli(capsys, *args)
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and needle in err, err


@pytest.fixture(scope="module")
def busy_port() -> Iterator[str]:
    """A port in use on 127.0.0.1: a ``serve`` that got past its checks is refused there at once
    (``cannot listen``) instead of serving (the checks under test come before it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield str(sock.getsockname()[1])


# ------------------------------------------------------------------------------------------------
# item 5: bounded readers


@pytest.mark.parametrize(
    "args",
    [
        ("play", "--no-history"),
        ("play", "--rules", "british", "--no-history"),
        ("train", "--no-history"),
    ],
    ids=lambda a: "-".join(a[:3]),
)
def test_an_endless_line_on_standard_input_ends_with_one_line(args: tuple[str, ...]) -> None:
    """``< /dev/zero``: a line without end (it was read on: 3 GB in 3 s, until memory ran out)."""
    with open("/dev/zero", "rb") as zero:
        p = subprocess.run(
            [*PONTOON, *args, "--seed", "5"],
            stdin=zero,
            capture_output=True,
            text=True,
            timeout=120,  # bounded: it ends at once (on the old code it reads until this kills it)
            env=_env(),
        )
    _one_error(p, 2, "standard input: " + LONG_LINE)


def test_a_20_mb_answer_is_refused_and_the_round_played_out_for_the_player(tmp_path: Path) -> None:
    """A 20 MB answer took over a minute (the time grew with the square of the line); now the
    reader stops at its bound, the open round is finished by 004 5.3 and the summary printed."""
    answer = b"\n" + b"h" * 20_000_000 + b"\ns\n"  # deal, then a 20 MB answer in the round
    p = subprocess.run(
        [*PONTOON, "play", "--seed", "3", "--db", f"sqlite:///{tmp_path / 'h.sqlite'}"],
        input=answer,
        capture_output=True,
        timeout=120,
        env=_env(),
    )
    out, err = p.stdout.decode(), p.stderr.decode()
    _one_error(subprocess.CompletedProcess(p.args, p.returncode, out, err), 2, LONG_LINE)
    assert "round 1 unfinished: played out for you by the rules (004 5.3)" in out
    assert "played 1 rounds" in out
    code = run(["history", "--audit", "--db", f"sqlite:///{tmp_path / 'h.sqlite'}"])
    assert code == 0  # the round was booked whole


def test_an_answer_that_is_not_utf8_ends_with_one_line() -> None:
    """Where standard input is decoded strictly, bytes that are not UTF-8 were an internal error
    (``UnicodeDecodeError``)."""
    p = subprocess.run(
        [*PONTOON, "play", "--no-history", "--seed", "3"],
        input=b"\n\xff\xfe\n",
        capture_output=True,
        timeout=120,
        env=_env(PYTHONIOENCODING="utf-8:strict"),
    )
    err = p.stderr.decode()
    _one_error(
        subprocess.CompletedProcess(p.args, p.returncode, "", err), 2, "standard input is not UTF-8 text"
    )


def test_answers_up_to_the_bound_are_read_as_answers() -> None:
    """A line of exactly ``MAX_LINE`` characters is an answer (not a choice here, asked again)."""
    p = subprocess.run(
        [*PONTOON, "play", "--no-history", "--seed", "3", "--rounds", "1"],
        input="\n" + "z" * MAX_LINE + "\ns\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    assert p.returncode == 0, p.stderr
    assert "is not a choice here" in p.stdout and "played 1 rounds" in p.stdout


def test_cpuinfo_named_by_the_environment_is_read_up_to_a_bound(tmp_path: Path) -> None:
    """``PONTOON_AOT_CPUINFO=/dev/zero`` was read without end; a device, a pipe or a file with an
    endless line now reads as flags unknown (the JIT kernels serve), a real one as its flags."""
    probe = "from pontoon.analysis.aot import cpu_flags; f = cpu_flags(); print(sorted(f) if f else f)"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: opening it must not wait
    huge = tmp_path / "huge"
    with huge.open("wb") as f:
        f.write(b"flags\t: " + b"x" * (1 << 20) + b"\n")
    real = tmp_path / "cpuinfo"
    real.write_text("processor\t: 0\nmodel name\t: test\nflags\t\t: fpu sse2 avx2\n\nprocessor\t: 1\n")
    for where, want in (
        ("/dev/zero", "None"),
        (fifo, "None"),
        (huge, "None"),
        (real, "['avx2', 'fpu', 'sse2']"),
    ):
        p = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            timeout=60,
            env=_env(PONTOON_AOT_CPUINFO=str(where)),
        )
        assert p.returncode == 0 and p.stdout.strip() == want, (where, p.stdout, p.stderr[-500:])


# ------------------------------------------------------------------------------------------------
# item 6: named errors, not internal ones


def _closed_stdin() -> None:
    os.close(0)


@pytest.mark.parametrize(
    ("args", "needle"),
    [(("verify", "-"), "standard input is closed"), (("scenario", "-"), "standard input is closed")],
    ids=["verify", "scenario"],
)
def test_standard_input_closed(args: tuple[str, ...], needle: str) -> None:
    p = subprocess.run(
        [*PONTOON, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        preexec_fn=_closed_stdin,  # the child starts with fd 0 closed: ``0<&-``
    )
    _one_error(p, 2, needle)


_FULL_DISK = """
import os, sys
from sqlalchemy import event
from sqlalchemy.engine import Engine

@event.listens_for(Engine, "connect")
def _cap(dbapi_conn, _rec):  # the file may grow to PAGES pages: then SQLite says "database or disk is full"
    dbapi_conn.execute("PRAGMA max_page_count=" + os.environ["PAGES"])

from pontoon.cli.app import main
sys.argv[0] = "pontoon"
main()
"""


def test_a_full_disk_during_play_is_one_line_exit_1(tmp_path: Path) -> None:
    """The store's disk fills in the middle of a session: one line worded as stdout's full disk
    (``error: a write failed: ...``), exit 1; it was ``internal error: OperationalError``. What was
    committed stays whole (the audit passes)."""
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    s = open_store(url)
    with s.engine.connect() as conn:
        pages = int(conn.exec_driver_sql("PRAGMA page_count").scalar() or 0)
    s.close()
    script = tmp_path / "full.py"
    script.write_text(_FULL_DISK)
    p = subprocess.run(
        [sys.executable, str(script), "play", "--db", url, "--seed", "1"],
        input="\ns\n" * 400,
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(PAGES=str(pages + 4)),
    )
    _one_error(p, 1, "error: a write failed: the history database: database or disk is full")
    assert run(["history", "--audit", "--db", url]) == 0


def _make_unwritable(path: Path) -> bool:
    """Make ``path`` a file this process cannot write: immutable as root (chattr +i), read-only
    (with its folder) otherwise; False where neither holds here."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            return False
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            return False
    else:
        path.chmod(0o444)
        path.parent.chmod(0o555)
    try:
        with path.open("ab"):
            pass
    except OSError:
        return True
    return False


def _undo_unwritable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    else:
        path.parent.chmod(0o755)
        path.chmod(0o644)


@pytest.fixture
def unwritable_store(tmp_path: Path):  # type: ignore[no-untyped-def]
    db = tmp_path / "ro" / "h.sqlite"
    db.parent.mkdir()
    open_store(f"sqlite:///{db}").close()
    if not _make_unwritable(db):
        _undo_unwritable(db)
        pytest.skip("cannot make a file unwritable here")
    yield f"sqlite:///{db}"
    _undo_unwritable(db)


def test_train_refuses_an_unwritable_store_before_the_drill(unwritable_store: str) -> None:
    """``train`` printed the whole drill's summary and then failed to save it (internal error)."""
    p = subprocess.run(
        [*PONTOON, "train", "--db", unwritable_store, "--seed", "1", "--hands", "1"],
        input="s\ns\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    _one_error(p, 2, "the history database cannot be written", "readonly")
    assert "session:" not in p.stdout and "hand 1" not in p.stdout  # refused before any work


def test_play_on_an_unwritable_store_is_one_line(unwritable_store: str) -> None:
    p = subprocess.run(
        [*PONTOON, "play", "--db", unwritable_store, "--seed", "1", "--rounds", "1"],
        input="\ns\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    _one_error(p, 2, "the history database cannot be written")


@pytest.mark.parametrize(
    ("db", "needle"),
    [
        ("sqlite:///{file}/h.sqlite", "is a file, not a folder"),
        ("sqlite:///{file}/deeper/h.sqlite", "is a file, not a folder"),
        ("sqlite:////proc/no-such-folder/h.sqlite", "cannot make the folder '/proc/no-such-folder'"),
        ("sqlite:///{tmp}/" + "d" * 5000 + ".sqlite", "characters: at most 4096"),
        ("sqlite:///{tmp}/" + "d/" * 2400 + "h.sqlite", "characters: at most 4096"),
        ("sqlite:///{tmp}/" + "n" * 300 + ".sqlite", "a file or folder name of 307 bytes"),
        ("sqlite:///{tmp}", "it is a folder"),
        ("sqlite:///{tmp}/a\nb.sqlite", "printable text"),
    ],
    ids=[
        "under-a-file",
        "deeper-under-a-file",
        "proc",
        "5000-chars",
        "5000-deep",
        "long-name",
        "folder",
        "newline",
    ],
)
def test_a_db_path_that_cannot_hold_a_database_is_named(
    db: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if db.startswith("sqlite:////proc") and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    f = tmp_path / "plain.txt"
    f.write_text("x")
    url = db.format(file=f, tmp=tmp_path)
    for args in (("play", "--db", url, "--rounds", "1"), ("train", "--db", url, "--hands", "1")):
        _refused(capsys, *args, needle=needle)
    _refused(capsys, "history", "--db", url, needle="")  # a reader: refused (no database there)


def test_pontoon_db_from_the_environment_is_checked_as_db(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "plain.txt"
    f.write_text("x")
    monkeypatch.setenv("PONTOON_DB", f"sqlite:///{f}/h.sqlite")
    _refused(capsys, "history", needle="PONTOON_DB: ")
    _refused(capsys, "play", "--rounds", "1", needle="PONTOON_DB: ")


@pytest.fixture(scope="module")
def two_tables(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('bounds') / 'h.sqlite'}"
    s = open_store(url)
    for preset, seed in (("mbs", 1), ("mbs", 2)):
        t, rec = new_table(s, preset, seed)
        play(t, seed, 2)
        rec.close()
    s.close()
    return url


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("history", "9" * 10_000), "(10000 characters): a round is given by its id"),
        (("replay", "9" * 10_000), "(10000 characters): a round is given by its id"),
        (("history", "--table", str(2**70)), "--table 1180591620717411303424: a table id is"),
        (("history", "--table", "0"), "--table 0: a table id is"),
    ],
    ids=["round-10000-digits", "replay-10000-digits", "table-2-70", "table-0"],
)
def test_history_ids_past_the_store_are_named(
    args: tuple[str, ...], needle: str, two_tables: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(capsys, *args, "--db", two_tables, needle=needle)


@pytest.mark.parametrize(
    "args",
    [
        ("train", "--no-history", "--seed", "-1"),
        ("rl", "evaluate", "basic", "--rounds", "10", "--no-exact", "--seed", "-1"),
        ("play", "--no-history", "--seed", "-1"),
        ("play", "--no-history", "--seed", str(2**128)),
        ("play", "--rules", "british", "--no-history", "--seed", str(2**128)),
        ("train", "--no-history", "--seed", str(2**128)),
        ("rl", "evaluate", "basic", "--rounds", "10", "--no-exact", "--seed", str(2**128)),
    ],
    ids=["train-neg", "rl-neg", "play-neg", "play-2-128", "british-2-128", "train-2-128", "rl-2-128"],
)
def test_seeds_outside_0_to_2_128_minus_1_are_refused(
    args: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(capsys, *args, needle="a seed is a whole number from 0 to 2**128-1")


def test_a_non_utf8_secret_is_named(busy_port: str) -> None:
    p = subprocess.run(
        [*PONTOON, "serve", "--port", busy_port],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(PONTOON_SECRET="\udcff\udcfe" * 16),  # bytes 0xff 0xfe: not UTF-8
    )
    _one_error(p, 2, "PONTOON_SECRET is not UTF-8 text")


# ------------------------------------------------------------------------------------------------
# item 7: what was silently accepted


def test_history_options_that_did_not_apply_are_refused(
    two_tables: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(capsys, "history", "--db", "", needle="--db: give a database URL")
    _refused(capsys, "replay", "1", "--db", "", needle="--db: give a database URL")
    _refused(capsys, "verify", "1", "--db", " ", needle="--db: give a database URL")
    _refused(
        capsys, "history", "1", "--table", "2", "--db", two_tables, needle="round 1 was played at table 1"
    )
    _refused(
        capsys, "history", "abc", "--audit", "--db", two_tables, needle="--audit checks the whole database"
    )
    _refused(
        capsys,
        "history",
        "--audit",
        "--drills",
        "--db",
        two_tables,
        needle="leave out ROUND, --table and --drills",
    )
    _refused(capsys, "history", "--audit", "--table", "1", "--db", two_tables, needle="--audit checks")
    _refused(capsys, "history", "abc", "--db", two_tables, needle="round 'abc'")
    # what is accepted still is
    code, _ = cli(capsys, "history", "3", "--table", "2", "--db", two_tables)
    assert code == 0
    code, _ = cli(capsys, "history", "--audit", "--db", two_tables)
    assert code == 0


@pytest.mark.parametrize("command", [("play",), ("play", "--rules", "british"), ("train",)], ids=str)
def test_no_history_with_a_db_is_refused(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--no-history --db garbage`` played on, the URL ignored."""
    _refused(capsys, *command, "--no-history", "--db", "garbage", needle="--no-history records nothing")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--advertise", "javascript:alert(1)", "--lease-ttl", "5"), "give an http:// or https:// URL"),
        (
            ("--advertise", "http://a.example\r\nSet-Cookie: x=1", "--lease-ttl", "5"),
            "no spaces or line breaks",
        ),
        (
            ("--advertise", "http://" + "a" * 5000, "--lease-ttl", "5"),
            "an address of 5007 characters: at most 512",
        ),
        (("--advertise", "http://10.0.0.5:8001"), "it needs --lease-ttl"),
        (("--advertise", "http://:8001", "--lease-ttl", "5"), "with a host"),
        (("--advertise", "http://10.0.0.5:99999", "--lease-ttl", "5"), "give an http://"),
        (("--advertise", "http://u@10.0.0.5:8001/?q#f", "--lease-ttl", "5"), "the address alone"),
    ],
    ids=["javascript", "crlf", "5000", "no-lease", "no-host", "bad-port", "query"],
)
def test_serve_advertise_is_an_http_address_with_leases(
    args: tuple[str, ...], needle: str, busy_port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(capsys, "serve", "--port", busy_port, *args, needle=needle)


@pytest.mark.parametrize(
    ("secret", "needle"),
    [
        ("x", "PONTOON_SECRET has 1 bytes: give 16 to 1024"),
        ("", "has 0 bytes"),
        ("s" * 1025, "has 1025 bytes"),
    ],
    ids=["1-byte", "empty", "1025-bytes"],
)
def test_serve_secret_of_the_wrong_size_is_refused(
    secret: str,
    needle: str,
    busy_port: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PONTOON_SECRET", secret)
    _refused(capsys, "serve", "--port", busy_port, "--memory", needle=needle)


def test_the_serve_checks_accept_what_the_docs_show(monkeypatch: pytest.MonkeyPatch) -> None:
    from pontoon.cli.serve import _check_advertise, _secret

    for address in ("http://10.0.0.5:8001", "https://tables.example/pontoon", "http://[::1]:8000"):
        _check_advertise(address, 15.0)
    _check_advertise("", 0.0)
    monkeypatch.delenv("PONTOON_SECRET", raising=False)
    assert _secret() is None
    monkeypatch.setenv("PONTOON_SECRET", "kill-test-secret")  # 16 bytes, as tests/web/test_serve_kill.py
    assert _secret() == "kill-test-secret"


def test_the_largest_seed_plays_records_and_verifies(tmp_path: Path) -> None:
    """The README's seeds, 0 to 2**128-1, in every command that takes one (the code took 2**63-1)."""
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    seed = str(MAX_SEED)
    p = subprocess.run(
        [*PONTOON, "play", "--db", db, "--seed", seed, "--rounds", "1"],
        input="\ns\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    assert p.returncode == 0 and "played 1 rounds" in p.stdout, p.stderr
    assert f"client seed 'test-{seed}'" in p.stdout  # the fair shuffle's test mode from the seed
    v = subprocess.run(
        [*PONTOON, "verify", "1", "--db", db], capture_output=True, text=True, timeout=120, env=_env()
    )
    assert v.returncode == 0 and v.stdout.strip().endswith("verified"), v.stdout + v.stderr
    for args in (
        ("train", "--no-history", "--hands", "1"),
        ("rl", "evaluate", "random", "--rounds", "20", "--no-exact"),
    ):
        q = subprocess.run(
            [*PONTOON, *args, "--seed", seed],
            input="s\n",
            capture_output=True,
            text=True,
            timeout=120,
            env=_env(),
        )
        assert q.returncode == 0, q.stderr
