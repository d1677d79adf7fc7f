"""The per-item arrays a diff's statistics resample, as numpy: read from SQL in chunks (a million
common items are a few arrays of numbers, never a frame of Python objects), or taken from a
common-item frame (`diff.common_frame`, e.g. re-scored with adjudications, or the slice finder's
frame with facet columns).

A dimension travels as integer codes and their labels (a missing value is "—", as on screen), so
a slice's mask is one comparison of a code array.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from qa_inspect.core.query import Filter
from qa_inspect.core.stats import give_back_free_memory
from qa_inspect.core.store import integer_texts, scaled_score_sql, scores_from_integers

from . import diff_sql
from .metrics import DIMENSIONS

if TYPE_CHECKING:  # imported where a frame is given (0.12 s of every `table --ci`, which gives none)
    import polars as pl

__all__ = ["MISSING", "SCORES", "PairArrays", "read_pair_arrays"]

MISSING = "—"
"""The label of items without a value of a dimension."""

SCORES = ("em_a", "em_b", "f1_a", "f1_b", "f1_recall_a", "f1_recall_b")
"""The score columns read for both runs (None in the store → NaN)."""


@dataclass(frozen=True, slots=True)
class PairArrays:
    """The items both runs answer, one entry each in id order."""

    item_ids: np.ndarray  # int64
    contexts: np.ndarray  # int64 passage id, −1 for none
    scores: Mapping[str, np.ndarray]  # each of SCORES: float64, NaN where the store holds NULL
    answered_a: np.ndarray  # bool: not a refusal
    answered_b: np.ndarray
    dimensions: Mapping[str, tuple[np.ndarray, tuple[str, ...]]]  # name → (int32 codes, labels)
    categories: tuple[np.ndarray, np.ndarray, tuple[str, ...]] | None = None
    """A's and B's error categories as int32 codes among the labels (−1: none), when read
    (`read_pair_arrays(categories=…)`): what the diff's counts of fixed and broken need."""

    @property
    def size(self) -> int:
        return len(self.item_ids)

    def mask(self, dimension: str, value: str) -> np.ndarray:
        """The items of one slice ("overall": all of them)."""
        if dimension == "overall":
            return np.ones(self.size, dtype=bool)
        codes, labels = self.dimensions[dimension]
        return codes == labels.index(value) if value in labels else np.zeros(self.size, dtype=bool)

    def with_passages(self, same: Mapping[int, int]) -> PairArrays:
        """The same arrays with each passage id replaced by the first one of the same text (`same`:
        `run_stats.passage_ids`), so questions on one unnamed paragraph resample together."""
        if not same:
            return self
        keys = np.fromiter(same.keys(), dtype=np.int64, count=len(same))
        firsts = np.fromiter(same.values(), dtype=np.int64, count=len(same))
        order = np.argsort(keys)
        keys, firsts = keys[order], firsts[order]
        at = np.minimum(np.searchsorted(keys, self.contexts), len(keys) - 1)
        return replace(self, contexts=np.where(keys[at] == self.contexts, firsts[at], self.contexts))

    @staticmethod
    def from_frame(frame: pl.DataFrame, dimensions: Iterable[str]) -> PairArrays:
        """From a common-item frame (columns `item_id`, `context_id`, SCORES, `refused_a/_b` and
        each of `dimensions`)."""
        import polars as pl  # the caller has it: it made the frame

        dims: dict[str, tuple[np.ndarray, tuple[str, ...]]] = {}
        for name in dimensions:
            labels, codes = np.unique(frame[name].cast(pl.String).fill_null(MISSING).to_numpy().astype(str),
                                      return_inverse=True)
            dims[name] = (codes.astype(np.int32).reshape(-1), tuple(str(v) for v in labels))
        return PairArrays(
            frame["item_id"].cast(pl.Int64).to_numpy(),
            frame["context_id"].cast(pl.Int64).fill_null(-1).to_numpy(),
            {s: frame[s].cast(pl.Float64).fill_null(float("nan")).to_numpy() for s in SCORES},
            (~frame["refused_a"].fill_null(False)).to_numpy(), (~frame["refused_b"].fill_null(False)).to_numpy(),
            dims,
        )


def _int_expr(expr: str) -> str:
    """An integer column's SQL for the text read: NULL as −1 (read as NaN in a float
    column: EM is 0 or 1)."""
    return f"COALESCE(CAST({expr} AS INTEGER), -1)"


def _score_column(conn: sqlite3.Connection, table: str, column: str, run: int, raw: np.ndarray, inexact: np.ndarray,
                  keys: np.ndarray, order: np.ndarray | None) -> np.ndarray:
    """A score column from its two texts, put in `order` (`store.scores_from_integers`; `keys`:
    the item ids, sorted)."""
    return scores_from_integers(conn, table, column, run, raw if order is None else raw[order], inexact, keys)


