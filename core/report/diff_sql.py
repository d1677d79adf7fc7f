"""The numbers of a run diff as SQL aggregates, so a million common items are never read into
Python: the one engine of `diff_runs` (statistics, which resample items, read per-item arrays
besides: `diff.common_frame`).

One pass over the common items (run A's predictions `p` read from their score index, run B's `pb`
looked up in theirs, the items joined only when a slice or a filter needs them) sums counts,
scores and "right" flags (`core.query.right_sql`, the one definition) into the outcome tables and
slice deltas, joins the categories of what B fixed and broke (`group_concat`: no GROUP BY sort of
a million rows) and collects the items whose score swung fully (|Δ| = 1, the largest a change can
be): the first `top` of those by id are the largest changes, else one ORDER BY … LIMIT pass finds
them. Only the listed changes' texts are read. Slices of a dimension with one value on every item
equal overall (read from the dimension's index); others are a GROUP BY of that pass.

Score sums are added in SQL's order (`TOTAL`, then `math.fsum` over groups): a mean agrees with
the per-item mean to ~1e-12; `RunDiff.to_dict` rounds what `--json` prints (`diff.JSON_PLACES`).
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.query import DIMENSIONS, Filter, answered_sql, build, right_sql

__all__ = [
    "ADJUDICATED_TABLE", "adjudicated_rows",
    "Group", "category_counts", "common_groups", "largest_changes", "outcome_counts", "run_counts", "scored_with_em",
    "slice_rows", "varying_dimensions", "within_clause",
]


@dataclass(slots=True)
class Group:
    """Totals of the common items sharing the labels of the dimensions asked for (all of them
    when none are asked for): counts, score sums, the outcome counts of each criterion, the
    categories of what B fixed and broke, and the items whose score swung fully."""

    labels: dict[str, str | None]
    items: int
    em_a: int  # sums of EM (missing: 0)
    em_b: int
    f1_a: float  # sums of F1 (missing: 0)
    f1_b: float
    has_em_a: int  # items with an EM
    has_em_b: int
    answered_a: int  # items not refused
    answered_b: int
    f1_recall_a: float  # sums of F1-recall over answered items
    f1_recall_b: float
    right: dict[str, tuple[int, int, int]]  # criterion → (A right, B right, both right)
    fixed: Counter[str]  # by A's category ("—": none), by the criterion the groups were read with
    broken: Counter[str]  # by B's category
    swing: float | None  # the largest |Δ| of the change score (None: no top changes asked for)
    swung: list[int]  # item ids whose |Δ| ≥ 1


def varying_dimensions(conn: sqlite3.Connection, dataset_id: int) -> tuple[list[str], dict[str, str]]:
    """Dimensions whose value differs between the dataset's items (a GROUP BY needs them), and
    those with one value on every item (a slice equal to overall: no item needs reading). A
    dimension without values is in neither. Each answer comes from the dimension's index."""
    varying: list[str] = []
    constant: dict[str, str] = {}
    items = None
    for d in DIMENSIONS:  # fixed names: the only way a column name enters SQL
        where = f"FROM items WHERE dataset_id = ? AND {d} IS NOT NULL"  # NOT NULL: a partial index serves too
        lo = conn.execute(f"SELECT MIN({d}) {where}", (dataset_id,)).fetchone()[0]
        if lo is None:
            continue  # no item has a value
        hi = conn.execute(f"SELECT MAX({d}) {where}", (dataset_id,)).fetchone()[0]
        if lo == hi:
            if items is None:
                items = conn.execute("SELECT COUNT(*) FROM items WHERE dataset_id = ?", (dataset_id,)).fetchone()[0]
            if conn.execute(f"SELECT COUNT(*) {where}", (dataset_id,)).fetchone()[0] == items:
                constant[d] = lo
                continue
        varying.append(d)
    return varying, constant


def scored_with_em(conn: sqlite3.Connection, run_a: int, run_b: int) -> bool:
    """Whether both runs have an EM on some prediction (an index seek each): the first guess of
    `diff_runs`, which then checks it on the common items."""
    return all(
        conn.execute("SELECT 1 FROM predictions WHERE run_id = ? AND em IS NOT NULL LIMIT 1", (r,)).fetchone()
        for r in (run_a, run_b)
    )


def within_clause(conn: sqlite3.Connection, within: Filter | None, params: list[Any]) -> str:
    """` AND i.id IN (…)` for the items a filter selects (its parameters appended); "" for None."""
    if within is None:
        return ""
    sql, p = build(conn, within)
    params.extend(p)
    return f" AND i.id IN (SELECT i.id {sql})"


