"""The compare screen's tables, and how a `RunDiff` fills them and the titles above them.

Rendering only: each `fill_*` function takes a table, the diff and the theme's colours and lays the
rows out for the table's width; `CompareScreen` (compare.py) owns the data, the workers and the
actions. Significance (`PairSignificance`) arrives after the counts, from a worker of its own: until
then its cells read "…". Dataset and model text goes through `cell_text`/`clean` (never markup).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.content import Content
from textual.theme import Theme
from textual.widgets import DataTable

from qa_inspect.core.query import OUTCOMES, Filter, describe

from ..present import interval as interval_text
from ..present import count, dimension_name, number, p_value, plural
from ..present import signed as signed_text
from ..text import cell_text, clean, truncate

if TYPE_CHECKING:  # types only: diff_runs (polars, numpy) is imported when a comparison is computed
    from qa_inspect.core.report import DeltaTest, PairSignificance, RunDiff, SliceDelta

SLICE_SORTS = ("slice", "delta", "p")
"""Orders of the per-slice table: as the diff lists them, largest |Δ| first, most significant first."""

WIDE_SLICES = 140
"""From this table width on, each metric's 95% interval has a column of its own."""

THRESHOLDS = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1")

OUTCOME_HEADS = {
    "fixed": "fixed A✗→B✓",
    "broken": "broken A✓→B✗",
    "both_wrong": "both wrong",
    "both_right": "both right",
}

SLICE_FIELD = {"split": "splits", "tag": "tags", "answer_type": "answer_types"}
DIM_LABEL = {"overall": "", "split": "split ", "tag": "tag ", "answer_type": "type "}

RUN_SCORE_FIELDS = ("refused", "em", "f1_min", "f1_max")
"""Filter fields that judge a run's answers, not the items: the outcome table splits by them."""
RUN_SCORE_FACETS = ("refused", "pred_len")

Palette = dict[str, str]
"""Theme colours of better (`good`), worse (`bad`) and warnings (`warn`), as Rich styles."""


def scope_of(f: Filter) -> tuple[Filter | None, bool]:
    """The items a comparison started from a browser filter looks at: the filter's item conditions
    (dataset, split/tag/type, stale, search, question facets …) without the run, the comparison
    and the conditions on the run's scores. Returns (scope or None for the whole dataset, whether
    score conditions were dropped)."""
    dropped = any(getattr(f, k) is not None for k in RUN_SCORE_FIELDS) or any(
        name in RUN_SCORE_FACETS for name, _ in f.facets
    )
    scope = Filter(dataset=f.dataset).with_(
        splits=f.splits, tags=f.tags, answer_types=f.answer_types, stale=f.stale,
        has_proposal=f.has_proposal, search=f.search,
        facets=tuple(p for p in f.facets if p[0] not in RUN_SCORE_FACETS),
    )
    if scope == Filter(dataset=f.dataset):
        return None, dropped
    return scope, dropped


def palette_of(theme: Theme) -> Palette:
    return {"good": theme.success or "green", "bad": theme.error or "red", "warn": theme.warning or "yellow"}


def signed(value: float | None, palette: Palette, digits: int = 1) -> Text:
    """A B − A difference: green when B is better, red when worse, dim 0."""
    if value is None:
        return Text("—", style="dim", justify="right")
    if abs(value) < 10 ** -(digits + 1):
        return Text("0", style="dim", justify="right")
    return Text(f"{value:+.{digits}f}", style=palette["good"] if value > 0 else palette["bad"], justify="right")


def plain(value: float | None, digits: int = 1) -> Text:
    return Text("—" if value is None else f"{value:.{digits}f}", justify="right", style="dim" if value is None else "")


def answer_cell(text: str | None, refused: bool | None, width: int) -> Text:
    if text is None:
        return Text("(none)", style="dim italic")
    if not text.strip():
        return Text("(empty)", style="dim italic")
    return cell_text(text, width, style="italic" if refused else "")


def is_cdqa(d: RunDiff | None) -> bool:
    """The diff scores F1-recall over answered items (CDQA family), not EM/F1."""
    return d is not None and d.score_metric == "f1_recall"