def _em_column(raw: np.ndarray, order: np.ndarray | None) -> np.ndarray:
    """EM (0 or 1; −1: NULL → NaN) as floats, put in `order`."""
    if order is not None:
        raw = raw[order]
    return np.where(raw < 0, np.nan, raw.astype(np.float64))


_PAIR_SQL = """FROM items i
JOIN {table} pa ON pa.item_id = i.id AND pa.run_id = ?
JOIN {table} pb ON pb.item_id = i.id AND pb.run_id = ?
WHERE i.dataset_id = ?{restrict}"""


def _code(dimension: str, labels: Sequence[str], params: list[Any]) -> str:
    """`CASE …`: the item's position among `labels` (NULL is `MISSING`; −1 for none of them), so
    the row carries a small integer, not a string."""
    if dimension not in DIMENSIONS:  # the only way a column name enters SQL: a fixed name
        raise ValueError(f"unknown dimension {dimension!r}")
    missing = labels.index(MISSING) if MISSING in labels else -1
    whens = "".join(f" WHEN i.{dimension} = ? THEN {k}" for k, v in enumerate(labels) if v != MISSING)
    params.extend(v for v in labels if v != MISSING)
    return f"CASE WHEN i.{dimension} IS NULL THEN {missing}{whens} ELSE -1 END"


def _category_code(alias: str, labels: Sequence[str], params: list[Any]) -> str:
    """`CASE …`: the position of the prediction's error category among `labels` (−1: none)."""
    column = {"": "error_category", "pa": "pa.error_category", "pb": "pb.error_category"}[alias]  # fixed names
    if not labels:
        return "-1"
    params.extend(labels)
    return f"CASE {column}{''.join(f' WHEN ? THEN {k}' for k in range(len(labels)))} ELSE -1 END"


def read_pair_arrays(
    conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int, within: Filter | None,
    dimensions: Mapping[str, Sequence[str]], *, metrics: Iterable[str] = ("em", "f1", "f1_recall"),
    table: str = "predictions", categories: Sequence[str] | None = None,
) -> PairArrays:
    """The common items of runs `run_a`, `run_b` (ids) of `within`'s items as arrays: the scores
    of `metrics` (the others NaN, one shared array), and per dimension (a column of `items`) the
    position of each item's value among the given labels (those of the slices to test). `table`:
    where the two runs' rows are (a re-scored copy, `diff_sql.adjudicated_rows`). Columns travel
    as texts of integers (`store.integer_texts`); without `within` on the official rows each run is read from
    its covering index and matched with the items in numpy (`_narrow_arrays`), else one join.
    `categories`: the error categories to code (`PairArrays.categories`; None: not read)."""
    wanted = [m for m in ("em", "f1", "f1_recall") if m in set(metrics)]
    if within is None and table == "predictions":
        return _narrow_arrays(conn, run_a, run_b, dataset_id, dimensions, wanted, categories)
    params: list[Any] = []
    dims = [_code(d, labels, params) for d, labels in dimensions.items()]
    if categories is not None:
        dims += [_category_code(alias, categories, params) for alias in ("pa", "pb")]
    params += [run_a, run_b, dataset_id]
    restrict = diff_sql.within_clause(conn, within, params)
    exprs = ["i.id", "COALESCE(i.context_id, -1)", "COALESCE(pa.refused, 0) + 2 * COALESCE(pb.refused, 0)", *dims]
    floats = [(m, side) for m in wanted for side in "ab"]
    for m, side in floats:
        exprs += [_int_expr(f"p{side}.{m}")] if m == "em" else list(scaled_score_sql(f"p{side}.{m}", "i.id"))
    texts = integer_texts(conn, exprs, _PAIR_SQL.format(table=table, restrict=restrict), params)
    ids = texts[0]
    order = np.argsort(ids, kind="stable")
    cols: dict[str, np.ndarray] = {"item_ids": ids[order], "contexts": texts[1][order],
                                   "refused": texts[2][order]}
    for k, d in enumerate([*dimensions, *(("category_a", "category_b") if categories is not None else ())]):
        cols[d] = texts[3 + k][order].astype(np.int32)
    at = 3 + len(dims)
    for m, side in floats:
        if m == "em":
            cols[f"em_{side}"], at = _em_column(texts[at], order), at + 1
        else:
            run = run_a if side == "a" else run_b
            cols[f"{m}_{side}"] = _score_column(conn, table, m, run, texts[at], texts[at + 1],
                                                cols["item_ids"], order)
            at += 2
    return _arrays(cols, wanted, dimensions, categories)


