"""Writing math reports (``analysis.mathreport``) as HTML, PDF, Markdown or JSON, with the charts
(strategy, outcome distribution, risk bands) drawn by matplotlib (Agg) as pictures: HTML and
Markdown carry them inline (base64 PNG: one file, works offline), PDF through matplotlib's PdfPages.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

from pontoon.money import dumps


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
    _plt().close(fig)
    return buf.getvalue()


def title(rep: dict[str, Any]) -> str:
    r = rep["rules"]
    return f"{r.get('name') or r['preset']} ({r['decks']} decks)"


def png_strategy(rep: dict[str, Any]) -> bytes:
    """The strategy chart as PNG bytes, drawn with Pillow (matplotlib's dependency): the cells and
    colours of ``analysis.render.save_chart``, about a hundred times faster than laying out its
    six hundred texts."""
    import matplotlib
    from PIL import Image, ImageDraw, ImageFont

    from pontoon.analysis.render import COLOURS, _head, _short, chart_rows
    from pontoon.analysis.states import UPCARD_LABELS

    rows = chart_rows(rep["strategy"])
    fonts = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    font = ImageFont.truetype(str(fonts / "DejaVuSans.ttf"), 11)
    bold = ImageFont.truetype(str(fonts / "DejaVuSans-Bold.ttf"), 12)
    cw, ch, left, top = 40, 19, 78, 46
    img = Image.new("RGB", (left + cw * len(UPCARD_LABELS) + 10, top + ch * (len(rows) + 1) + 10), "white")
    d = ImageDraw.Draw(img)
    he = rep["house_edge"]
    d.text((6, 4), title(rep), fill="black", font=bold)
    d.text(
        (6, 20),
        f"house edge {he['basic'] * 100:.3f}% basic, {he['optimal'] * 100:.3f}% optimal; * card-count exception",
        fill="black",
        font=font,
    )
    for k, u in enumerate(UPCARD_LABELS):
        d.text((left + k * cw + cw // 2, top + ch // 2), u, fill="black", font=bold, anchor="mm")
    for r, (name, cells) in enumerate(rows, start=1):
        y = top + r * ch
        d.text((left - 6, y + ch // 2), name, fill="black", font=font, anchor="rm")
        for k, u in enumerate(UPCARD_LABELS):
            c = cells.get(u)
            if not c:
                continue
            fg, bg = COLOURS.get(_head(c), ("black", "white"))
            x = left + k * cw
            d.rectangle((x, y, x + cw - 2, y + ch - 2), fill=bg)
            d.text((x + cw // 2 - 1, y + ch // 2 - 1), _short(c), fill=fg, font=font, anchor="mm")
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def fig_strategy(rep: dict[str, Any]) -> Any:
    data = png_strategy(rep)
    plt = _plt()
    img = plt.imread(io.BytesIO(data), format="png")
    fig, ax = plt.subplots(figsize=(img.shape[1] / 130, img.shape[0] / 130))
    ax.imshow(img)
    ax.axis("off")
    return fig


def fig_distribution(rep: dict[str, Any]) -> Any:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    for k, (name, d) in enumerate(rep["distribution"].items()):
        xs = [o["net"] for o in d["outcomes"]]
        ps = [o["probability"] for o in d["outcomes"]]
        ax.bar([x + (k - 0.5) * 0.2 for x in xs], ps, width=0.2, label=f"{name} (SD {d['sd']:.3f})")
    ax.set_yscale("log")
    ax.set_xlabel("net outcome of a round (units of the initial wager)")
    ax.set_ylabel("probability")
    ax.set_title(f"{title(rep)}: outcome of the main wager per round", fontsize=9)
    ax.legend(fontsize=8)
    return fig


def fig_risk(rep: dict[str, Any]) -> Any:
    plt = _plt()
    risk = rep["risk"]
    b = risk["bands"]
    n = [0] + [x["rounds"] for x in b]
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    for lo, hi, alpha in (("p1", "p99", 0.15), ("p5", "p95", 0.25), ("p25", "p75", 0.4)):
        ax.fill_between(
            n,
            [0] + [x[lo] for x in b],
            [0] + [x[hi] for x in b],
            alpha=alpha,
            color="tab:blue",
            label=f"{lo[1:]}-{hi[1:]}%",
        )
    ax.plot(n, [0] + [x["p50"] for x in b], color="tab:blue", label="median")
    ax.axhline(-risk["bankroll_units"], color="tab:red", linestyle="--", label="bankroll")
    ax.set_xlabel("rounds")
    ax.set_ylabel("result (units)")
    ax.set_title(f"{title(rep)}: range of results, flat betting, basic strategy", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    return fig


FIGURES = (("strategy", fig_strategy), ("distribution", fig_distribution), ("risk", fig_risk))


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
    pngs = [("strategy", png_strategy(rep))] + [
        (name, _png(f(rep))) for name, f in FIGURES if name != "strategy"
    ]
    return [(name, base64.b64encode(data).decode("ascii")) for name, data in pngs]


def to_html(reps: list[dict[str, Any]]) -> str:
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>Math report</title><style>{CSS}</style></head><body>"
    ]
    parts.append("<h1>Math report: " + html.escape(", ".join(title(r) for r in reps)) + "</h1>")
    parts.append(_html_table(["", *(title(r) for r in reps)], [[n, *c] for n, c in summary_rows(reps)]))
    for rep in reps:
        parts.append(f"<h2>{html.escape(title(rep))}</h2>")
        for name, b64 in _images(rep):
            parts.append(f"<p><img alt='{name}' src='data:image/png;base64,{b64}'></p>")
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
            parts.append(f"![{name}](data:image/png;base64,{b64})")
        for cap, head, rows in _detail_tables(rep):
            parts += ["", f"**{cap}**", "", _md_table(head, rows)]
        parts += ["", "### Method", ""] + [f"- {a}" for a in rep["method"]["approximations"]]
    return "\n".join(parts) + "\n"


def _text_page(pdf: Any, caption: str, header: list[str], rows: list[list[str]]) -> None:
    plt = _plt()
    per = 40
    for k in range(0, max(len(rows), 1), per):
        chunk = rows[k : k + per]
        fig, ax = plt.subplots(figsize=(8.27, 11.69))
        ax.axis("off")
        ax.set_title(caption, fontsize=9, wrap=True)
        if chunk:
            t = ax.table(cellText=chunk, colLabels=header, loc="upper center", cellLoc="right")
            t.auto_set_font_size(False)
            t.set_fontsize(7)
            t.scale(1, 1.2)
        pdf.savefig(fig)
        plt.close(fig)


def write_pdf(reps: list[dict[str, Any]], path: Path) -> None:
    from matplotlib.backends.backend_pdf import PdfPages

    _plt()
    with PdfPages(path) as pdf:
        names = "\n".join(f"{r['rules']['preset']}: {title(r)}" for r in reps)
        header = ["", *(r["rules"]["preset"] for r in reps)]  # short: the titles are above
        _text_page(pdf, f"Math report\n{names}", header, [[n, *c] for n, c in summary_rows(reps)])
        for rep in reps:
            for _name, f in FIGURES:
                fig = f(rep)
                pdf.savefig(fig, bbox_inches="tight")
                _plt().close(fig)
            for cap, head, rows in _detail_tables(rep):
                _text_page(pdf, f"{title(rep)}: {cap}", head, rows)
