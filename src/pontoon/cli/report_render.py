"""Writing math reports (``analysis.mathreport``) as HTML, PDF, Markdown or JSON, with the charts
(strategy, outcome distribution, risk bands, ``report_charts``) as vector pictures: HTML and
Markdown carry them inline (base64 SVG: one file, works offline), PDF draws them on its pages
(fpdf2, the tables in its core fonts).
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from pontoon.cli.report_charts import CHARTS, draw_pdf, to_svg
from pontoon.money import dumps


def title(rep: dict[str, Any]) -> str:
    r = rep["rules"]
    return f"{r.get('name') or r['preset']} ({r['decks']} decks)"


def _pct(x: float) -> str:
    return f"{x * 100:.4f}%"


def summary_rows(reps: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """The side-by-side figures: (name, one cell per table)."""

    def row(name: str, f: Any) -> tuple[str, list[str]]:
        return name, [f(r) for r in reps]

    return [
        row("house edge, basic", lambda r: _pct(r["house_edge"]["basic"])),
        row("house edge, optimal", lambda r: _pct(r["house_edge"]["optimal"])),
        row("element of risk, basic", lambda r: _pct(r["main_wager"]["element_of_risk"]["basic"])),
        row("element of risk, optimal", lambda r: _pct(r["main_wager"]["element_of_risk"]["optimal"])),
        row("SD per round, basic", lambda r: f"{r['distribution']['basic']['sd']:.4f}"),
        row("SD per round, optimal", lambda r: f"{r['distribution']['optimal']['sd']:.4f}"),
        row("skewness, basic", lambda r: f"{r['distribution']['basic']['skewness']:.3f}"),
        row("average total wagered", lambda r: f"{r['distribution']['basic']['average_wagered']:.4f}"),
        row(
            "win / push / loss",
            lambda r: "{win:.4f} / {push:.4f} / {loss:.4f}".format(**r["distribution"]["basic"]),
        ),
        row("largest payout per box", lambda r: str(r["main_wager"]["largest_payout"])),
        row("max exposure per round", lambda r: str(r["main_wager"]["max_exposure_per_round"])),
        row("N0 (rounds)", lambda r: f"{r['risk']['n0']:,.0f}" if r["risk"]["n0"] else "-"),
        row("DI / SCORE", lambda r: f"{r['risk']['di']:.2f} / {r['risk']['score']:.1f}"),
        row("risk of ruin", lambda r: f"{r['risk']['risk_of_ruin']:.4f}"),
        row(
            "trip ruin",
            lambda r: (
                f"{r['risk']['trip_ruin']:.4f} in {r['risk']['trip_rounds']} rounds, bankroll {r['risk']['bankroll']}"
            ),
        ),
        row(
            "side wagers' edges",
            lambda r: "; ".join(
                f"{k} {_pct(v['house_edge'])}" for k, v in r["side_wagers"].items() if "house_edge" in v
            ),
        ),
    ]


def _detail_tables(rep: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(caption, header, rows) of one table's details."""
    out = []
    for name, d in rep["distribution"].items():
        rows = [[f"{o['net']:+g}", f"{o['probability']:.10f}"] for o in d["outcomes"]]
        out.append((f"Net outcome per round ({name} strategy)", ["net", "probability"], rows))
        lines = [[k, f"{v:.8f}", f"1 in {1 / v:,.0f}"] for k, v in d["lines"].items()]
        out.append((f"Pay lines hit per round ({name})", ["line", "frequency", "one in"], lines))
    for name, t in rep["side_wagers"].items():
        if "lines" in t:
            rows = [
                [
                    x["line"],
                    f"{x['odds']:g} to 1",
                    f"{x['combinations']:,.6g}",
                    f"{x['probability']:.8f}",
                    f"{x['return']:+.6f}",
                ]
                for x in t["lines"]
            ]
            rows.append(
                ["loses", "-", "", f"{t['loses']['probability']:.8f}", f"{t['loses']['return']:+.6f}"]
            )
            rows.append(
                [
                    "total",
                    f"edge {_pct(t['house_edge'])}",
                    f"{t['total_combinations']:,}",
                    f"hit {t['hit_frequency']:.6f}",
                    f"SD {t['sd']:.4f}",
                ]
            )
            out.append(
                (
                    f"Side wager: {name} (largest payout {t['largest_payout']}, exposure per round {t['max_exposure_per_round']})",
                    ["line", "pays", "combinations", "probability", "return"],
                    rows,
                )
            )
        else:
            rows = [[str(x["min_wager"]), str(x["amount"])] for x in t["tiers"]]
            one_in = f"1 in {t['one_in']:,.0f}" if t["one_in"] else "never"
            out.append(
                (
                    f"Super Bonus (per round {t['probability_per_round']:.3e}, {one_in}; exposure {t['max_exposure_per_round']})",
                    ["wager from", "pays"],
                    rows,
                )
            )
    b = rep["risk"]["bands"]
    keys = [k for k in b[0] if k != "rounds"]
    out.append(
        (
            "Result after N rounds (units), percentiles",
            ["rounds", *keys],
            [[str(x["rounds"]), *(f"{x[k]:.1f}" for k in keys)] for x in b],
        )
    )
    return out


def to_json(reps: list[dict[str, Any]]) -> str:
    return dumps({"tables": reps}, indent=2)


CSS = (
    "body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}th{background:#eef}"
    "td:first-child{text-align:left}img{max-width:100%}"
)


