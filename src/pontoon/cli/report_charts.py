"""The math report's charts (strategy, outcome distribution, risk bands) as vector drawings: a short
list of shapes, written as SVG (inline in HTML and Markdown: one file that works offline) or drawn
on a PDF page (``report_render.write_pdf``, fpdf2). No plotting library: matplotlib took about
0.7 s of a report's 2 s budget to import and lay out three figures (issue 23)."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any

from pontoon.analysis.render import COLOURS, _head, _short, chart_rows
from pontoon.analysis.states import UPCARD_LABELS

BLUE, ORANGE, RED, GREY = "#1f77b4", "#ff7f0e", "#d62728", "#555555"
NAMED = {"black": "#000000", "white": "#ffffff"}
# average advance of Helvetica / DejaVu Sans per unit of font size: to place text anchored at its
# middle or end where the PDF cannot measure it (SVG anchors it itself)
EM = 0.55


@dataclass
class Drawing:
    """Shapes on a ``width`` x ``height`` canvas (pixels; y down). Each op is a tuple:
    ("rect", x, y, w, h, fill, opacity), ("line", x1, y1, x2, y2, colour, width, dashed),
    ("poly", points, fill, opacity), ("path", points, colour, width),
    ("text", x, y, text, size, anchor (start, middle, end), bold, colour, rotated)."""

    width: float
    height: float
    ops: list[tuple[Any, ...]] = field(default_factory=list)

    def rect(self, x: float, y: float, w: float, h: float, fill: str, opacity: float = 1.0) -> None:
        self.ops.append(("rect", x, y, w, h, fill, opacity))

    def line(
        self, x1: float, y1: float, x2: float, y2: float, colour: str = "black", width: float = 1.0
    ) -> None:
        self.ops.append(("line", x1, y1, x2, y2, colour, width, False))

    def dashed(self, x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 1.0) -> None:
        self.ops.append(("line", x1, y1, x2, y2, colour, width, True))

    def poly(self, points: list[tuple[float, float]], fill: str, opacity: float = 1.0) -> None:
        self.ops.append(("poly", points, fill, opacity))

    def path(self, points: list[tuple[float, float]], colour: str, width: float = 1.5) -> None:
        self.ops.append(("path", points, colour, width))

    def text(
        self,
        x: float,
        y: float,
        s: str,
        size: float = 11,
        anchor: str = "start",
        bold: bool = False,
        colour: str = "black",
        rotated: bool = False,
    ) -> None:
        """``s`` with its vertical middle at ``y`` (``rotated``: reading upwards, its middle at x)."""
        self.ops.append(("text", x, y, s, size, anchor, bold, colour, rotated))


def _f(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def to_svg(d: Drawing) -> str:
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{_f(d.width)}' height='{_f(d.height)}' "
        f"viewBox='0 0 {_f(d.width)} {_f(d.height)}' font-family='DejaVu Sans, Helvetica, Arial, sans-serif'>",
        f"<rect width='{_f(d.width)}' height='{_f(d.height)}' fill='white'/>",
    ]
    for op in d.ops:
        kind = op[0]
        if kind == "rect":
            _, x, y, w, h, fill, a = op
            op_a = f" fill-opacity='{a}'" if a < 1 else ""
            out.append(
                f"<rect x='{_f(x)}' y='{_f(y)}' width='{_f(w)}' height='{_f(h)}' fill='{fill}'{op_a}/>"
            )
        elif kind == "line":
            _, x1, y1, x2, y2, c, w, dashed = op
            dash = " stroke-dasharray='6 4'" if dashed else ""
            out.append(
                f"<line x1='{_f(x1)}' y1='{_f(y1)}' x2='{_f(x2)}' y2='{_f(y2)}' stroke='{c}' "
                f"stroke-width='{_f(w)}'{dash}/>"
            )
        elif kind in ("poly", "path"):
            pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in op[1])
            if kind == "poly":
                out.append(f"<polygon points='{pts}' fill='{op[2]}' fill-opacity='{op[3]}'/>")
            else:
                out.append(
                    f"<polyline points='{pts}' fill='none' stroke='{op[2]}' stroke-width='{_f(op[3])}'/>"
                )
        else:
            _, x, y, s, size, anchor, bold, c, rot = op
            weight = " font-weight='bold'" if bold else ""
            turn = f" transform='rotate(-90 {_f(x)} {_f(y)})'" if rot else ""
            out.append(
                f"<text x='{_f(x)}' y='{_f(y)}' font-size='{_f(size)}' text-anchor='{anchor}' "
                f"dominant-baseline='central' fill='{c}'{weight}{turn}>{html.escape(s)}</text>"
            )
    out.append("</svg>")
    return "".join(out)


def _rgb(colour: str) -> tuple[int, int, int]:
    c = NAMED.get(colour, colour).lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def draw_pdf(pdf: Any, d: Drawing, x0: float, y0: float, scale: float) -> None:
    """Draw ``d`` on an fpdf2 page (units mm) with its top left at (x0, y0), ``scale`` mm a pixel."""

    def p(x: float, y: float) -> tuple[float, float]:
        return x0 + x * scale, y0 + y * scale

    for op in d.ops:
        kind = op[0]
        if kind == "rect":
            _, x, y, w, h, fill, a = op
            pdf.set_fill_color(*_rgb(fill))
            if a < 1:
                with pdf.local_context(fill_opacity=a):
                    pdf.rect(*p(x, y), w * scale, h * scale, style="F")
            else:  # a graphics state a rectangle costs more than the rectangle
                pdf.rect(*p(x, y), w * scale, h * scale, style="F")
        elif kind == "line":
            _, x1, y1, x2, y2, c, w, dashed = op
            pdf.set_draw_color(*_rgb(c))
            pdf.set_line_width(w * scale)
            if dashed:
                pdf.set_dash_pattern(dash=2, gap=1.3)
            pdf.line(*p(x1, y1), *p(x2, y2))
            if dashed:
                pdf.set_dash_pattern()
        elif kind == "poly":
            pdf.set_fill_color(*_rgb(op[2]))
            with pdf.local_context(fill_opacity=op[3]):
                pdf.polygon([p(x, y) for x, y in op[1]], style="F")
        elif kind == "path":
            pdf.set_draw_color(*_rgb(op[2]))
            pdf.set_line_width(op[3] * scale)
            pdf.polyline([p(x, y) for x, y in op[1]])
        else:
            _, x, y, s, size, anchor, bold, c, rot = op
            pts = size * scale / 0.3528  # mm to points
            pdf.set_font("helvetica", "B" if bold else "", pts)
            pdf.set_text_color(*_rgb(c))
            s = s.encode("latin-1", "replace").decode("latin-1")
            w = pdf.get_string_width(s)
            shift = {"start": 0.0, "middle": w / 2, "end": w}[anchor]
            px, py = p(x, y)
            if rot:
                with pdf.rotation(90, px, py):
                    pdf.text(px - shift, py + size * scale * 0.35, s)
            else:
                pdf.text(px - shift, py + size * scale * 0.35, s)


def strategy_chart(rep: dict[str, Any], name: str) -> Drawing:
    """The strategy grid: one row per hand, one column per up card, coloured by action (the cells
    and colours of ``analysis.render.save_chart``)."""
    rows = chart_rows(rep["strategy"])
    cw, ch, left, top = 40, 19, 78, 46
    d = Drawing(left + cw * len(UPCARD_LABELS) + 10, top + ch * (len(rows) + 1) + 10)
    he = rep["house_edge"]
    d.text(6, 11, name, 12, bold=True)
    d.text(
        6,
        28,
        f"house edge {he['basic'] * 100:.3f}% basic, {he['optimal'] * 100:.3f}% optimal; * card-count exception",
        11,
    )
    for k, u in enumerate(UPCARD_LABELS):
        d.text(left + k * cw + cw / 2, top + ch / 2, u, 12, "middle", bold=True)
    for r, (label, cells) in enumerate(rows, start=1):
        y = top + r * ch
        d.text(left - 6, y + ch / 2, label, 11, "end")
        for k, u in enumerate(UPCARD_LABELS):
            c = cells.get(u)
            if not c:
                continue
            fg, bg = COLOURS.get(_head(c), ("black", "white"))
            x = left + k * cw
            d.rect(x, y, cw - 2, ch - 2, bg)
            d.text(x + cw / 2 - 1, y + ch / 2 - 1, _short(c), 11, "middle", colour=fg)
    return d


def _ticks(lo: float, hi: float, most: int = 10) -> list[float]:
    """Round tick values from ``lo`` to ``hi``, at most about ``most`` of them."""
    span = max(hi - lo, 1e-9)
    raw = span / most
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step + 1e-9) + 1)]


def _axes(d: Drawing, box: tuple[float, float, float, float], title: str, xlabel: str, ylabel: str) -> None:
    x0, y0, x1, y1 = box
    d.line(x0, y1, x1, y1)
    d.line(x0, y0, x0, y1)
    d.line(x1, y0, x1, y1, GREY, 0.5)
    d.line(x0, y0, x1, y0, GREY, 0.5)
    d.text((x0 + x1) / 2, y0 - 12, title, 11, "middle")
    d.text((x0 + x1) / 2, y1 + 30, xlabel, 11, "middle")
    d.text(14, (y0 + y1) / 2, ylabel, 11, "middle", rotated=True)


def _legend(d: Drawing, x: float, y: float, items: list[tuple[str, str, float, str]]) -> None:
    """Entries (label, colour, opacity, kind: box, line, dash) from (x, y) down."""
    w = max(len(s) for s, *_ in items) * 10 * EM + 34
    d.rect(x, y, w, 16 * len(items) + 6, "white", 0.85)
    for k, (label, colour, alpha, kind) in enumerate(items):
        yy = y + 11 + 16 * k
        if kind == "box":
            d.rect(x + 6, yy - 5, 18, 10, colour, alpha)
        elif kind == "line":
            d.line(x + 6, yy, x + 24, yy, colour, 2)
        else:
            d.dashed(x + 6, yy, x + 24, yy, colour, 1.5)
        d.text(x + 30, yy, label, 10)


def distribution_chart(rep: dict[str, Any], name: str) -> Drawing:
    """The main wager's outcome per round: one bar per net outcome and strategy, log scale."""
    W, H = 720.0, 330.0
    box = (70.0, 28.0, W - 14, H - 48)
    x0, y0, x1, y1 = box
    d = Drawing(W, H)
    dists = list(rep["distribution"].items())
    nets = [o["net"] for _n, dd in dists for o in dd["outcomes"]]
    probs = [o["probability"] for _n, dd in dists for o in dd["outcomes"] if o["probability"] > 0]
    lo_v, hi_v = min(nets) - 1, max(nets) + 1
    lo_e = math.floor(math.log10(min(probs)))

    def px(v: float) -> float:
        return x0 + (v - lo_v) / (hi_v - lo_v) * (x1 - x0)

    def py(p: float) -> float:
        return y1 - (math.log10(p) - lo_e) / (0 - lo_e) * (y1 - y0)

    for k in range(lo_e, 1):
        y = py(10.0**k)
        d.line(x0 - 4, y, x0, y)
        d.text(x0 - 7, y, f"1e{k}" if k else "1", 9, "end")
    for v in _ticks(lo_v, hi_v, 12):
        d.line(px(v), y1, px(v), y1 + 4)
        d.text(px(v), y1 + 12, f"{v:g}", 9, "middle")
    colours = (BLUE, ORANGE)
    bar = max(2.0, 0.2 * (x1 - x0) / (hi_v - lo_v))
    for k, (_n, dd) in enumerate(dists):
        for o in dd["outcomes"]:
            if o["probability"] <= 0:
                continue
            x = px(o["net"]) + (k - 1) * bar
            top = py(o["probability"])
            d.rect(x, top, bar, y1 - top, colours[k % 2])
    _axes(
        d,
        box,
        f"{name}: outcome of the main wager per round",
        "net outcome of a round (units of the initial wager)",
        "probability",
    )
    _legend(
        d,
        x1 - 200,
        y0 + 8,
        [(f"{n} (SD {dd['sd']:.3f})", colours[k % 2], 1.0, "box") for k, (n, dd) in enumerate(dists)],
    )
    return d


