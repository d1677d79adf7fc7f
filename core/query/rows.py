"""Pages, counts, positions and metrics of the items a `Filter` selects.

Nothing here loads more than one page of rows, so a 100k-item dataset pages as fast as a small one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qa_inspect.core.flags import Target, targets_for_items
from qa_inspect.core.metrics import answer_rate

from .filters import Filter
from .columns import column_def
from .count_frame import expressible, frame_metric_row
from .facet_frame import kept_frame
from .keyset import keyset_neighbour, keyset_position, keyset_window
from .paging import page_ids
from .sql import DELTA_SQL, DIMENSIONS, STALE_ITEMS_SQL, build, run_ids

__all__ = [
    "ItemRow", "SliceMetrics", "compare_metrics", "count", "distinct_values", "item_ids", "metrics", "metrics_ab",
    "neighbour", "page", "position", "rows_around", "rows_for_ids", "targets_for_filter",
]

_ITEM_COLUMNS = {d: f"i.{d}" for d in DIMENSIONS}
"""Item label columns a filter control offers values of (fixed names: the only way a column enters SQL)."""


@dataclass(slots=True)
class ItemRow:
    item_id: int
    key: str
    split: str | None
    tag: str | None
    answer_type: str | None
    question: str
    prediction: str | None
    best_gold: str | None
    em: int | None
    f1: float | None
    refused: int | None
    f1_recall: float | None
    stale: int
    compare_em: int | None = None
    compare_f1: float | None = None
    compare_f1_recall: float | None = None
    delta: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Values of the registry columns `page` was asked for (`core.query.columns`), by name."""


@dataclass(slots=True)
class SliceMetrics:
    """Metrics of the current filter for the current run, the way the official scorers count."""

    items: int
    predicted: int
    em: float | None = None
    f1: float | None = None
    answered: int | None = None
    f1_recall: float | None = None
    answer_rate: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def count(conn: Any, f: Filter) -> int:
    sql, params = build(conn, f)
    return conn.execute(f"SELECT COUNT(*) {sql}", params).fetchone()[0]


def page(conn: Any, f: Filter, offset: int = 0, limit: int = 100, columns: tuple[str, ...] = ()) -> list[ItemRow]:
    """One page of rows in the filter's order; ties broken by item id so paging is stable.

    Two steps: the ids of the page (`core.query.paging`: an index walk in the order shown where
    there is one, else only the sort key computed for every matching item), then the shown
    columns for those ids alone (best gold and stale lookups for `limit` rows, not 100k).
    `columns`: registry columns (`core.query.columns`) computed for the page too, in `ItemRow.extra`.
    """
    return rows_for_ids(conn, f, page_ids(conn, f, offset, limit), columns)


def rows_around(conn: Any, f: Filter, item_id: int, before: int, after: int,
                columns: tuple[str, ...] = ()) -> tuple[list[ItemRow], int] | None:
    """Rows around `item_id` in the filter's order and the index of the item's row among them,
    without its position (jump-to-item: a keyset walk each side of its sort key, where a count
    of the rows before it takes a second at a million items; `position` may follow). See
    `core.query.keyset.keyset_window` for an item the filter excludes; None: nothing to show."""
    found = keyset_window(conn, f, item_id, before, after)
    if found is None:
        return None
    rows = rows_for_ids(conn, f, found[0], columns)
    ids = [r.item_id for r in rows]
    return rows, ids.index(found[0][found[1]]) if found[0][found[1]] in ids else 0


def rows_for_ids(conn: Any, f: Filter, ids: list[int], columns: tuple[str, ...] = ()) -> list[ItemRow]:
    """The shown columns of the items `ids` under `f`'s runs, in the order of `ids`."""
    if not ids:
        return []
    _, run, cmp_ = run_ids(conn, f)
    cmp_cols = "pb.em, pb.f1, pb.f1_recall" if f.compare else "NULL, NULL, NULL"
    delta = DELTA_SQL if f.compare else "NULL"
    joins = "LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
    jparams: list[Any] = [run if run is not None else -1]
    if f.compare:
        joins += " LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?"
        jparams.append(cmp_ if cmp_ is not None else -1)
    extra_params: list[Any] = []
    extra = "".join(f", {column_def(c).value_sql(extra_params)}" for c in columns)
    rows = conn.execute(
        "SELECT i.id, i.key, i.split, i.tag, i.answer_type, i.question, p.text,"
        " (SELECT g.text FROM golds g WHERE g.item_id = i.id AND g.idx = COALESCE(p.best_gold, 0)),"
        " p.em, p.f1, p.refused, p.f1_recall,"
        f" i.id IN ({STALE_ITEMS_SQL}) AS stale,"
        f" {cmp_cols}, {delta} AS delta{extra}"
        f" FROM items i {joins} WHERE i.id IN ({', '.join('?' * len(ids))})",
        [*extra_params, *jparams, *ids],
    ).fetchall()
    by_id = {r[0]: r for r in rows}
    n = len(rows[0]) - len(columns) if rows else 0
    out = []
    for i in ids:
        if i in by_id:
            out.append(row := ItemRow(*by_id[i][:n]))
            row.extra = dict(zip(columns, by_id[i][n:]))
    return out