def run_counts(
    conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int, within: Filter | None,
) -> tuple[int, int, int]:
    """Items of the dataset (of `within`'s), and how many each run answers. Unrestricted, each is
    a count of an index (a run's predictions are all on its dataset's items: ingest keeps only
    those)."""
    if within is not None:
        params: list[Any] = [run_a, run_b, dataset_id]
        restrict = within_clause(conn, within, params)
        row = conn.execute(
            "SELECT COUNT(*),"
            " SUM(EXISTS (SELECT 1 FROM predictions p WHERE p.item_id = i.id AND p.run_id = ?)),"
            " SUM(EXISTS (SELECT 1 FROM predictions p WHERE p.item_id = i.id AND p.run_id = ?))"
            f" FROM items i WHERE i.dataset_id = ?{restrict}",
            params,
        ).fetchone()
        return int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)
    items = conn.execute("SELECT COUNT(*) FROM items WHERE dataset_id = ?", (dataset_id,)).fetchone()[0]
    a, b = (conn.execute("SELECT COUNT(*) FROM predictions WHERE run_id = ?", (r,)).fetchone()[0] for r in (run_a, run_b))
    return int(items), int(a), int(b)


ADJUDICATED_TABLE = "temp.adjudicated_predictions"
"""The two compared runs' prediction rows with accepted aliases counted as golds (`adjudicated_rows`)."""


@contextmanager
def adjudicated_rows(
    conn: sqlite3.Connection, runs: dict[int, dict[int, tuple[float, float, float, float]]],
) -> Iterator[str]:
    """A TEMP copy of the given runs' prediction rows with each rescored item's (em, f1, refused,
    f1_recall) put in, for the one engine to read instead of `predictions`: the table's name. Only
    this connection sees it; it is dropped on leaving (the official rows are never written)."""
    conn.execute(f"DROP TABLE IF EXISTS {ADJUDICATED_TABLE}")
    conn.execute(f"CREATE TABLE {ADJUDICATED_TABLE} AS SELECT * FROM predictions WHERE 0")
    try:
        for run_id, rescored in runs.items():
            conn.execute(f"INSERT INTO {ADJUDICATED_TABLE} SELECT * FROM predictions WHERE run_id = ?", (run_id,))
            conn.executemany(
                f"UPDATE {ADJUDICATED_TABLE} SET em = ?, f1 = ?, refused = ?, f1_recall = ? WHERE run_id = ? AND item_id = ?",
                [(em, f1, refused, f1r, run_id, item) for item, (em, f1, refused, f1r) in rescored.items()],
            )
        conn.execute(f"CREATE INDEX temp.adjudicated_predictions_scores ON adjudicated_predictions (run_id, item_id)")
        yield ADJUDICATED_TABLE
    finally:
        conn.execute(f"DROP TABLE IF EXISTS {ADJUDICATED_TABLE}")


def _from(dataset_id: int, within: Filter | None, join_items: bool, conn: sqlite3.Connection,
          params: list[Any], table: str = "predictions") -> str:
    """FROM/WHERE of the common items: A's predictions read in item order from their score index,
    B's looked up in theirs; the items joined only when needed (appends the parameters). `table`:
    where the rows are read (`adjudicated_rows`' copy instead of the official scores)."""
    hint = " INDEXED BY predictions_scores" if table == "predictions" else ""
    sql = (
        f" FROM {table} p{hint}"
        f" JOIN {table} pb{hint} ON pb.run_id = ? AND pb.item_id = p.item_id"
    )
    if join_items or within is not None:
        sql += " JOIN items i ON i.id = p.item_id"
    sql += " WHERE p.run_id = ?"
    if join_items or within is not None:
        sql += " AND i.dataset_id = ?"
        params.append(dataset_id)
        sql += within_clause(conn, within, params)
    return sql