class OutcomeTable(DataTable[Text]):
    """The 2×2 outcome counts, one row per criterion (EM, F1 ≥ t); Enter on a count browses it."""

    BINDINGS = [Binding("enter", "select_cursor", "Browse", id="compare.outcomes.browse",
                        tooltip="Browse the items counted in this cell")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="cell", show_row_labels=True, **kwargs)
        self.criteria: list[str] = []


class PlainTable(DataTable[Text]):
    """A row table of the compare screen (slices, changes); Enter opens the row."""

    BINDINGS = [Binding("enter", "select_cursor", "Open", id="compare.table.open",
                        tooltip="Open the row under the cursor")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)


# -- titles ---------------------------------------------------------------------------------------
def compare_title(run_a: str, run_b: str, d: RunDiff | None, error: str | None, computing: bool,
                  within: Filter | None, scoped: bool) -> Content:
    """`A run → B run  on dataset · n of m items answered by both · scope …`."""
    parts: list[tuple[str, str]] = [
        ("A ", "$foreground-muted"), (clean(run_a), "bold"), ("  →  ", "$foreground-muted"),
        ("B ", "$foreground-muted"), (clean(run_b), "bold $accent"),
    ]
    if error:
        parts += [("   ", ""), (clean(error), "$error")]
    elif d is None or computing:
        parts += [("   computing the diff…", "$foreground-muted italic")]
    else:
        parts += [
            ("  on ", "$foreground-muted"), (clean(d.dataset), ""),
            ("  · ", "$foreground-muted"), (count(d.common), "bold"),
            (f" of {plural(d.items, 'item')} answered by both", "$foreground-muted"),
        ]
        if d.only_a or d.only_b:
            parts.append((f" (only A {count(d.only_a)}, only B {count(d.only_b)})", "$foreground-muted"))
    if within is not None:
        text = describe(within.with_(run=None, dataset=None))
        parts += [("  · scope ", "$foreground-muted"), (truncate(clean(text), 50), "$accent")]
    elif scoped:
        parts += [("  · whole dataset (z: back to the filter)", "$foreground-muted")]
    return Content.assemble(*parts)


def outcomes_title(d: RunDiff | None, sig: PairSignificance | None = None, narrow: bool = False) -> Content:
    """The outcome table's title; on a narrow screen it carries the McNemar p of each row instead
    of a column."""
    if d is None:
        return Content.styled("Outcomes", "bold")
    if narrow:
        ps = "computing…" if sig is None else " · ".join(
            f"{clean(o.label)} {p_value(sig.outcomes[o.criterion], mark=sig.outcomes[o.criterion] < sig.options.alpha)}"
            for o in d.outcomes if o.criterion in sig.outcomes)
        return Content.assemble(("Outcomes", "bold"), (f" · McNemar p {ps}", "$foreground-muted"))
    return Content.assemble(
        ("Outcomes", "bold"), (" on the items both runs answer · enter on a count browses them", "$foreground-muted"),
    )


def slices_title(d: RunDiff | None, sig: PairSignificance | None = None, sort: str = "slice",
                 narrow: bool = False) -> Content:
    if d is None:
        return Content.styled("Per slice", "bold")
    order = {"slice": "", "delta": " · by |Δ|", "p": " · by p"}[sort]
    if sig is None:
        stats = " · p: computing…"
    else:
        over = "passages" if sig.unit == "passage" else "items"
        mark = "underlined Δ" if narrow else "*"
        stats = (f" · {mark}: p < {sig.options.alpha:g} (slices Holm-adjusted), bootstrap over {count(sig.units)} {over}"
                 + (", F1-recall on items both answered" if is_cdqa(d) else "")
                 + f", {plural(sig.options.resamples, 'resample')}, seed {sig.options.seed}")
    return Content.assemble(
        ("Per slice", "bold"),
        (" · Δ = B − A" + (" · n = answered items behind F1-recall" if is_cdqa(d) else "") + stats + order
         + " · o: sort", "$foreground-muted"),
    )


