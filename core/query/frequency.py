"""A frequency table on any column (VisiData's Shift+F): value, count, share, run A's score and
error share per value, over the items a filter selects.

One SQL `GROUP BY` on the registry column (`core.query.columns`): text grouped by its folded value
(`fold_sql`: case, spaces and line breaks folded), shown as one of the texts folded into it;
numbers and label sets grouped as stored. Selecting a row is the expression `column = value`
(`core.query.expression.clause`), which selects exactly the row's items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .columns import LABELS, NUMBER, column_def, fold_sql
from .filters import Filter
from .sql import ERROR_SQL, build

__all__ = ["FREQUENCY_LIMIT", "FrequencyRow", "FrequencyTable", "frequency"]

FREQUENCY_LIMIT = 200
"""Values a frequency table lists by default (largest counts first); the rest are counted."""


@dataclass(frozen=True, slots=True)
class FrequencyRow:
    value: Any
    """The value as stored (for text: the smallest of the texts folded into this row); None: missing."""
    count: int
    share: float
    """count / the filter's items (0–1)."""
    score: float | None
    """Mean of run A's F1 (F1-recall for CDQA) over the row's items, a missing prediction 0 (0–100):
    CMRC's official denominator; for CDQA a refusal counts 0 too (its official F1-recall averages
    answered items only, which the browser's status line shows). None without a run."""
    errors: float | None
    """Share of the row's items that are errors (`ERROR_SQL`); None without a run."""


@dataclass(frozen=True, slots=True)
class FrequencyTable:
    column: str
    label: str
    items: int
    """Items the filter selects (the shares' denominator)."""
    values: int
    """Distinct (folded) values among them; `rows` holds the `limit` most frequent."""
    rows: tuple[FrequencyRow, ...]


def _split_labels(expr: str) -> str:
    """A ", "-joined label set as a JSON array (label names hold no comma, tab or newline)."""
    quoted = f"replace(replace({expr}, '\\', '\\\\'), '\"', '\\\"')"
    return f"CASE WHEN {expr} IS NULL THEN NULL ELSE '[\"' || replace({quoted}, ', ', '\",\"') || '\"]' END"


def frequency(conn: Any, f: Filter, column: str, limit: int = FREQUENCY_LIMIT) -> FrequencyTable:
    """The values of `column` over `f`'s items, most frequent first (ties by value); ValueError
    for an unknown column (the registry's message). A label set counts an item once under each of
    its labels (as `label = "x"` selects it), so label shares may add up to more than 1."""
    col = column_def(column)
    sql, params = build(conn, f)
    inner_params: list[Any] = []
    if col.sparse and f.run:  # labels, verdicts: the value computed only for the few items that may have one
        inner_params += [f.run, *col.sparse_params]
        value = f"CASE WHEN {col.sparse} THEN {col.value_sql(inner_params)} END"
    else:
        value = col.value_sql(inner_params)
    per_item = (f"SELECT {value} AS v, COALESCE(p.f1, p.f1_recall, 0) AS score, {ERROR_SQL} AS err {sql}")
    source = f"({per_item}) s"
    v = "s.v"
    if col.kind == LABELS:
        source += f" LEFT JOIN json_each({_split_labels('s.v')}) j"
        v = "j.value"
    key = "g.v" if col.kind == NUMBER else fold_sql("g.v")
    args = [*inner_params, *params]
    # Grouped as stored first, then the stored values folded (each distinct text folded once);
    # the window sums run over every group before LIMIT (how many values, how many rows).
    grouped = f"SELECT {v} AS v, COUNT(*) AS n, SUM(s.score) AS score, SUM(s.err) AS err FROM {source} GROUP BY {v}"
    rows = conn.execute(
        f"SELECT MIN(g.v), SUM(g.n), SUM(g.score) / SUM(g.n), SUM(g.err) * 1.0 / SUM(g.n), COUNT(*) OVER (),"
        f" SUM(SUM(g.n)) OVER () FROM ({grouped}) g GROUP BY {key} ORDER BY 2 DESC, 1 LIMIT ?",
        [*args, int(limit)],
    ).fetchall()
    values, counted = (rows[0][4], rows[0][5]) if rows else (0, 0)
    items = conn.execute(f"SELECT COUNT(*) {sql}", params).fetchone()[0] if col.kind == LABELS else counted
    has_run = f.run is not None
    out = tuple(
        FrequencyRow(v, n, n / items if items else 0.0, 100.0 * s if has_run else None, e if has_run else None)
        for v, n, s, e, _, _ in rows
    )
    return FrequencyTable(col.name, col.label, items, values, out)
