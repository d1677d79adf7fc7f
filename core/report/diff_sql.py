"""The numbers of a run diff as SQL aggregates, so a million common items are never read into
Python: `diff_runs` without statistics uses these; with statistics (which need per-item arrays) it
reads the common-item frame as before.

One GROUP BY over the common items (run A's predictions `p` joined with run B's `pb`, the items
only when a slice or a filter needs them) gives, per combination of labels, categories and
"right" flags (`core.query.right_sql`, the one definition), the counts and score sums that the
outcome tables, the slice deltas and the category changes add up. The largest changes are one
ORDER BY … LIMIT; only their items' texts are read.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.query import DIMENSIONS, Filter, build, right_sql

__all__ = [
    "Group", "category_counts", "common_groups", "largest_changes", "outcome_counts", "run_counts", "slice_rows",
    "varying_dimensions",
]


@dataclass(frozen=True, slots=True)
class Group:
    """Common items sharing their labels, both categories and both runs' "right" flags."""

    labels: dict[str, str | None]  # the dimensions asked for (others: not read)
    category_a: str | None
    category_b: str | None
    right: dict[str, tuple[bool, bool]]  # criterion → (A right, B right)
    answered_a: bool  # not a refusal
    answered_b: bool
    items: int
    em_a: int  # sums of EM (missing: 0)
    em_b: int
    f1_a: float  # sums of F1 (missing: 0)
    f1_b: float
    f1_recall_a: float  # sums of F1-recall (missing: 0)
    f1_recall_b: float
    has_em_a: int  # items with an EM
    has_em_b: int


def varying_dimensions(conn: sqlite3.Connection, dataset_id: int) -> tuple[list[str], dict[str, str]]:
    """Dimensions whose value differs between the dataset's items (a GROUP BY needs them), and
    those with one value on every item (a slice equal to overall: no item needs reading). A
    dimension without values is in neither. Each answer is an index seek or two."""
    varying: list[str] = []
    constant: dict[str, str] = {}
    for d in DIMENSIONS:  # fixed names: the only way a column name enters SQL
        lo = conn.execute(f"SELECT MIN({d}) FROM items WHERE dataset_id = ?", (dataset_id,)).fetchone()[0]
        if lo is None:
            continue  # MIN skips NULLs: no item has a value
        hi = conn.execute(f"SELECT MAX({d}) FROM items WHERE dataset_id = ?", (dataset_id,)).fetchone()[0]
        gap = conn.execute(
            f"SELECT 1 FROM items WHERE dataset_id = ? AND {d} IS NULL LIMIT 1", (dataset_id,)
        ).fetchone()
        if lo == hi and gap is None:
            constant[d] = lo
        else:
            varying.append(d)
    return varying, constant


def _restrict(conn: sqlite3.Connection, within: Filter | None, params: list[Any]) -> str:
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
        restrict = _restrict(conn, within, params)
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


def _from(dataset_id: int, within: Filter | None, join_items: bool, conn: sqlite3.Connection,
          params: list[Any]) -> str:
    """FROM/WHERE of the common items: A's predictions read in item order from their score index,
    B's looked up in theirs; the items joined only when needed (appends the parameters)."""
    sql = (
        " FROM predictions p INDEXED BY predictions_scores"
        " JOIN predictions pb INDEXED BY predictions_scores ON pb.run_id = ? AND pb.item_id = p.item_id"
    )
    if join_items or within is not None:
        sql += " JOIN items i ON i.id = p.item_id"
    sql += " WHERE p.run_id = ?"
    if join_items or within is not None:
        sql += " AND i.dataset_id = ?"
        params.append(dataset_id)
        sql += _restrict(conn, within, params)
    return sql