def common_groups(
    conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int, *, threshold: float,
    dimensions: list[str], criterion: str, within: Filter | None = None, changes: bool = True,
    table: str = "predictions",
) -> list[Group]:
    """The common items of runs A and B (of `within`'s items) as `Group`s, one per combination of
    `dimensions` values: one pass over A's score index, each item's B looked up in B's, no GROUP
    BY sort without dimensions. Categories count by `criterion` ("em" | "threshold"); `changes`
    False leaves the change scores out."""
    params: list[Any] = []
    cut = {"em": None, "threshold": threshold}[criterion]

    def right(side: str, t: float | None) -> str:  # right_sql appends its parameter: call in text order
        return right_sql(side, t, params)

    labels = [f"i.{d}" for d in dimensions if d in DIMENSIONS]
    answered = {side: answered_sql(side) for side in ("p", "pb")}
    aggs = [
        *labels, "COUNT(*)", "SUM(p.em)", "SUM(pb.em)", "TOTAL(p.f1)", "TOTAL(pb.f1)", "COUNT(p.em)", "COUNT(pb.em)",
        f"SUM({answered['p']})", f"SUM({answered['pb']})",
        f"TOTAL(CASE WHEN {answered['p']} THEN p.f1_recall END)", f"TOTAL(CASE WHEN {answered['pb']} THEN pb.f1_recall END)",
    ]
    for t in (None, threshold):
        aggs += [f"SUM({right('p', t)})", f"SUM({right('pb', t)})", f"SUM({right('p', t)} AND {right('pb', t)})"]
    aggs.append(f"group_concat(CASE WHEN {right('pb', cut)} AND NOT {right('p', cut)} THEN p.error_category END, char(31))")
    aggs.append(f"group_concat(CASE WHEN {right('p', cut)} AND NOT {right('pb', cut)} THEN pb.error_category END, char(31))")
    if changes:
        aggs += [f"MAX(ABS({_DELTA}))", f"group_concat(CASE WHEN ABS({_DELTA}) >= 1.0 THEN p.item_id END)"]
    params.extend([run_b, run_a])
    sql = f"SELECT {', '.join(aggs)}" + _from(dataset_id, within, bool(labels), conn, params, table)
    if labels:
        sql += " GROUP BY " + ", ".join(str(k + 1) for k in range(len(labels)))
    return [_group(dict(zip(dimensions, row[:len(labels)], strict=True)), row[len(labels):], criterion, changes)
            for row in conn.execute(sql, params) if row[len(labels)]]


def _group(labels: dict[str, str | None], row: tuple[Any, ...], criterion: str, changes: bool) -> Group:
    n, em_a, em_b, f1_a, f1_b, has_a, has_b, ans_a, ans_b, f1r_a, f1r_b = row[:11]
    cells = [int(v or 0) for v in row[11:17]]
    right = {"em": (cells[0], cells[1], cells[2]), "threshold": (cells[3], cells[4], cells[5])}
    a_right, b_right, both = right[criterion]
    swing, swung = row[19:21] if changes else (None, None)
    return Group(
        labels, n, int(em_a or 0), int(em_b or 0), f1_a, f1_b, has_a, has_b, int(ans_a or 0), int(ans_b or 0),
        f1r_a, f1r_b, right,
        _categories(row[17], b_right - both), _categories(row[18], a_right - both), swing,
        [int(i) for i in swung.split(",")] if swung else [],
    )


def _categories(joined: str | None, total: int) -> Counter[str]:
    """Categories joined by SQL (a missing one is left out by group_concat: counted as "—")."""
    counts = Counter(joined.split("\x1f")) if joined else Counter()
    if total > counts.total():
        counts["—"] += total - counts.total()
    return counts


_SCORE = "(CASE WHEN COALESCE({a}.refused, 0) THEN 0.0 ELSE COALESCE({a}.f1, {a}.f1_recall, 0.0) END)"
"""The score of a change: F1 (F1-recall), a refusal 0 (as `diff._changes`)."""
_DELTA = f"({_SCORE.format(a='pb')} - {_SCORE.format(a='p')})"


def largest_changes(
    conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int, top: int, within: Filter | None = None,
    groups: list[Group] | None = None, table: str = "predictions", ids: list[int] | None = None,
) -> list[dict[str, Any]]:
    """The `top` common items whose score moved most (|B − A| > 1e-12; ties by item id), with
    their texts. When `groups` hold `top` full swings (|Δ| = 1, the largest any change is) those
    are the first `top` of them by id; else one pass keeps `top` rows. Then `top` lookups.
    `ids`: those items, already found (`diff_arrays.largest_ids`)."""
    if top <= 0:
        return []
    swung = [i for g in groups or [] for i in g.swung]
    if ids is not None:
        ids = ids[:top]
    elif groups and max((g.swing or 0.0) for g in groups) == 1.0 and len(swung) >= top:
        ids = heapq.nsmallest(top, swung)
    else:
        params: list[Any] = [run_b, run_a]
        sql = ("SELECT p.item_id" + _from(dataset_id, within, False, conn, params, table)
               + f" AND ABS({_DELTA}) > 1e-12 ORDER BY ABS({_DELTA}) DESC, p.item_id LIMIT ?")
        ids = [r[0] for r in conn.execute(sql, [*params, int(top)])]
    if not ids:
        return []
    rows = conn.execute(
        "SELECT i.id, i.key, i.question, p.text, pb.text, p.em, pb.em, p.f1, pb.f1, p.f1_recall, pb.f1_recall,"
        " p.refused, pb.refused FROM items i"
        f" JOIN {table} p ON p.item_id = i.id AND p.run_id = ? JOIN {table} pb ON pb.item_id = i.id AND pb.run_id = ?"
        f" WHERE i.id IN ({', '.join('?' * len(ids))})",
        [run_a, run_b, *ids],
    ).fetchall()
    by_id = {r[0]: r for r in rows}
    return [_change(by_id[i]) for i in ids]


