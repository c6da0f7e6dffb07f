"""bench/bench_server.py's tail tools: the latency by kind of message and by moment (``--by-kind``), the
sockets opened before the play (``--connect first``) and the latency stamped in the read callback
(``StampedRaw``), the player's own queue reported beside it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from bench_server import StampedRaw, kind_of, report_kinds  # noqa: E402

from tests.web.test_bench_server_smoke import bench_server  # noqa: E402


def test_kind_of_tells_the_message_by_its_answer() -> None:
    betting = {"phase": "betting", "round_no": 3}
    dealt = {"phase": "play", "round_no": 3}
    assert kind_of("bet", betting, 2) == "bet"  # answered with betting still open: the first wager
    assert kind_of("bet", dealt, 2) == "bet_deal"  # its answer is the dealt round
    assert kind_of("hit", dealt, 2) == "hit"  # round 3 in play: 2 completed, as when it was sent
    assert kind_of("stand", betting, 2) == "stand_end"  # betting for round 3: round 3 is over (3 > 2)
    assert kind_of("hit", {"phase": "betting", "round_no": 4}, 2) == "hit_end"


def test_report_kinds_names_the_slowest_and_when(capsys: pytest.CaptureFixture[str]) -> None:
    """200 actions: 199 quick hits spread over the play (10.00 to 11.98 ms, the slowest sent last) and one
    slow bet in its first tenth. The cut is the row's p99 (the value at index 198: the slowest hit), so
    the slowest 1% is that hit and the bet: one in the first tenth, one in the last."""
    kinds = [("hit", 0.1 + 0.9 * i / 199, 0.010 + 0.00001 * i) for i in range(199)]
    kinds.append(("bet_deal", 0.05, 0.5))
    report_kinds(kinds, t0=0.0, wall=1.0, opened=[])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("  latency ms by kind: hit 199: p50 11.0 ")
    assert "bet_deal 1: p50 500.0 p99 500.0 max 500.0 (1 in the slowest 1%)" in out[0]
    assert out[1].startswith(
        "  the slowest 1% (>= 12.0 ms, 2) by the tenth of the play they were sent in: 1 0 0 0 0 0 0 0 0 1; "
    )
    assert out[1].endswith("the play's first tenth 1 actions, p99 of the rest 12.0 ms")


def test_stamped_raw_notes_each_frame_as_it_is_read() -> None:
    """Two frames in one read, a third in a later one: each comes out with the time of its own read."""

    def frame(text: bytes) -> bytes:
        return bytes((0x81, len(text))) + text

    async def main() -> list[tuple[bytes, float]]:
        ws = StampedRaw()
        ws.data_received(b"HTTP/1.1 101 Switching Protocols\r\n\r\n" + frame(b"one") + frame(b"two"))
        await asyncio.sleep(0.01)
        ws.data_received(frame(b"three"))
        return [await ws.recv_stamped() for _ in range(3)]

    got = asyncio.run(main())
    assert [x[0] for x in got] == [b"one", b"two", b"three"]
    assert got[0][1] == got[1][1] and got[2][1] - got[1][1] >= 0.009


def test_bench_server_by_kind_with_the_sockets_open_first() -> None:
    lines = bench_server(
        "--tables", "2", "--rounds", "2", "--probe", "off", "--by-kind", "--connect", "first"
    )
    row = lines[-1].split()
    assert row[0] == "2" and row[1] == "4" and row[8] == "0"  # tables, clients, errors
    assert any(x == "  the 4 sockets opened before the play in " + x.split()[-2] + " ms" for x in lines), (
        lines
    )
    by = next(x for x in lines if x.startswith("  latency ms by kind: "))
    counts = [int(p.split(":")[0].split()[-1]) for p in by[len("  latency ms by kind: ") :].split("; ")]
    assert sum(counts) == int(row[7])  # every action of the row, each of one kind
    assert "bet_deal" in by and ("stand" in by or "stand_end" in by)
    assert any(x.startswith("  latency ms to the player's task ") for x in lines), lines
