"""``pontoon serve`` refuses a bad host or port with one line and exit status 2."""

from __future__ import annotations

import socket

import pytest

from pontoon.cli.app import run


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--port", "0"], "--port 0: a port is a whole number from 1 to 65535"),
        (["--port", "70000"], "--port 70000"),
        (["--host", "not a host!"], "--host 'not a host!'"),
        (["--db", "sqlite:///x.db", "--memory"], "--db and --memory exclude each other"),
    ],
)
def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    assert run(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and err.startswith("error: ")


def test_port_in_use_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert run(["serve", "--port", str(port)]) == 2
    assert "cannot listen on 127.0.0.1:" in capsys.readouterr().err


def test_bad_db_url_exit_2(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert run(["serve", "--port", str(port), "--db", "nosuch://nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "database URL" in err
    for bad in (
        f"sqlite:///{tmp_path}",
        "postgresql://nobody@/nodb?host=/nonexistent",
    ):  # a directory; no server
        assert run(["serve", "--port", str(port), "--db", bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: cannot open the history database") and err.count("\n") == 1
