"""A paper table drawn as an SVG bar chart, the way the CDQA paper draws its grids.

Groups along the x axis are the table's columns (fast/slow/never-changing, Dev/Test …), one bar
per row (model) in each group, its height the cell's first metric (F1-recall, F1 …); a second
metric in the cell (answer rate in `f1_recall (answer_rate)`) is a marker on a line joining the
rows' values across groups. Scores are 0–100. The SVG is self-contained text (no fonts embedded,
no scripts); every label is XML-escaped. Pure: the caller writes the file.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from .paper_table import PaperTable

__all__ = ["PALETTE", "chart_svg"]

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
"""Bar colours, one per row, repeating past ten rows."""

_W_BAR, _GAP, _LEFT, _TOP, _HEIGHT, _BOTTOM = 18, 24, 56, 40, 240, 60


def _label(labels: tuple[str, ...]) -> str:
    return " · ".join(v for v in labels if v)


def _axis(width: int) -> list[str]:
    out = []
    for tick in range(0, 101, 20):
        y = _TOP + _HEIGHT - tick * _HEIGHT / 100
        out.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{width - 10}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{tick}</text>')
    return out


def chart_svg(table: PaperTable, template: str | None = None, title: str = "") -> str:
    """The table as grouped bars (first metric of `template`, default the first cell) with the
    second metric, if any, as markers joined per row."""
    template = template or table.spec.cells[0]
    metrics = table.spec.metrics_of(template)
    rows = list(range(len(table.rows)))
    label_w = max((7 * len(c) for c in table.columns), default=0) + 12
    group_w = max(len(rows) * _W_BAR + _GAP, label_w)
    width = _LEFT + len(table.columns) * group_w + 10
    legend_h = 18 * (len(rows) + (len(metrics) > 1)) + 10
    width = max(width, _LEFT + 400)
    height = _TOP + _HEIGHT + _BOTTOM + legend_h
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
             '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{_LEFT}" y="22" font-size="14" font-weight="bold">{escape(title or template)}</text>',
             *_axis(width)]
    points: dict[int, list[tuple[float, float]]] = {}
    for g, column in enumerate(table.columns):
        x0 = _LEFT + g * group_w + (group_w - len(rows) * _W_BAR) / 2
        parts.append(f'<text x="{x0 + len(rows) * _W_BAR / 2:.1f}" y="{_TOP + _HEIGHT + 18}" text-anchor="middle"'
                     f' font-size="12">{escape(column)}</text>')
        for i in rows:
            cell = table.cell(i, column, template)
            if cell is None:
                continue
            x = x0 + i * _W_BAR
            value = cell.values.get(metrics[0])
            if value is not None:
                h = max(0.0, min(100.0, value)) * _HEIGHT / 100
                parts.append(f'<rect x="{x:.1f}" y="{_TOP + _HEIGHT - h:.1f}" width="{_W_BAR - 2}" height="{h:.1f}"'
                             f' fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(_label(table.rows[i]))}'
                             f' {escape(column)}: {value:.1f}</title></rect>')
            second = cell.values.get(metrics[1]) if len(metrics) > 1 else None
            if second is not None:
                points.setdefault(i, []).append((x + (_W_BAR - 2) / 2, _TOP + _HEIGHT - second * _HEIGHT / 100))
    parts += _markers(points)
    parts += _legend(table, rows, metrics, _TOP + _HEIGHT + 34)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _markers(points: dict[int, list[tuple[float, float]]]) -> list[str]:
    out = []
    for i, pts in points.items():
        colour = PALETTE[i % len(PALETTE)]
        if len(pts) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-dasharray="4 3"/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="white" stroke="{colour}" stroke-width="2"/>'
                for x, y in pts]
    return out


def _legend(table: PaperTable, rows: list[int], metrics: list[str], y0: float) -> list[str]:
    out = []
    for n, i in enumerate(rows):
        y = y0 + 18 * n
        out.append(f'<rect x="{_LEFT}" y="{y - 10}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>')
        out.append(f'<text x="{_LEFT + 18}" y="{y}" font-size="12">{escape(_label(table.rows[i]))}</text>')
    if len(metrics) > 1:
        out.append(f'<text x="{_LEFT}" y="{y0 + 18 * len(rows)}" font-size="12">bars: {escape(metrics[0])};'
                   f' ○ markers joined by a dashed line: {escape(metrics[1])}</text>')
    return out