def _arrays(cols: Mapping[str, np.ndarray], wanted: Sequence[str],
            dimensions: Mapping[str, Sequence[str]], categories: Sequence[str] | None) -> PairArrays:
    """`PairArrays` of read columns (`refused`: A's refusal + 2 × B's)."""
    nan = np.full(len(cols["item_ids"]), np.nan)
    return PairArrays(
        cols["item_ids"], cols["contexts"], {s: cols.get(s, nan) for s in SCORES},
        cols["refused"] & 1 == 0, cols["refused"] & 2 == 0,
        {d: (cols[d], tuple(labels)) for d, labels in dimensions.items()},
        None if categories is None else (cols["category_a"], cols["category_b"], tuple(categories)),
    )


_CHUNK_ITEMS = 50_000
"""Items' ids a read spans at once: the texts SQLite builds stay about a megabyte a column (tens
of MB each at a million items read at once), as do the Python strings they are copied into, so
three reads at once hold little beside the arrays they fill (at a million items 50,000 ids a read
took no longer than 250,000)."""


def _id_ranges(conn: sqlite3.Connection, dataset_id: int) -> list[tuple[int, int]]:
    """[lo, hi) ranges of the dataset's item ids, about `_CHUNK_ITEMS` ids each."""
    lo, hi = conn.execute("SELECT MIN(id), MAX(id) FROM items WHERE dataset_id = ?", (dataset_id,)).fetchone()
    if lo is None:
        return []
    parts = max(1, -(-(hi - lo + 1) // _CHUNK_ITEMS))
    edges = np.linspace(lo, hi + 1, parts + 1).astype(np.int64).tolist()
    return [(int(a), int(b)) for a, b in pairwise(edges) if b > a]


def _chunked(conn: sqlite3.Connection, exprs: Sequence[str], rest: str, params: Sequence[Any], id_column: str,
             ranges: Sequence[tuple[int, int]], small: Sequence[int] = ()) -> list[np.ndarray]:
    """`integer_texts` over each range of `id_column` in turn, every column joined (those at the
    positions `small` as int32: codes and flags)."""
    out: list[list[np.ndarray]] = [[] for _ in exprs]
    for lo, hi in ranges:
        parsed = integer_texts(conn, exprs, f"{rest} AND {id_column} >= ? AND {id_column} < ?", [*params, lo, hi])
        for k, values in enumerate(parsed):
            out[k].append(values.astype(np.int32) if k in small else values)
        del parsed
    joined: list[np.ndarray] = []
    for k in range(len(out)):  # a column's parts let go once joined: one column held twice, not all
        parts, out[k] = out[k], []
        joined.append(np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32 if k in small else np.int64))
        del parts
    return joined


_EMPTY = np.zeros(0, dtype=np.int64)
"""What a parsed column is replaced with once used (its memory let go)."""


def _run_columns(conn: sqlite3.Connection, run: int, wanted: Sequence[str], categories: Sequence[str] | None,
                 ranges: Sequence[tuple[int, int]]) -> dict[str, np.ndarray]:
    """One run's item ids (sorted), refusals, scores of `wanted` and (given their labels) error
    categories, from its covering index (`predictions_scores`: no table row is visited)."""
    params: list[Any] = []
    exprs = ["item_id", "COALESCE(refused, 0)", *([_category_code("", categories, params)] if categories is not None
                                                   else [])]
    for m in wanted:
        exprs += [_int_expr(m)] if m == "em" else list(scaled_score_sql(m, "item_id"))
    columns = _chunked(conn, exprs, "FROM predictions INDEXED BY predictions_scores WHERE run_id = ?", (*params, run),
                       "item_id", ranges, small=(1, 2) if categories is not None else (1,))
    ids = columns[0]
    order = None if bool(np.all(ids[1:] > ids[:-1])) else np.argsort(ids, kind="stable")
    out = {"item_ids": ids if order is None else ids[order]}
    names = ["refused", *(["category"] if categories is not None else [])]
    for k, name in enumerate(names):
        out[name] = columns[1 + k] if order is None else columns[1 + k][order]
    at = 1 + len(names)
    for m in wanted:  # each parsed column let go once its scores are made
        if m == "em":
            out[m], columns[at], at = _em_column(columns[at], order), _EMPTY, at + 1
        else:
            out[m] = _score_column(conn, "predictions", m, run, columns[at], columns[at + 1], out["item_ids"], order)
            columns[at] = columns[at + 1] = _EMPTY
            at += 2
    return out


def _item_columns(conn: sqlite3.Connection, dataset_id: int, dimensions: Mapping[str, Sequence[str]],
                  ranges: Sequence[tuple[int, int]]) -> list[np.ndarray]:
    """The dataset's item ids, passages (−1: none) and each dimension's codes."""
    params: list[Any] = []
    dims = [_code(d, labels, params) for d, labels in dimensions.items()]
    return _chunked(conn, ["i.id", "COALESCE(i.context_id, -1)", *dims], "FROM items i WHERE i.dataset_id = ?",
                    [*params, dataset_id], "i.id", ranges, small=range(2, 2 + len(dims)))


def _side_by_side(conn: sqlite3.Connection, jobs: Sequence[Callable[[sqlite3.Connection], Any]]) -> list[Any]:
    """Each job's result, the jobs run at once on connections of their own to the database's file
    (SQLite reads without the GIL: the cores share the reads), or one after the other on `conn`
    for a database in memory or a connection in a transaction (others would not see its writes)."""
    path = next((r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "")
    if not path or conn.in_transaction or len(jobs) < 2:
        return [job(conn) for job in jobs]

    def run(job: Callable[[sqlite3.Connection], Any]) -> Any:
        side = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True)
        try:
            return job(side)
        finally:
            side.close()

    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(run, jobs))


