"""Filters → parameterised SQL: counts, pages, slice metrics and facets for the item browser.

Every value reaches SQLite as a parameter; column names come only from the fixed `SORTS` table.
Nothing here loads more than one page of rows, so a 100k-item dataset pages as fast as a small one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from .flags import STALE_GOLDS_SQL

SORTS: dict[str, str] = {
    "key": "i.id",
    "split": "i.split",
    "tag": "i.tag",
    "answer_type": "i.answer_type",
    "question": "i.question",
    "prediction": "p.text",
    "em": "p.em",
    "f1": "p.f1",
    "f1_recall": "p.f1_recall",
    "refused": "p.refused",
    "stale": "stale",  # expanded by order_clause
    "delta": "delta",  # expanded by order_clause (needs a compare run): B − A, as `qa-inspect diff` reports
}
"""Sortable columns: name → SQL expression (the only way a column name enters SQL)."""

DELTA_SQL = "COALESCE(pb.f1, pb.f1_recall, 0) - COALESCE(p.f1, p.f1_recall, 0)"
"""Δ of a compared item: run B's score − run A's (F1, or F1-recall for CDQA), as `qa-inspect diff`."""


@dataclass(frozen=True, slots=True)
class Filter:
    """What the item browser shows; immutable so a worker can hold one safely."""

    dataset: str | None = None
    run: str | None = None
    splits: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    answer_types: tuple[str, ...] = ()
    refused: bool | None = None
    em: int | None = None
    f1_min: float | None = None
    f1_max: float | None = None
    stale: bool | None = None
    has_proposal: bool | None = None
    search: str = ""
    compare: str | None = None
    only_disagree: bool = False
    sort: str = "key"
    descending: bool = False
    facets: tuple[tuple[str, str], ...] = ()
    """(facet name, value) pairs from `core.facets` (length buckets, question word …): values of
    one facet are OR-ed, different facets AND-ed."""
    outcome: str | None = None
    """With `compare`: one cell of the run diff (`OUTCOMES`), on items both runs answer; run = A,
    compare = B, so "fixed" = the run wrong and the compare run right. Matches nothing without
    `compare`."""
    outcome_threshold: float | None = None
    """How `outcome` judges right: None = EM 1; a number = F1 (F1-recall for CDQA) ≥ it, refusals wrong."""

    def with_(self, **changes: Any) -> Filter:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The fields that differ from the defaults, JSON-ready (tuples become lists)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = [list(v) if isinstance(v, tuple) else v for v in value] if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Filter:
        """Inverse of `to_dict`; unknown keys (from a newer qa-inspect) are ignored."""
        known = {f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for name, value in data.items():
            if name not in known:
                continue
            if isinstance(value, list):
                value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
            kwargs[name] = value
        return cls(**kwargs)


OUTCOMES: tuple[str, ...] = ("fixed", "broken", "both_wrong", "both_right")
"""Cells of a run diff: A wrong → B right, A right → B wrong, both wrong, both right."""


def right_sql(alias: str, threshold: float | None, params: list[Any]) -> str:
    """SQL truth of "this prediction is right": EM 1, or (threshold given) not a refusal and
    F1 / F1-recall ≥ threshold. A missing prediction is never right. `alias` is p or pb."""
    a = {"p": "p", "pb": "pb"}[alias]
    if threshold is None:
        return f"(COALESCE({a}.em, 0) = 1)"
    params.append(float(threshold))
    return f"(COALESCE({a}.refused, 0) = 0 AND COALESCE({a}.f1, {a}.f1_recall, 0) >= ?)"


def _outcome_clause(f: Filter, params: list[Any]) -> str:
    if f.outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {f.outcome!r}; choose from {', '.join(OUTCOMES)}")
    a_right = right_sql("p", f.outcome_threshold, params)
    b_right = right_sql("pb", f.outcome_threshold, params)
    a_cond, b_cond = {
        "fixed": (f"NOT {a_right}", b_right),
        "broken": (a_right, f"NOT {b_right}"),
        "both_wrong": (f"NOT {a_right}", f"NOT {b_right}"),
        "both_right": (a_right, b_right),
    }[f.outcome]
    return f"(p.id IS NOT NULL AND pb.id IS NOT NULL AND {a_cond} AND {b_cond})"


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


def _ids(conn: Any, f: Filter) -> tuple[int | None, int | None, int | None]:
    ds = run = cmp_ = None
    if f.run:
        row = conn.execute("SELECT id, dataset_id FROM runs WHERE name = ?", (f.run,)).fetchone()
        if row:
            run, ds = row
    if ds is None and f.dataset:
        row = conn.execute("SELECT id FROM datasets WHERE name = ?", (f.dataset,)).fetchone()
        ds = row[0] if row else -1
    if f.compare:
        row = conn.execute("SELECT id FROM runs WHERE name = ?", (f.compare,)).fetchone()
        cmp_ = row[0] if row else -1
    return ds, run, cmp_


def _in(column: str, values: tuple[str, ...], params: list[Any]) -> str:
    params.extend(values)
    return f"{column} IN ({', '.join('?' * len(values))})"


def build(conn: Any, f: Filter) -> tuple[str, list[Any]]:
    """FROM/WHERE clause and parameters shared by count, page and metrics queries."""
    ds, run, cmp_ = _ids(conn, f)
    params: list[Any] = [run if run is not None else -1]
    joins = ["FROM items i", "LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"]
    if cmp_ is not None:
        joins.append("LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?")
        params.append(cmp_)
    where: list[str] = []
    if ds is not None:
        where.append("i.dataset_id = ?")
        params.append(ds)
    if f.splits:
        where.append(_in("i.split", f.splits, params))
    if f.tags:
        where.append(_in("i.tag", f.tags, params))
    if f.answer_types:
        where.append(_in("i.answer_type", f.answer_types, params))
    if f.refused is not None:  # "answered" = a prediction that is not a refusal (span runs: any)
        where.append("p.refused = 1" if f.refused else "p.id IS NOT NULL AND COALESCE(p.refused, 0) = 0")
    if f.em is not None:
        where.append("COALESCE(p.em, 0) = ?")
        params.append(int(f.em))
    if f.f1_min is not None:
        where.append("COALESCE(p.f1, p.f1_recall, 0) >= ?")
        params.append(f.f1_min)
    if f.f1_max is not None:
        where.append("COALESCE(p.f1, p.f1_recall, 0) <= ?")
        params.append(f.f1_max)
    # Stale flags: uncorrelated IN (SQLite evaluates the journal query once, not once per item).
    if f.stale is not None:
        where.append("i.id " + ("" if f.stale else "NOT ") + f"IN (SELECT s.item_id FROM ({STALE_GOLDS_SQL}) s)")
    if f.has_proposal is not None:
        where.append(
            "i.id " + ("" if f.has_proposal else "NOT ")
            + f"IN (SELECT s.item_id FROM ({STALE_GOLDS_SQL}) s WHERE s.proposed IS NOT NULL AND s.proposed != '')"
        )
    if f.search.strip():
        where.append(_search_clause(f.search.strip(), params))
    if f.only_disagree and cmp_ is not None:
        where.append(
            "(p.id IS NOT NULL OR pb.id IS NOT NULL) AND (p.em IS NOT pb.em OR p.refused IS NOT pb.refused"
            " OR ABS(COALESCE(p.f1, -1) - COALESCE(pb.f1, -1)) > 1e-9"
            " OR ABS(COALESCE(p.f1_recall, -1) - COALESCE(pb.f1_recall, -1)) > 1e-9)"
        )
    if f.facets:
        from .facets import facet_where  # facets builds on this module; imported when used

        where.append(facet_where(f.facets, params))
    if f.outcome is not None:
        where.append(_outcome_clause(f, params) if cmp_ is not None else "0")
    sql = " ".join(joins) + (" WHERE " + " AND ".join(where) if where else "")
    return sql, params


def _search_clause(text: str, params: list[Any]) -> str:
    """Trigram FTS for 3+ characters (Chinese has no spaces to tokenise on); LIKE for shorter text."""
    if len(text) >= 3:
        phrase = '"' + text.replace('"', '""') + '"'
        params.extend([phrase, phrase])
        return (
            "(i.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)"
            " OR p.id IN (SELECT rowid FROM predictions_fts WHERE predictions_fts MATCH ?))"
        )
    like = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    params.extend([like, like, like])
    return (
        "(i.question LIKE ? ESCAPE '\\' OR p.text LIKE ? ESCAPE '\\'"
        " OR EXISTS (SELECT 1 FROM golds g WHERE g.item_id = i.id AND g.text LIKE ? ESCAPE '\\'))"
    )


def count(conn: Any, f: Filter) -> int:
    sql, params = build(conn, f)
    return conn.execute(f"SELECT COUNT(*) {sql}", params).fetchone()[0]


def page(conn: Any, f: Filter, offset: int = 0, limit: int = 100) -> list[ItemRow]:
    """One page of rows in the filter's order; ties broken by item id so paging is stable.

    Two steps: the ids of the page (only the sort key is computed for every matching item), then
    the shown columns for those ids alone (best gold and stale lookups for `limit` rows, not 100k).
    """
    sql, params = build(conn, f)
    ids = [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {order_clause(f)} LIMIT ? OFFSET ?",
                                      [*params, limit, offset])]
    if not ids:
        return []
    _, run, cmp_ = _ids(conn, f)
    cmp_cols = "pb.em, pb.f1, pb.f1_recall" if f.compare else "NULL, NULL, NULL"
    delta = DELTA_SQL if f.compare else "NULL"
    joins = "LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
    jparams: list[Any] = [run if run is not None else -1]
    if f.compare:
        joins += " LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?"
        jparams.append(cmp_ if cmp_ is not None else -1)
    rows = conn.execute(
        "SELECT i.id, i.key, i.split, i.tag, i.answer_type, i.question, p.text,"
        " (SELECT g.text FROM golds g WHERE g.item_id = i.id AND g.idx = COALESCE(p.best_gold, 0)),"
        " p.em, p.f1, p.refused, p.f1_recall,"
        f" i.id IN (SELECT s.item_id FROM ({STALE_GOLDS_SQL}) s) AS stale,"
        f" {cmp_cols}, {delta} AS delta"
        f" FROM items i {joins} WHERE i.id IN ({', '.join('?' * len(ids))})",
        [*jparams, *ids],
    ).fetchall()
    by_id = {r[0]: r for r in rows}
    return [ItemRow(*by_id[i]) for i in ids if i in by_id]


def order_clause(f: Filter) -> str:
    """ORDER BY for the filter's sort (ties by item id, so paging is stable)."""
    order = SORTS.get(f.sort, "i.id")
    if order == "stale":
        order = f"i.id IN (SELECT s.item_id FROM ({STALE_GOLDS_SQL}) s)"
    elif order == "delta":
        order = DELTA_SQL if f.compare else "i.id"
    direction = "DESC" if f.descending else "ASC"
    if order == "i.id":  # never NULL: a bare rowid order lets SQLite walk the table and stop early
        return f"i.id {direction}"
    return f"{order} IS NULL, {order} {direction}, i.id {direction}"


