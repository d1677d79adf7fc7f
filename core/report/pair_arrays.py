"""The per-item arrays a diff's statistics resample, as numpy: read from SQL in chunks (a million
common items are a few arrays of numbers, never a frame of Python objects), or taken from a
common-item frame (`diff.common_frame`, e.g. re-scored with adjudications, or the slice finder's
frame with facet columns).

A dimension travels as integer codes and their labels (a missing value is "—", as on screen), so
a slice's mask is one comparison of a code array.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from qa_inspect.core.query import Filter

from . import diff_sql
from .metrics import DIMENSIONS

__all__ = ["MISSING", "SCORES", "PairArrays", "read_pair_arrays"]

MISSING = "—"
"""The label of items without a value of a dimension."""

SCORES = ("em_a", "em_b", "f1_a", "f1_b", "f1_recall_a", "f1_recall_b")
"""The score columns read for both runs (None in the store → NaN)."""

_CHUNK = 100_000
"""Rows read at once (a few MB as tuples before they land in the arrays)."""


@dataclass(frozen=True, slots=True)
class PairArrays:
    """The items both runs answer, one entry each in id order."""

    item_ids: np.ndarray  # int64
    contexts: np.ndarray  # int64 passage id, −1 for none
    scores: Mapping[str, np.ndarray]  # each of SCORES: float64, NaN where the store holds NULL
    answered_a: np.ndarray  # bool: not a refusal
    answered_b: np.ndarray
    dimensions: Mapping[str, tuple[np.ndarray, tuple[str, ...]]]  # name → (int32 codes, labels)

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
        contexts = np.where(keys[at] == self.contexts, firsts[at], self.contexts)
        return PairArrays(self.item_ids, contexts, self.scores, self.answered_a, self.answered_b, self.dimensions)

    @staticmethod
    def from_frame(frame: pl.DataFrame, dimensions: Iterable[str]) -> PairArrays:
        """From a common-item frame (columns `item_id`, `context_id`, SCORES, `refused_a/_b` and
        each of `dimensions`)."""
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


_SQL = """
SELECT i.id, COALESCE(i.context_id, -1), COALESCE(pa.refused, 0) + 2 * COALESCE(pb.refused, 0){scores}{dims}
FROM items i
JOIN {table} pa ON pa.item_id = i.id AND pa.run_id = ?
JOIN {table} pb ON pb.item_id = i.id AND pb.run_id = ?
WHERE i.dataset_id = ?{restrict}
ORDER BY i.id
"""


def _code(dimension: str, labels: Sequence[str], params: list[Any]) -> str:
    """`CASE …`: the item's position among `labels` (NULL is `MISSING`; −1 for none of them), so
    the row carries a small integer, not a string (small integers are shared Python objects)."""
    if dimension not in DIMENSIONS:  # the only way a column name enters SQL: a fixed name
        raise ValueError(f"unknown dimension {dimension!r}")
    missing = labels.index(MISSING) if MISSING in labels else -1
    whens = "".join(f" WHEN i.{dimension} = ? THEN {k}" for k, v in enumerate(labels) if v != MISSING)
    params.extend(v for v in labels if v != MISSING)
    return f", CASE WHEN i.{dimension} IS NULL THEN {missing}{whens} ELSE -1 END"


def read_pair_arrays(
    conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int, within: Filter | None,
    dimensions: Mapping[str, Sequence[str]], *, metrics: Iterable[str] = ("em", "f1", "f1_recall"),
    table: str = "predictions", size: int | None = None,
) -> PairArrays:
    """The common items of runs `run_a`, `run_b` (ids) of `within`'s items, read `_CHUNK` rows at
    a time into arrays: the scores of `metrics` (the others NaN, one shared array), and per dimension (a column of
    `items`) the position of each item's value among the given labels (those of the slices to
    test). `table`: where the two runs' rows are (a re-scored copy, `diff_sql.adjudicated_rows`);
    `size`: how many rows to expect (the diff's common count: the arrays are filled in place)."""
    wanted = [m for m in ("em", "f1", "f1_recall") if m in set(metrics)]
    scores = "".join(f", pa.{m}, pb.{m}" for m in wanted)
    params: list[Any] = []
    dims = "".join(_code(d, labels, params) for d, labels in dimensions.items())
    params += [run_a, run_b, dataset_id]
    restrict = diff_sql.within_clause(conn, within, params)
    cursor = conn.execute(_SQL.format(scores=scores, dims=dims, table=table, restrict=restrict), params)
    names = ["item_ids", "contexts", "refused", *(f"{m}_{s}" for m in wanted for s in "ab"), *dimensions]
    kinds = [np.int64, np.int64, np.int8, *[np.float64] * (2 * len(wanted)), *[np.int32] * len(dimensions)]
    out = [np.empty(size if size is not None else _CHUNK, dtype=k) for k in kinds]
    at = 0
    while rows := cursor.fetchmany(_CHUNK):
        chunk = np.array(rows, dtype=np.float64).reshape(len(rows), len(names))  # None → NaN
        if at + len(rows) > len(out[0]):  # more than announced: grow (amortised)
            out = [np.concatenate([o, np.empty(max(len(o), len(rows)), o.dtype)]) for o in out]
        for k, o in enumerate(out):
            o[at:at + len(rows)] = chunk[:, k]
        at += len(rows)
    cols = dict(zip(names, (o[:at] for o in out), strict=True))
    nan = np.full(at, np.nan)
    return PairArrays(
        cols["item_ids"], cols["contexts"], {s: cols.get(s, nan) for s in SCORES},
        cols["refused"] & 1 == 0, cols["refused"] & 2 == 0,
        {d: (cols[d], tuple(labels)) for d, labels in dimensions.items()},
    )