def _common(a_ids: np.ndarray, b_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The ids both runs hold (both sorted, unique) and where each stands in `a_ids`, `b_ids`
    (None: every one, in order, as when two runs answer the same items: no index, no copy)."""
    if np.array_equal(a_ids, b_ids):
        return a_ids, None, None
    ids, in_a, in_b = np.intersect1d(a_ids, b_ids, assume_unique=True, return_indices=True)
    return ids, None if len(ids) == len(a_ids) else in_a, None if len(ids) == len(b_ids) else in_b


def _places(item_ids: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Where each of `ids` (sorted) stands among the dataset's `item_ids` (None: they are the
    same ids in order), and which of them are there (None: all)."""
    if np.array_equal(item_ids, ids):
        return None, None
    order = np.argsort(item_ids, kind="stable")
    at = np.zeros(len(ids), dtype=np.int64)
    if len(ids) and len(order):
        at = order[np.minimum(np.searchsorted(item_ids[order], ids), len(order) - 1)]
    keep = item_ids[at] == ids if len(order) else np.zeros(len(ids), dtype=bool)
    return at, None if bool(keep.all()) else keep


def _take(values: np.ndarray, at: np.ndarray | None) -> np.ndarray:
    """`values[at]`, or `values` itself when `at` is None (every entry, in order)."""
    return values if at is None else values[at]


def _narrow_arrays(conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int,
                   dimensions: Mapping[str, Sequence[str]], wanted: Sequence[str],
                   categories: Sequence[str] | None) -> PairArrays:
    """The arrays of every common item without joining: each run's scores from its covering
    index, the items' passages and dimension codes by id (three reads at once), matched in numpy
    (sorted ids). The join visited the items table and both indexes row by row. Each read column
    is let go as it is matched, and a column whose items are already the common ones in order is
    taken as it is (no copy): at a million items the reads' columns and the arrays are never all
    held at once."""
    ranges = _id_ranges(conn, dataset_id)
    a, b, items = _side_by_side(conn, [
        lambda c: _run_columns(c, run_a, wanted, categories, ranges),
        lambda c: _run_columns(c, run_b, wanted, categories, ranges),
        lambda c: _item_columns(c, dataset_id, dimensions, ranges),
    ])
    ids, in_a, in_b = _common(a.pop("item_ids"), b.pop("item_ids"))
    at, keep = _places(items[0], ids)
    items[0] = _EMPTY
    if keep is not None:  # a run's predictions are on its dataset's items (ingest keeps only those): a check
        every = np.arange(len(ids))
        ids, at = ids[keep], at[keep] if at is not None else None
        in_a, in_b = _take(every, in_a)[keep], _take(every, in_b)[keep]
    cols: dict[str, np.ndarray] = {"item_ids": ids, "contexts": _take(items[1], at),
                                   "refused": _take(a.pop("refused"), in_a) + 2 * _take(b.pop("refused"), in_b)}
    items[1] = _EMPTY
    for m in wanted:
        cols[f"{m}_a"], cols[f"{m}_b"] = _take(a.pop(m), in_a), _take(b.pop(m), in_b)
    if categories is not None:
        cols["category_a"] = _take(a.pop("category"), in_a).astype(np.int32, copy=False)
        cols["category_b"] = _take(b.pop("category"), in_b).astype(np.int32, copy=False)
    for k, d in enumerate(dimensions):
        cols[d], items[2 + k] = _take(items[2 + k], at).astype(np.int32, copy=False), _EMPTY
    del a, b, items
    give_back_free_memory()  # the reads' texts and parts, freed on three threads' heaps
    return _arrays(cols, wanted, dimensions, categories)