def pvalue(t: DeltaTest | None, alpha: float) -> Text:
    """The p a row is judged by (Holm-adjusted for a slice), * when below α; … while computing."""
    if t is None:
        return Text("…", style="dim", justify="right")
    p = t.p if t.primary else t.p_holm
    if p is None:
        return Text("—", style="dim", justify="right")
    mark = t.significant(alpha)
    return Text(p_value(p, mark=mark), style="bold" if mark else "dim", justify="right")


def interval(t: DeltaTest | None) -> Text:
    if t is None:
        return Text("…", style="dim", justify="right")
    if t.low is None or t.high is None:
        return Text("—", style="dim", justify="right")
    return Text(f"[{t.low:+.1f}, {t.high:+.1f}]", justify="right", style="dim")


def slice_detail(d: RunDiff | None, sig: PairSignificance | None, key: tuple[str, str] | None) -> Content:
    """One line on the slice under the cursor: each metric's Δ with its interval, p, Holm-adjusted
    p, exact McNemar and minimum detectable effect."""
    if d is None or key is None:
        return Content("")
    if sig is None:
        return Content.styled("intervals and p-values: computing…", "$foreground-muted italic")
    parts: list[tuple[str, str]] = []
    for t in sig.tests:
        if (t.dimension, t.value) != key or t.delta is None:
            continue
        bits = [f"Δ {signed_text(t.delta)} {interval_text(t.low, t.high, sign=True)}", f"p {p_value(t.p)}"]
        if not t.primary and t.p_holm is not None:
            bits.append(f"Holm {p_value(t.p_holm)} of {t.family}")
        if t.p_mcnemar is not None:
            bits.append(f"McNemar {p_value(t.p_mcnemar)}")  # "<0.001", never "McNemar 0"
        bits.append(f"MDE ±{number(t.mde)}" if t.mde is not None else "MDE —")
        if t.base != "common items":
            bits.append(f"on {plural(t.n, t.base.replace('items', 'item'), t.base)}")
        parts += [(f"{dimension_name(t.metric)} ", "bold"), ("  ".join(bits) + "   ", "$foreground-muted")]
    return Content.assemble(*parts) if parts else Content("")


def changes_title(d: RunDiff | None) -> Content:
    label = "F1-recall" if is_cdqa(d) else "F1"
    if d is None:
        return Content.styled("Largest changes", "bold")
    return Content.assemble(
        (f"Largest {label} changes", "bold"),
        (f" · {plural(len(d.changes), 'item')} · Δ = B − A" + (" · a refusal scores 0" if is_cdqa(d) else ""),
         "$foreground-muted"),
    )


# -- tables ---------------------------------------------------------------------------------------
def fill_outcomes(table: OutcomeTable, d: RunDiff | None, palette: Palette, sig: PairSignificance | None = None,
                  narrow: bool = False) -> None:
    """One row per criterion, one column per outcome: count and share, then (unless `narrow`: the
    title has it) the exact McNemar p, "…" until the significance worker answers; the cursor stays put."""
    cursor = table.cursor_coordinate
    table.clear(columns=True)
    table.criteria = []
    if d is None:
        return
    for outcome in OUTCOMES:
        table.add_column(Text(OUTCOME_HEADS[outcome], justify="right"), key=outcome)
    if not narrow:
        table.add_column(Text("McNemar p", justify="right"), key="mcnemar")
    for o in d.outcomes:
        mcnemar = _mcnemar_cell(o.criterion, sig)
        cells = []
        for outcome in OUTCOMES:
            n = o.count(outcome)
            share = f" {100 * n / o.total:3.0f}%" if o.total else ""
            style = {"fixed": palette["good"], "broken": palette["bad"]}.get(outcome, "") if n else "dim"
            cells.append(Text.assemble((count(n), f"bold {style}".strip()), (share, "dim"), justify="right"))
        table.add_row(*cells, *([] if narrow else [mcnemar]), label=Text(clean(o.label)), key=o.criterion)
        table.criteria.append(o.criterion)
    if table.row_count:
        row = min(cursor.row, table.row_count - 1)
        table.move_cursor(row=row, column=min(cursor.column, len(OUTCOMES) - 1), animate=False)