def position(conn: Any, f: Filter, item_id: int) -> int | None:
    """0-based row index of an item within the filter, or None when the filter excludes it: the
    rows before it counted by keyset on the sort key (`core.query.keyset`), no item ranked."""
    return keyset_position(conn, f, item_id)


def neighbour(conn: Any, f: Filter, item_id: int, step: int) -> int | None:
    """The item `step` rows away from `item_id` in the filter's order (for n/p), None past either
    end: a keyset walk from the item's sort key (`core.query.keyset`), no item ranked."""
    return keyset_neighbour(conn, f, item_id, step)


def metrics(conn: Any, f: Filter) -> SliceMetrics:
    """EM/F1 over all filtered items (a missing prediction counts 0, as the official script does),
    F1-recall over answered items only and answer rate over the run's responses, as CDQA does."""
    return _metrics(conn, f, "p")


def compare_metrics(conn: Any, f: Filter) -> SliceMetrics | None:
    """The same metrics for the compare run (B) over the same filtered items; None without one."""
    return metrics_ab(conn, f)[1]


def metrics_ab(conn: Any, f: Filter) -> tuple[SliceMetrics, SliceMetrics | None]:
    """Metrics of run A and (with `compare`) run B over the filtered items, in one pass; the
    item count is `items` of either, so the browser needs no separate `count`. From the run's
    count frame instead when this process holds it and it answers `f` (`core.query.count_frame`)."""
    if expressible(f) and (frame := kept_frame(conn, f)) is not None:  # sums over a mask (ms)
        row = frame_metric_row(frame, f)
        if row is not None:
            return _metrics_from(row[0], row[1:]), None
    aliases = ("p", "pb") if f.compare else ("p",)
    sql, params = build(conn, f)
    cols = ", ".join(_metric_columns(a) for a in aliases)
    row = conn.execute(f"SELECT COUNT(*), {cols} {sql}", params).fetchone()
    out = [_metrics_from(row[0], row[1 + 7 * k : 8 + 7 * k]) for k in range(len(aliases))]
    return out[0], (out[1] if len(out) > 1 else None)


def _metric_columns(alias: str) -> str:
    a = {"p": "p", "pb": "pb"}[alias]  # the only aliases that exist in `build`
    return (
        f"COUNT({a}.id), AVG(COALESCE({a}.em, 0)), AVG(COALESCE({a}.f1, 0)),"
        f" SUM(CASE WHEN {a}.id IS NOT NULL AND COALESCE({a}.refused, 0) = 0 THEN 1 ELSE 0 END),"
        f" AVG(CASE WHEN {a}.id IS NOT NULL AND COALESCE({a}.refused, 0) = 0 THEN COALESCE({a}.f1_recall, 0) END),"
        f" MAX({a}.em IS NOT NULL), MAX({a}.f1_recall IS NOT NULL OR {a}.refused IS NOT NULL)"
    )


def _metrics(conn: Any, f: Filter, alias: str) -> SliceMetrics:
    sql, params = build(conn, f)
    row = conn.execute(f"SELECT COUNT(*), {_metric_columns(alias)} {sql}", params).fetchone()
    return _metrics_from(row[0], row[1:])


def _metrics_from(items: int, row: Any) -> SliceMetrics:
    predicted, em, f1, answered, f1r, has_em, has_cdqa = row
    m = SliceMetrics(items=items, predicted=predicted)
    if has_em:
        m.em = 100.0 * (em or 0.0)
        m.f1 = 100.0 * (f1 or 0.0)
    if has_cdqa:
        m.answered = answered or 0
        m.f1_recall = 100.0 * f1r if f1r is not None else 0.0
        m.answer_rate = answer_rate(answered or 0, predicted)
    return m


def distinct_values(conn: Any, dataset: str | None, column: str) -> list[str]:
    """Values offered by a filter control (split, tag, answer type) for one dataset.

    With a dataset: one index seek per distinct value (the next value above the last), not a
    walk over every item (the item indexes start with the dataset id; schema 9 adds one for
    `answerable`)."""
    col = _ITEM_COLUMNS[column]
    if dataset:
        row = conn.execute("SELECT id FROM datasets WHERE name = ?", (dataset,)).fetchone()
        if row is None:
            return []
        sql = (f"WITH RECURSIVE v(x) AS (SELECT MIN({col}) FROM items i WHERE i.dataset_id = :ds AND {col} IS NOT NULL"
               f" UNION ALL SELECT (SELECT MIN({col}) FROM items i WHERE i.dataset_id = :ds AND {col} > v.x)"
               " FROM v WHERE v.x IS NOT NULL) SELECT x FROM v WHERE x IS NOT NULL")
        return [r[0] for r in conn.execute(sql, {"ds": row[0]})]
    sql = f"SELECT DISTINCT {col} FROM items i WHERE {col} IS NOT NULL ORDER BY {col}"
    return [r[0] for r in conn.execute(sql)]


def item_ids(conn: Any, f: Filter) -> list[int]:
    """Ids of every item the filter selects (for acting on all of them: mark stale, export)."""
    sql, params = build(conn, f)
    return [r[0] for r in conn.execute(f"SELECT DISTINCT i.id {sql}", params)]


def targets_for_filter(conn: Any, f: Filter) -> list[Target]:
    """Every scored gold of every item the filter selects, as flag targets ("mark all of these stale")."""
    return targets_for_items(conn, item_ids(conn, f))