def position(conn: Any, f: Filter, item_id: int) -> int | None:
    """0-based row index of an item within the filter, or None when the filter excludes it."""
    sql, params = build(conn, f)
    row = conn.execute(
        f"SELECT rn FROM (SELECT i.id AS id, ROW_NUMBER() OVER (ORDER BY {order_clause(f)}) - 1 AS rn {sql})"
        " WHERE id = ?",
        [*params, item_id],
    ).fetchone()
    return row[0] if row else None


def neighbour(conn: Any, f: Filter, item_id: int, step: int) -> int | None:
    """The item `step` rows away from `item_id` in the filter's order (for n/p), None past either end."""
    sql, params = build(conn, f)
    fn = "LEAD" if step >= 0 else "LAG"
    row = conn.execute(
        f"SELECT nid FROM (SELECT i.id AS id, {fn}(i.id, {abs(int(step))}) OVER (ORDER BY {order_clause(f)}) AS nid"
        f" {sql}) WHERE id = ?",
        [*params, item_id],
    ).fetchone()
    return row[0] if row else None


def metrics(conn: Any, f: Filter) -> SliceMetrics:
    """EM/F1 over all filtered items (a missing prediction counts 0, as the official script does),
    F1-recall over answered items only and answer rate over all, as CDQA does."""
    return _metrics(conn, f, "p")


