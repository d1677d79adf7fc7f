"""A run diff's counts from the per-item arrays its statistics resample, so a comparison reads
its items once.

At a million common items the SQL engine (`diff_sql.common_groups`) spends seconds grouping the
rows by split, tag and answer type (a sort), while the statistics read the same items as arrays
anyway (`pair_arrays`). `comparison_arrays` reads them once with what the counts need besides
(every dimension's value codes, both runs' error categories, every score the runs hold), and
`array_groups` gives the very `diff_sql.Group`s the SQL engine gives: each total one
`numpy.bincount` over the items' combined code of the varying dimensions. Counts are the same
integers; score sums are added in item order instead of SQL's (the means agree to ~1e-12, as the
SQL engine's with the per-item mean). "Right" is `query.right_sql`'s rule (EM 1; not refused and
F1, else F1-recall, ≥ the threshold) and a change's score `diff_sql._SCORE`'s, on the same
numbers: tests hold the two engines equal on every diff of the sample and real data.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence

import numpy as np
from qa_inspect.core.query import Filter
from qa_inspect.core.store import require_run

from . import diff_sql
from .metrics import DIMENSIONS
from .pair_arrays import MISSING, PairArrays, read_pair_arrays

__all__ = ["array_groups", "comparison_arrays", "dimension_labels", "largest_ids"]


def dimension_labels(conn: sqlite3.Connection, dataset_id: int) -> dict[str, list[str]]:
    """Every value of each dimension a diff can slice by (`MISSING` last), from its index."""
    varying, constant = diff_sql.varying_dimensions(conn, dataset_id)
    out: dict[str, list[str]] = {}
    for d in DIMENSIONS:  # fixed names: the only way a column name enters SQL
        if d in constant:
            out[d] = [constant[d]]
        elif d in varying:
            values = conn.execute(f"SELECT DISTINCT {d} FROM items WHERE dataset_id = ? AND {d} IS NOT NULL"
                                  f" ORDER BY {d}", (dataset_id,)).fetchall()
            out[d] = [str(v[0]) for v in values] + [MISSING]
    return out


def _categories(conn: sqlite3.Connection, runs: Sequence[int]) -> list[str]:
    """The error categories the runs' predictions hold, sorted: one seek of the category index
    per category (a handful), not a pass over the predictions."""
    found: set[str] = set()
    for run in runs:
        at = conn.execute("SELECT MIN(error_category) FROM predictions WHERE run_id = ?", (run,)).fetchone()[0]
        while at is not None:
            found.add(at)
            at = conn.execute("SELECT MIN(error_category) FROM predictions WHERE run_id = ? AND error_category > ?",
                              (run, at)).fetchone()[0]
    return sorted(found)


def _metrics(conn: sqlite3.Connection, runs: Sequence[int]) -> list[str]:
    """The scores some prediction of the runs holds (one seek of each score's index): the others
    are NULL on every item, which their NaN arrays say without reading them."""
    return [m for m in ("em", "f1", "f1_recall") if any(
        conn.execute(f"SELECT 1 FROM predictions WHERE run_id = ? AND {m} IS NOT NULL LIMIT 1", (r,)).fetchone()
        for r in runs)]


def comparison_arrays(conn: sqlite3.Connection, run_a: str, run_b: str, *,
                      within: Filter | None = None) -> PairArrays | None:
    """The common items of runs A and B (of `within`'s items) as arrays holding what both the
    diff's counts (`array_groups`) and every slice's test (`diff_ahead.ahead_tests`) need: every
    score the runs hold, the refusals, each dimension's value codes (every value of the dataset)
    and both runs' error categories. None: runs a diff refuses (it says why)."""
    a, b = require_run(conn, run_a), require_run(conn, run_b)
    if a.dataset_id is None or a.dataset_id != b.dataset_id or a.id == b.id:
        return None
    return read_pair_arrays(conn, a.id, b.id, a.dataset_id, within, dimension_labels(conn, a.dataset_id),
                            metrics=_metrics(conn, (a.id, b.id)), categories=_categories(conn, (a.id, b.id)))


def _first(*values: np.ndarray) -> np.ndarray:
    """COALESCE of score arrays (NaN: NULL), 0 where all are NULL."""
    out = np.zeros(len(values[0]))
    for v in reversed(values):
        out = np.where(np.isnan(v), out, v)
    return out


def _right(arrays: PairArrays, side: str, threshold: float | None) -> np.ndarray:
    """`query.right_sql` per item: EM 1, or (threshold given) answered and F1 / F1-recall ≥ it."""
    s = arrays.scores
    if threshold is None:
        return s[f"em_{side}"] == 1
    answered = arrays.answered_a if side == "a" else arrays.answered_b
    return answered & (_first(s[f"f1_{side}"], s[f"f1_recall_{side}"]) >= float(threshold))


def _change_scores(arrays: PairArrays) -> np.ndarray:
    """B − A of a change's score (`diff_sql._SCORE`: F1, else F1-recall, else 0; a refusal 0)."""
    s = arrays.scores
    a = np.where(arrays.answered_a, _first(s["f1_a"], s["f1_recall_a"]), 0.0)
    b = np.where(arrays.answered_b, _first(s["f1_b"], s["f1_recall_b"]), 0.0)
    return b - a


def largest_ids(arrays: PairArrays, top: int) -> list[int]:
    """`diff_sql.largest_changes`' choice: the `top` items of largest |B − A| (> 1e-12), ties by id."""
    if top <= 0:
        return []
    moved = np.abs(_change_scores(arrays))
    at = np.flatnonzero(moved > 1e-12)
    if len(at) > top:  # only those at least as large as the top-th can be listed
        cut = np.partition(moved[at], len(at) - top)[len(at) - top]
        at = at[moved[at] >= cut]
    order = np.lexsort((arrays.item_ids[at], -moved[at]))[:top]
    return [int(i) for i in arrays.item_ids[at[order]]]


_MAX_GROUPS = 1 << 20
"""Combinations of dimension values counted at most (bincount cells); beyond, SQL groups."""


def _group_keys(arrays: PairArrays, varying: Sequence[str]) -> tuple[np.ndarray, list[int]] | None:
    """Each item's combined code of the varying dimensions and each dimension's number of labels
    (None: a dimension or an item's value is not among the labels read, or too many
    combinations: the arrays cannot say)."""
    key = np.zeros(arrays.size, dtype=np.int64)
    sizes: list[int] = []
    for d in varying:
        if d not in arrays.dimensions:
            return None
        codes, labels = arrays.dimensions[d]
        if (len(codes) and int(codes.min()) < 0) or int(np.prod([*sizes, len(labels)])) > _MAX_GROUPS:
            return None
        key = key * len(labels) + codes
        sizes.append(len(labels))
    return key, sizes


def _labels_of(arrays: PairArrays, varying: Sequence[str], sizes: Sequence[int], g: int) -> dict[str, str | None]:
    """A group's values (None for items without one, as SQL gives them) from its combined code."""
    codes: list[int] = []
    for n in reversed(sizes):
        g, c = divmod(g, n)
        codes.append(c)
    out: dict[str, str | None] = {}
    for d, c in zip(varying, reversed(codes), strict=True):
        value = arrays.dimensions[d][1][c]
        out[d] = None if value == MISSING else value
    return out


def array_groups(arrays: PairArrays, varying: Sequence[str], *, threshold: float,
                 criterion: str) -> list[diff_sql.Group] | None:
    """`diff_sql.common_groups(…, dimensions=varying, criterion=criterion, changes=False)` from
    arrays read by `comparison_arrays` (module doc); None when the arrays cannot say (no error
    categories read, a dimension or a value missing): the caller asks SQL."""
    keys = _group_keys(arrays, varying)
    if keys is None or arrays.categories is None:
        return None
    key, sizes = keys
    size = int(np.prod(sizes)) if sizes else 1

    def total(weights: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(key, weights=weights, minlength=size)

    s = arrays.scores
    answered = {"a": arrays.answered_a, "b": arrays.answered_b}
    sums = {name: total(np.nan_to_num(s[name], nan=0.0)) for name in ("em_a", "em_b", "f1_a", "f1_b")}
    for side in "ab":
        sums[f"has_{side}"] = total(~np.isnan(s[f"em_{side}"]))
        sums[f"answered_{side}"] = total(answered[side])
        sums[f"recall_{side}"] = total(np.where(answered[side], np.nan_to_num(s[f"f1_recall_{side}"], nan=0.0), 0.0))
    right: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    changed: dict[str, np.ndarray] = {}
    for name, cut in (("em", None), ("threshold", threshold)):
        ra, rb = _right(arrays, "a", cut), _right(arrays, "b", cut)
        right[name] = (total(ra), total(rb), total(ra & rb))
        if name == criterion:
            changed = {"fixed": rb & ~ra, "broken": ra & ~rb}
    codes_a, codes_b, labels = arrays.categories
    names = [*labels, MISSING]  # code −1 (none) is counted as "—", as the SQL engine counts it
    width = len(names)
    by_cat = {
        outcome: np.bincount(key[m] * width + codes[m] % width, minlength=size * width).reshape(size, width)
        for (outcome, m), codes in zip(changed.items(), (codes_a, codes_b), strict=True)
    }
    counts = total()
    out = []
    for g in np.flatnonzero(counts):
        i = {k: int(v[g]) for k, v in sums.items() if not k.startswith(("f1", "recall"))}
        out.append(diff_sql.Group(
            _labels_of(arrays, varying, sizes, int(g)), int(counts[g]), i["em_a"], i["em_b"],
            float(sums["f1_a"][g]), float(sums["f1_b"][g]), i["has_a"], i["has_b"], i["answered_a"], i["answered_b"],
            float(sums["recall_a"][g]), float(sums["recall_b"][g]),
            {name: (int(x[g]), int(y[g]), int(z[g])) for name, (x, y, z) in right.items()},
            Counter({names[c]: int(n) for c, n in enumerate(by_cat["fixed"][g]) if n}),
            Counter({names[c]: int(n) for c, n in enumerate(by_cat["broken"][g]) if n}),
            None, [],
        ))
    return out
