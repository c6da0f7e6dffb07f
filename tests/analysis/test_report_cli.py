"""``pontoon report`` (issue 23 item 4): formats, side by side, errors; the HTML in Chromium and the
PDF through pdftoppm, with screenshots in tests/artifacts/."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pontoon.cli.app import run

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("report")
    out = {}
    for fmt in ("json", "html", "pdf", "md"):
        p = d / f"mbs.{fmt}"
        assert run(["report", "--rules", "mbs", "--format", fmt, "--out", str(p)]) == 0
        out[fmt] = p
    return out


def test_json_has_every_part(reports: dict[str, Path]) -> None:
    data = json.loads(reports["json"].read_text())
    (rep,) = data["tables"]
    for strat in ("basic", "optimal"):
        d = rep["distribution"][strat]
        assert abs(sum(o["probability"] for o in d["outcomes"]) - 1) < 1e-12
        assert abs(d["mean"] + rep["house_edge"][strat]) < 1e-12
        assert d["lines"]["pontoon"] > 0.04
    assert set(rep["side_wagers"]) >= {"insurance", "super_bonus"}
    assert rep["main_wager"]["largest_payout"] > rep["rules"]["table_max"]
    assert rep["risk"]["n0"] > 10_000 and rep["risk"]["risk_of_ruin"] == 1.0
    assert any("outcome distribution" in a for a in rep["method"]["approximations"])


def test_md_and_side_by_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run(
            ["report", "-r", "mbs", "-r", "blackjack", "--format", "md", "--bankroll", "500", "--goal", "100"]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert text.startswith("# Math report: ")
    header = text.splitlines()[2]
    assert "Marina Bay Sands" in header and "lackjack" in header
    assert "data:image/svg+xml;base64," in text


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--format", "docx"], "--format 'docx'"),
        (["--format", "pdf"], "--out FILE.pdf"),
        (["--rounds", "0"], "--rounds 0"),
        (["--bankroll", "-5"], "--bankroll"),
        (["--out", "/nonexistent/dir/x.html"], "does not exist"),
        (["--bet", "1e999999"], "too large"),
        (["--bet", "5"], "the main wager is 10 to 10000"),
        (["--set", "decks=0"], "decks=0"),
        (["--rules", "british"], "pontoon report covers the casino presets"),
        (["--goal", "0"], "--goal"),
    ],
)
def test_bad_input_is_one_line(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["report", "--rules", "mbs", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and needle in err[0]


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (make sysdeps)")
def test_html_renders_in_chromium(reports: dict[str, Path]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page: Any = b.new_page()
            page.route(
                "**/*",
                lambda route: (
                    route.abort() if not route.request.url.startswith("file:") else route.continue_()
                ),
            )
            page.goto(reports["html"].as_uri())
            imgs = page.eval_on_selector_all("img", "els => els.map(e => [e.complete, e.naturalWidth])")
            assert len(imgs) == 3 and all(ok and w > 100 for ok, w in imgs)
            assert "Marina Bay Sands" in page.inner_text("h1")
            assert page.locator("table").count() >= 8
            page.screenshot(path=str(ARTIFACTS / "report-mbs.png"), full_page=True)
        finally:
            b.close()
    assert (ARTIFACTS / "report-mbs.png").stat().st_size > 10_000


@pytest.mark.skipif(
    shutil.which("pdftoppm") is None, reason="pdftoppm (Debian poppler-utils) is not installed (make sysdeps)"
)
def test_pdf_renders_through_pdftoppm(reports: dict[str, Path], tmp_path: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "50", "-f", "1", "-l", "3", str(reports["pdf"]), str(tmp_path / "page")],
        check=True,
        timeout=120,
    )
    pages = sorted(tmp_path.glob("page*.png"))
    assert len(pages) == 3 and all(p.stat().st_size > 2_000 for p in pages)
    shutil.copy(pages[1], ARTIFACTS / "report-mbs-pdf-page2.png")


def test_pdf_is_a_pdf(reports: dict[str, Path]) -> None:
    data = reports["pdf"].read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and len(data) > 10_000
    # the summary, the strategy chart, the two plots and the detail tables: vectors and text
    assert len(re.findall(rb"/Type /Page\b", data)) >= 5


@pytest.mark.skipif(
    shutil.which("pdftotext") is None,
    reason="pdftotext (Debian poppler-utils) is not installed (make sysdeps)",
)
def test_pdf_text_has_the_figures(reports: dict[str, Path]) -> None:
    rep = json.loads(reports["json"].read_text())["tables"][0]
    text = subprocess.run(
        ["pdftotext", "-layout", str(reports["pdf"]), "-"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "Marina Bay Sands" in text
    assert f"{rep['house_edge']['basic'] * 100:.4f}%" in text  # the summary table
    assert "hard 16" in text and "pair 8-8" in text  # the strategy chart's rows, drawn as text
    assert "outcome of the main wager per round" in text and "range of results" in text  # the plots
    assert "Net outcome per round (basic strategy)" in text


def test_html_charts_are_svg_of_the_report(reports: dict[str, Path]) -> None:
    """The three charts are well-formed SVG drawn from the report: a cell per strategy entry, a bar
    per outcome and strategy, three bands and the median over the risk's rounds."""
    import base64
    import xml.etree.ElementTree as ET

    from pontoon.analysis.render import chart_rows

    rep = json.loads(reports["json"].read_text())["tables"][0]
    found = re.findall(
        r"<img alt='(\w+)' src='data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)'>", reports["html"].read_text()
    )
    assert [name for name, _ in found] == ["strategy", "distribution", "risk"]
    ns = "{http://www.w3.org/2000/svg}"
    svgs = {name: ET.fromstring(base64.b64decode(data)) for name, data in found}
    cells = sum(len(c) for _n, c in chart_rows(rep["strategy"]))
    assert len(svgs["strategy"].findall(f"{ns}rect")) == cells + 1  # and the white background
    texts = [t.text for t in svgs["strategy"].iter(f"{ns}text")]
    assert "pair 8-8" in texts and "hard 16" in texts
    bars = sum(1 for d in rep["distribution"].values() for o in d["outcomes"] if o["probability"] > 0)
    legend = len(rep["distribution"])  # a swatch per strategy, and the legend's box
    assert len(svgs["distribution"].findall(f"{ns}rect")) == 1 + bars + 1 + legend
    assert len(svgs["risk"].findall(f"{ns}polygon")) == 3
    (median,) = svgs["risk"].findall(f"{ns}polyline")
    assert len(median.get("points", "").split()) == len(rep["risk"]["bands"]) + 1