def risk_chart(rep: dict[str, Any], name: str) -> Drawing:
    """The range of results after N rounds of flat betting: the 1-99, 5-95 and 25-75 percentile bands,
    the median and the bankroll."""
    W, H = 720.0, 330.0
    box = (70.0, 28.0, W - 14, H - 48)
    x0, y0, x1, y1 = box
    d = Drawing(W, H)
    risk = rep["risk"]
    b = risk["bands"]
    n = [0] + [x["rounds"] for x in b]
    col = {k: [0.0] + [x[k] for x in b] for k in ("p1", "p5", "p25", "p50", "p75", "p95", "p99")}
    lo = min(min(col["p1"]), -risk["bankroll_units"])
    hi = max(col["p99"])
    pad = 0.05 * (hi - lo)
    lo, hi = lo - pad, hi + pad

    def px(r: float) -> float:
        return x0 + r / max(n[-1], 1) * (x1 - x0)

    def py(v: float) -> float:
        return y1 - (v - lo) / (hi - lo) * (y1 - y0)

    for v in _ticks(lo, hi, 8):
        d.line(x0 - 4, py(v), x0, py(v))
        d.text(x0 - 7, py(v), f"{v:g}", 9, "end")
    for r in _ticks(0, n[-1], 10):
        d.line(px(r), y1, px(r), y1 + 4)
        d.text(px(r), y1 + 12, f"{r:g}", 9, "middle")
    items = []
    for lo_k, hi_k, alpha in (("p1", "p99", 0.15), ("p5", "p95", 0.25), ("p25", "p75", 0.4)):
        pts = [(px(r), py(v)) for r, v in zip(n, col[hi_k], strict=True)]
        pts += [(px(r), py(v)) for r, v in reversed(list(zip(n, col[lo_k], strict=True)))]
        d.poly(pts, BLUE, alpha)
        items.append((f"{lo_k[1:]}-{hi_k[1:]}%", BLUE, alpha, "box"))
    d.path([(px(r), py(v)) for r, v in zip(n, col["p50"], strict=True)], BLUE)
    d.dashed(x0, py(-risk["bankroll_units"]), x1, py(-risk["bankroll_units"]), RED, 1.5)
    _axes(d, box, f"{name}: range of results, flat betting, basic strategy", "rounds", "result (units)")
    _legend(
        d,
        x0 + 8,
        y1 - 8 - 16 * 5 - 6,
        [*items, ("median", BLUE, 1.0, "line"), ("bankroll", RED, 1.0, "dash")],
    )
    return d


CHARTS = (("strategy", strategy_chart), ("distribution", distribution_chart), ("risk", risk_chart))