def _mcnemar_cell(criterion: str, sig: PairSignificance | None) -> Text:
    p = None if sig is None else sig.outcomes.get(criterion)
    mark = p is not None and sig is not None and p < sig.options.alpha
    return Text("…" if sig is None else p_value(p, mark=mark),
                style="bold" if mark else "dim", justify="right")


def update_mcnemar(table: OutcomeTable, sig: PairSignificance | None) -> None:
    """Fill the McNemar column in place once the significance worker answers (rebuilding the
    table instead would race its own pending layout of the row labels)."""
    if "mcnemar" not in {c.value for c in table.columns}:
        return
    for criterion in table.criteria:
        table.update_cell(criterion, "mcnemar", _mcnemar_cell(criterion, sig))


def _slice_columns(table: PlainTable, d: RunDiff, narrow: bool, wide: bool) -> tuple[tuple[str, ...], int]:
    """The per-slice table's columns for the scorer and width (each metric's p unless `narrow`; its
    interval too when `wide`); returns (metrics, slice column width)."""
    cdqa = is_cdqa(d)
    metrics = ("f1_recall", "answer_rate") if cdqa else ("em", "f1")
    names = {"em": "EM", "f1": "F1", "f1_recall": "F1r" if narrow else "F1-r", "answer_rate": "ans" if narrow else "ans%"}
    slice_w = (12 if cdqa else 16) if narrow else 24
    num_w = 5 if narrow else 6
    n_w = max([5, *(len(f"{s.n_a}/{s.n_b}") for s in d.slices if s.metric == "f1_recall")])
    table.add_column(Text("slice"), width=slice_w, key="slice")
    table.add_column(Text("items", justify="right"), width=max(5, len(count(d.common))), key="items")
    for m in metrics:
        n = names[m]
        table.add_column(Text(f"{n} A", justify="right"), width=num_w, key=f"{m}_a")
        table.add_column(Text(f"{n} B", justify="right"), width=num_w, key=f"{m}_b")
        table.add_column(Text(f"Δ {n}", justify="right"), width=6, key=f"{m}_d")
        if wide:
            table.add_column(Text("95% CI", justify="right"), width=15, key=f"{m}_ci")
        if not narrow:
            table.add_column(Text("p", justify="right"), width=7, key=f"{m}_p")  # "<0.001*"
        if m == "f1_recall":
            table.add_column(Text("n A/B", justify="right"), width=n_w, key="n")
    return metrics, slice_w


def _slice_cells(dim: str, value: str, by_metric: dict[str, SliceDelta], metrics: tuple[str, ...], slice_w: int,
                 palette: Palette, sig: PairSignificance | None, width: str) -> list[Text]:
    """One slice's row; `width` is "narrow" (significance as an underlined Δ), "normal" (a p
    column per metric) or "wide" (and the interval)."""
    first = next(iter(by_metric.values()))
    label = Text("all items", style="bold") if dim == "overall" else Text.assemble(
        (DIM_LABEL.get(dim, dim + " "), "dim"), clean(value))
    label.truncate(slice_w, overflow="ellipsis")
    cells: list[Text] = [label, Text(count(first.items), justify="right")]
    for m in metrics:
        s = by_metric.get(m)
        extra = {"narrow": 0, "normal": 1, "wide": 2}[width]
        if s is None:
            cells += [plain(None)] * (3 + extra + (m == "f1_recall"))
            continue
        t = None if sig is None else sig.test(dim, value, m)
        missing = sig is not None and t is None
        alpha = sig.options.alpha if sig else 0.05
        delta = signed(s.delta, palette)
        if width == "narrow" and t is not None and t.significant(alpha):
            delta.stylize("bold underline")
        cells += [plain(s.a), plain(s.b), delta]
        if width == "wide":
            cells.append(plain(None) if missing else interval(t))
        if width != "narrow":
            cells.append(plain(None) if missing else pvalue(t, alpha))
        if m == "f1_recall":
            cells.append(Text(f"{s.n_a}/{s.n_b}", justify="right", style="dim"))
    return cells