def _html_table(header: list[str], rows: list[list[str]], caption: str = "") -> str:
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table>{cap}<tr>{head}</tr>{body}</table>"


def _images(rep: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, base64 SVG) of each chart."""
    name = title(rep)
    return [
        (key, base64.b64encode(to_svg(chart(rep, name)).encode("utf-8")).decode("ascii"))
        for key, chart in CHARTS
    ]


def to_html(reps: list[dict[str, Any]]) -> str:
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>Math report</title><style>{CSS}</style></head><body>"
    ]
    parts.append("<h1>Math report: " + html.escape(", ".join(title(r) for r in reps)) + "</h1>")
    parts.append(_html_table(["", *(title(r) for r in reps)], [[n, *c] for n, c in summary_rows(reps)]))
    for rep in reps:
        parts.append(f"<h2>{html.escape(title(rep))}</h2>")
        for name, b64 in _images(rep):
            parts.append(f"<p><img alt='{name}' src='data:image/svg+xml;base64,{b64}'></p>")
        for cap, head, rows in _detail_tables(rep):
            parts.append(_html_table(head, rows, cap))
        parts.append(
            "<h3>Method</h3><ul>"
            + "".join(f"<li>{html.escape(a)}</li>" for a in rep["method"]["approximations"])
            + "</ul>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def to_md(reps: list[dict[str, Any]]) -> str:
    parts = ["# Math report: " + ", ".join(title(r) for r in reps), ""]
    parts.append(_md_table(["", *(title(r) for r in reps)], [[n, *c] for n, c in summary_rows(reps)]))
    for rep in reps:
        parts += ["", f"## {title(rep)}", ""]
        for name, b64 in _images(rep):
            parts.append(f"![{name}](data:image/svg+xml;base64,{b64})")
        for cap, head, rows in _detail_tables(rep):
            parts += ["", f"**{cap}**", "", _md_table(head, rows)]
        parts += ["", "### Method", ""] + [f"- {a}" for a in rep["method"]["approximations"]]
    return "\n".join(parts) + "\n"


def _latin(text: str) -> str:
    """The PDF's core fonts hold Latin-1: anything else shows as '?'."""
    return text.encode("latin-1", "replace").decode("latin-1")


def _pdf_table(pdf: Any, caption: str, header: list[str], rows: list[list[str]], size: float = 7.5) -> None:
    """A table across the page, its caption above, its header repeated on each page it runs to."""
    width = pdf.w - pdf.l_margin - pdf.r_margin
    pdf.set_font("helvetica", "B", size + 1)
    pdf.multi_cell(width, 4.5, _latin(caption), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", "", size)
    cells = [[_latin(c) for c in r] for r in [header, *rows]]
    need = [max(pdf.get_string_width(r[k]) for r in cells if k < len(r)) + 3 for k in range(len(header))]
    ws = [w * min(1.0, width / sum(need)) for w in need]
    h = size * 0.55

    def line(r: list[str], bold: bool) -> None:
        pdf.set_font("helvetica", "B" if bold else "", size)
        for k, w in enumerate(ws):
            c = r[k] if k < len(r) else ""
            pdf.cell(w, h, c, border=1, align="L" if k == 0 else "R", fill=bold)
        pdf.ln(h)

    pdf.set_fill_color(238, 238, 255)
    line(cells[0], True)
    for r in cells[1:]:
        if pdf.get_y() + h > pdf.h - pdf.b_margin:
            pdf.add_page()
            line(cells[0], True)
        line(r, False)
    pdf.ln(3)


def write_pdf(reps: list[dict[str, Any]], path: Path) -> None:
    """The report as PDF (A4): the side-by-side summary, then each table's charts (drawn as
    vectors), its detail tables and its method notes."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(True, margin=12)
    pdf.set_margins(12, 12, 12)
    pdf.add_page()
    pdf.set_font("helvetica", "B", 14)
    pdf.multi_cell(
        0, 7, _latin("Math report: " + ", ".join(title(r) for r in reps)), new_x="LMARGIN", new_y="NEXT"
    )
    pdf.ln(2)
    header = ["", *(r["rules"]["preset"] for r in reps)]  # short: the titles are above
    _pdf_table(pdf, "Summary", header, [[n, *c] for n, c in summary_rows(reps)])
    width = pdf.w - pdf.l_margin - pdf.r_margin
    for rep in reps:
        name = title(rep)
        for key, chart in CHARTS:  # the strategy chart a page; the two plots on the next
            d = chart(rep, name)
            room = pdf.h - pdf.b_margin - pdf.get_y()
            scale = min(width / d.width, 0.42)
            if key == "strategy" or d.height * scale > room:
                pdf.add_page()
                room = pdf.h - pdf.b_margin - pdf.get_y()
            scale = min(scale, room / d.height)
            draw_pdf(pdf, d, pdf.l_margin, pdf.get_y(), scale)
            pdf.set_y(pdf.get_y() + d.height * scale + 3)
            if key == "strategy":
                pdf.add_page()
        pdf.set_text_color(0, 0, 0)
        pdf.set_draw_color(0, 0, 0)
        pdf.set_line_width(0.2)
        for cap, head, rows in _detail_tables(rep):
            _pdf_table(pdf, f"{name}: {cap}", head, rows)
        pdf.set_font("helvetica", "B", 9)
        pdf.cell(0, 5, "Method", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("helvetica", "", 7.5)
        for a in rep["method"]["approximations"]:
            pdf.multi_cell(width, 3.6, _latin("- " + a), new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