def _change(r: tuple[Any, ...]) -> dict[str, Any]:
    """One row as `diff.ItemChange` fields; scores as the frame computes them (floats)."""
    item_id, key, question, text_a, text_b, em_a, em_b, f1_a, f1_b, f1r_a, f1r_b, ref_a, ref_b = r
    ref_a = None if ref_a is None else bool(ref_a)
    ref_b = None if ref_b is None else bool(ref_b)
    score_a = 0.0 if ref_a else float(_first(f1_a, f1r_a))
    score_b = 0.0 if ref_b else float(_first(f1_b, f1r_b))
    return {
        "item_id": item_id, "key": key, "question": question, "prediction_a": text_a, "prediction_b": text_b,
        "score_a": score_a, "score_b": score_b, "delta": score_b - score_a,
        "em_a": em_a, "em_b": em_b, "refused_a": ref_a, "refused_b": ref_b,
    }


def _first(*values: float | None) -> float:
    return next((v for v in values if v is not None), 0.0)


def outcome_counts(groups: list[Group], criterion: str) -> dict[str, int]:
    """The 2×2 table of one criterion ("em" | "threshold"): fixed, broken, both wrong, both right."""
    n = sum(g.items for g in groups)
    a_right, b_right, both = (sum(g.right[criterion][k] for g in groups) for k in range(3))
    return {"fixed": b_right - both, "broken": a_right - both, "both_wrong": n - a_right - b_right + both,
            "both_right": both}


def category_counts(groups: list[Group]) -> dict[str, list[int]]:
    """Fixed by A's category, broken by B's ("—": none), categories with neither left out."""
    fixed: Counter[str] = Counter()
    broken: Counter[str] = Counter()
    for g in groups:
        fixed.update(g.fixed)
        broken.update(g.broken)
    return {c: [fixed[c], broken[c]] for c in {*fixed, *broken}}


def slice_rows(groups: list[Group], constant: dict[str, str], cdqa: bool) -> list[dict[str, Any]]:
    """`diff.SliceDelta` fields of every slice: overall, then each dimension's values in order."""
    blocks: list[tuple[str, dict[str, list[Group]]]] = [("overall", {"all": groups})] if groups else []
    for dim in DIMENSIONS:
        if dim in constant and groups:
            blocks.append((dim, {constant[dim]: groups}))
        elif groups and any(dim in g.labels and g.labels[dim] is not None for g in groups):
            by: dict[str, list[Group]] = {}
            for g in groups:
                by.setdefault(label if (label := g.labels[dim]) is not None else "—", []).append(g)
            blocks.append((dim, dict(sorted(by.items()))))
    out: list[dict[str, Any]] = []
    for dim, values in blocks:
        for value, members in values.items():
            out.extend(_slice(dim, value, members, cdqa))
    return out


def _slice(dim: str, value: str, members: list[Group], cdqa: bool) -> list[dict[str, Any]]:
    items = sum(g.items for g in members)
    if cdqa:
        ans_a = sum(g.answered_a for g in members)
        ans_b = sum(g.answered_b for g in members)
        metrics = {
            "f1_recall": (_mean(math.fsum(g.f1_recall_a for g in members), ans_a),
                          _mean(math.fsum(g.f1_recall_b for g in members), ans_b), ans_a, ans_b),
            "answer_rate": (_mean(ans_a, items), _mean(ans_b, items), items, items),
        }
    else:
        metrics = {
            "em": (_mean(sum(g.em_a for g in members), items), _mean(sum(g.em_b for g in members), items), items, items),
            "f1": (_mean(math.fsum(g.f1_a for g in members), items), _mean(math.fsum(g.f1_b for g in members), items),
                   items, items),
        }
    return [
        {"dimension": dim, "value": value, "metric": m, "items": items, "a": a, "b": b,
         "delta": None if a is None or b is None else b - a, "n_a": n_a, "n_b": n_b}
        for m, (a, b, n_a, n_b) in metrics.items()
    ]


def _mean(total: float, n: int) -> float | None:
    """A mean ×100 as the frame's (None over no items)."""
    return None if n == 0 else total / n * 100