def _sorted_rows(rows: dict[tuple[str, str], dict[str, SliceDelta]], d: RunDiff, sig: PairSignificance | None,
                 sort: str) -> list[tuple[str, str]]:
    """Row keys in the asked order (overall rows first), by the headline metric (F1, F1-recall)."""
    keys = list(rows)
    if sort == "slice":
        return keys
    metric = d.score_metric

    def order(key: tuple[str, str]) -> tuple[bool, float]:
        if sort == "delta":
            s = rows[key].get(metric)
            return (key[0] != "overall", -abs(s.delta) if s is not None and s.delta is not None else 0.0)
        t = None if sig is None else sig.test(key[0], key[1], metric)
        p = None if t is None else (t.p if t.primary else t.p_holm)
        return (key[0] != "overall", 2.0 if p is None else p)

    return sorted(keys, key=order)


def fill_slices(table: PlainTable, d: RunDiff | None, palette: Palette, width: int,
                sig: PairSignificance | None = None, sort: str = "slice") -> list[tuple[str, str]]:
    """A row per slice (A, B, Δ and p of each metric, its interval when wide), in `sort` order;
    returns the (dimension, value) of each row."""
    row = table.cursor_row
    table.clear(columns=True)
    if d is None:
        return []
    avail = table.size.width or width
    size = "narrow" if avail < 90 else "wide" if avail >= WIDE_SLICES else "normal"
    metrics, slice_w = _slice_columns(table, d, size == "narrow", size == "wide")
    rows: dict[tuple[str, str], dict[str, SliceDelta]] = {}
    for s in d.slices:
        rows.setdefault((s.dimension, s.value), {})[s.metric] = s
    keys = _sorted_rows(rows, d, sig, sort)
    for dim, value in keys:
        table.add_row(*_slice_cells(dim, value, rows[(dim, value)], metrics, slice_w, palette, sig, size))
    if table.row_count:
        table.move_cursor(row=min(row, table.row_count - 1), animate=False)
    return keys


def fill_changes(table: PlainTable, d: RunDiff | None, palette: Palette, width: int) -> None:
    """The items whose score moved most: question, both answers, A, B, Δ (the id when wide)."""
    row = table.cursor_row
    table.clear(columns=True)
    if d is None:
        return
    if not d.changes:
        table.add_column(Text(""), key="none")
        table.add_row(Text(f"No item's {'F1-recall' if is_cdqa(d) else 'F1'} changed.", style="dim italic"))
        return
    avail = (table.size.width or width - 4) - 2  # less the vertical scrollbar
    key_w = min(max(len(c.key) for c in d.changes), 16) if avail >= 130 else 0
    ncols = 6 + (1 if key_w else 0)
    free = max(avail - (5 + 5 + 6) - 2 * ncols - key_w, 24)  # scores, cell padding, id
    q_w = max(8, free * 2 // 5)
    p_w = max(8, (free - q_w) // 2)
    if key_w:
        table.add_column(Text("id"), width=key_w, key="key")
    table.add_column(Text("question"), width=q_w, key="question")
    table.add_column(Text("A answer"), width=p_w, key="pa")
    table.add_column(Text("B answer"), width=p_w, key="pb")
    table.add_column(Text("A", justify="right"), width=5, key="a")
    table.add_column(Text("B", justify="right"), width=5, key="b")
    table.add_column(Text("Δ B−A", justify="right"), width=6, key="d")
    for c in d.changes:
        cells: list[Text] = [cell_text(c.key, key_w)] if key_w else []
        cells += [
            cell_text(c.question, q_w),
            answer_cell(c.prediction_a, c.refused_a, p_w),
            answer_cell(c.prediction_b, c.refused_b, p_w),
            plain(100 * c.score_a), plain(100 * c.score_b), signed(100 * c.delta, palette),
        ]
        table.add_row(*cells)
    if table.row_count:
        table.move_cursor(row=min(row, table.row_count - 1), animate=False)