def compare_metrics(conn: Any, f: Filter) -> SliceMetrics | None:
    """The same metrics for the compare run (B) over the same filtered items; None without one."""
    return metrics_ab(conn, f)[1]


def metrics_ab(conn: Any, f: Filter) -> tuple[SliceMetrics, SliceMetrics | None]:
    """Metrics of run A and (with `compare`) run B over the filtered items, in one pass; the
    item count is `items` of either, so the browser needs no separate `count`."""
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
        m.answer_rate = 100.0 * (answered or 0) / items if items else 0.0
    return m


FACETS: dict[str, str] = {
    "split": "i.split",
    "tag": "i.tag",
    "answer_type": "i.answer_type",
    "refused": "p.refused",
}


def facet(conn: Any, f: Filter, name: str) -> list[tuple[Any, int, int]]:
    """(value, items, errors) per value of a column under the filter; an error is EM 0 or F1-recall < 1."""
    column = FACETS[name]
    sql, params = build(conn, f)
    return [
        tuple(r)
        for r in conn.execute(
            f"SELECT {column} AS v, COUNT(*),"
            " SUM(CASE WHEN p.em IS NOT NULL THEN 1 - p.em"
            " WHEN p.f1_recall IS NOT NULL THEN p.f1_recall < 1 ELSE 1 END)"
            f" {sql} GROUP BY v ORDER BY COUNT(*) DESC, v",
            params,
        )
    ]


def distinct_values(conn: Any, dataset: str | None, column: str) -> list[str]:
    """Values offered by a filter control (split, tag, answer type) for one dataset."""
    col = FACETS[column]
    if not col.startswith("i."):
        raise ValueError(column)
    sql = f"SELECT DISTINCT {col} FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE {col} IS NOT NULL"
    params: list[Any] = []
    if dataset:
        sql += " AND d.name = ?"
        params.append(dataset)
    return [r[0] for r in conn.execute(sql + f" ORDER BY {col}", params)]