def common_groups(
    conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int, *, threshold: float,
    dimensions: list[str], within: Filter | None = None,
) -> list[Group]:
    """The common items of runs A and B (of `within`'s items) grouped as `Group` says, by EM and by
    the F1-style score ≥ `threshold`, with the labels of `dimensions`."""
    params: list[Any] = []
    flags = [right_sql(side, t, params) for t in (None, threshold) for side in ("p", "pb")]
    labels = [f"i.{d}" for d in dimensions if d in DIMENSIONS]
    keys = [*labels, "p.error_category", "pb.error_category", *flags,
            "COALESCE(p.refused, 0) = 0", "COALESCE(pb.refused, 0) = 0"]
    sums = (
        "COUNT(*), SUM(COALESCE(p.em, 0)), SUM(COALESCE(pb.em, 0)), TOTAL(COALESCE(p.f1, 0)), TOTAL(COALESCE(pb.f1, 0)),"
        " TOTAL(COALESCE(p.f1_recall, 0)), TOTAL(COALESCE(pb.f1_recall, 0)), COUNT(p.em), COUNT(pb.em)"
    )
    params.extend([run_b, run_a])
    sql = f"SELECT {', '.join(keys)}, {sums}" + _from(dataset_id, within, bool(labels), conn, params)
    sql += " GROUP BY " + ", ".join(str(k + 1) for k in range(len(keys)))
    out = []
    n = len(labels)
    for row in conn.execute(sql, params):
        cats, flag, rest = row[n:n + 2], row[n + 2:n + 6], row[n + 6:]
        out.append(Group(
            dict(zip(dimensions, row[:n], strict=True)), cats[0], cats[1],
            {"em": (bool(flag[0]), bool(flag[1])), "threshold": (bool(flag[2]), bool(flag[3]))},
            bool(rest[0]), bool(rest[1]), *rest[2:],
        ))
    return out


_SCORE = "(CASE WHEN COALESCE({a}.refused, 0) THEN 0.0 ELSE COALESCE({a}.f1, {a}.f1_recall, 0.0) END)"
"""The score of a change: F1 (F1-recall), a refusal 0 (as `diff._changes`)."""


def largest_changes(
    conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int, top: int, within: Filter | None = None,
) -> list[dict[str, Any]]:
    """The `top` common items whose score moved most (|B − A| > 1e-12; ties by item id), with
    their texts: one pass that keeps `top` rows, then `top` lookups."""
    if top <= 0:
        return []
    params: list[Any] = [run_b, run_a]
    delta = f"({_SCORE.format(a='pb')} - {_SCORE.format(a='p')})"
    sql = (f"SELECT p.item_id, {delta} AS delta" + _from(dataset_id, within, False, conn, params)
           + f" AND ABS({delta}) > 1e-12 ORDER BY ABS({delta}) DESC, p.item_id LIMIT ?")
    ids = [r[0] for r in conn.execute(sql, [*params, int(top)])]
    if not ids:
        return []
    rows = conn.execute(
        "SELECT i.id, i.key, i.question, p.text, pb.text, p.em, pb.em, p.f1, pb.f1, p.f1_recall, pb.f1_recall,"
        " p.refused, pb.refused FROM items i JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
        " JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?"
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
    out = {"fixed": 0, "broken": 0, "both_wrong": 0, "both_right": 0}
    cell = {(False, True): "fixed", (True, False): "broken", (False, False): "both_wrong", (True, True): "both_right"}
    for g in groups:
        out[cell[g.right[criterion]]] += g.items
    return out


def category_counts(groups: list[Group], criterion: str) -> dict[str, list[int]]:
    """Fixed by A's category, broken by B's ("—": none), categories with neither left out."""
    counts: dict[str, list[int]] = {}
    for g in groups:
        a, b = g.right[criterion]
        if b and not a:
            counts.setdefault(g.category_a or "—", [0, 0])[0] += g.items
        elif a and not b:
            counts.setdefault(g.category_b or "—", [0, 0])[1] += g.items
    return counts


def slice_rows(groups: list[Group], constant: dict[str, str], cdqa: bool) -> list[dict[str, Any]]:
    """`diff.SliceDelta` fields of every slice: overall, then each dimension's values in order."""
    blocks: list[tuple[str, dict[str, list[Group]]]] = [("overall", {"all": groups})] if groups else []
    for dim in DIMENSIONS:
        if dim in constant and groups:
            blocks.append((dim, {constant[dim]: groups}))
        elif groups and any(dim in g.labels and g.labels[dim] is not None for g in groups):
            by: dict[str, list[Group]] = {}
            for g in groups:
                by.setdefault(g.labels[dim] if g.labels[dim] is not None else "—", []).append(g)
            blocks.append((dim, dict(sorted(by.items()))))
    out: list[dict[str, Any]] = []
    for dim, values in blocks:
        for value, members in values.items():
            out.extend(_slice(dim, value, members, cdqa))
    return out


def _slice(dim: str, value: str, members: list[Group], cdqa: bool) -> list[dict[str, Any]]:
    items = sum(g.items for g in members)
    if cdqa:
        ans_a = sum(g.items for g in members if g.answered_a)
        ans_b = sum(g.items for g in members if g.answered_b)
        metrics = {
            "f1_recall": (_mean(math.fsum(g.f1_recall_a for g in members if g.answered_a), ans_a),
                          _mean(math.fsum(g.f1_recall_b for g in members if g.answered_b), ans_b), ans_a, ans_b),
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
