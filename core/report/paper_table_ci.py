"""A paper table's intervals: every cell's drawn on one shared resampling per dataset.

A cell's 95% interval is drawn as the leaderboard draws a run's (`run_stats.intervals_and_pairs`):
the dataset's resampling units (passages where its questions share them, else items:
`significance.resampling_unit("auto", …)`) are drawn once per resample on the dataset's own
stream (`significance.shared_stream`: named by the table's seed, the dataset and the unit, never
by a run), and every cell's per-unit sums are multiplied by the same counts (`stats.mean_totals`,
in blocks of resamples, never a resamples × units matrix at once). A cell's resampled mean is
its resampled total over the items it is counted over (its metric's items, on its column's
slice) divided by their resampled number; a row of runs from several datasets adds each
dataset's totals before dividing (a bootstrap stratified by dataset).

So a run's interval over a whole dataset is the leaderboard's for the same seed and resamples,
slices and rows of several runs are drawn by the same rule, and adding a run to a table changes
no other cell's interval. A hundred runs cost one read of their scores and one resampling.

The per-item values are the leaderboard's (`run_stats.DatasetItems`, `metric_values`), read per
run as arrays for the table's runs only (`table_items`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Protocol

import numpy as np
from qa_inspect.core import stats
from qa_inspect.core.metrics import uses_f1_recall
from qa_inspect.core.store import require_dataset

from .metrics import HUMAN
from .paper_table_sums import _key, _value_sql
from .run_stats import DatasetItems, item_arrays, metric_values, read_chunks
from .significance import StatOptions, clusters_for, resampling_unit, shared_stream

__all__ = ["INTERVAL_METRICS", "TableIntervals", "table_items"]

INTERVAL_METRICS = ("em", "f1", "f1_recall", "answer_rate")
"""The cell metrics that get an interval (counts and sample metrics do not)."""

def _items(conn: sqlite3.Connection, ds_id: int, by: str | None) -> tuple[np.ndarray, ...]:
    """The dataset's items as `run_stats.item_arrays` reads them, and each item's value of `by` as
    a column names it (one string object per value)."""
    ids, contexts, answerable, human_em, human_f1, values = item_arrays(conn, ds_id, _value_sql(by))
    labels: dict[str, str] = {}
    slices = np.empty(len(ids), object)
    slices[:] = [labels.setdefault(k, k) for k in (_key(by, v) for v in values)]
    return ids, contexts, answerable, human_em, human_f1, slices


_SCORES = ("predicted", "em", "f1", "refused", "f1_recall", "pass")
"""`dataset_items`' columns of a run."""

_READS = {"em": ("em",), "f1": ("f1",), "f1_recall": ("refused", "f1_recall"), "answer_rate": ("refused",)}
"""The prediction columns each metric's values are made of (besides whether the item has one)."""


def _run_scores(conn: sqlite3.Connection, run_id: int, ids: np.ndarray, names: Sequence[str]) -> dict[str, np.ndarray]:
    """One run's scores on the dataset's items as `dataset_items` holds them (a missing
    prediction or score 0), reading only the columns `names` (the others stay 0) from the
    predictions' covering index, each chunk flattened straight into one array (no per-row
    list: the read is most of an interval's cost)."""
    block = np.zeros((len(_SCORES), len(ids)))  # a row per column: a column never read is never touched
    sql = f"SELECT p.item_id{''.join(f', COALESCE(p.{c}, 0)' for c in names)} FROM predictions p WHERE p.run_id = ?"
    width = 1 + len(names)
    for rows in read_chunks(conn, sql, (run_id,)):
        got = np.fromiter(chain.from_iterable(rows), np.float64, len(rows) * width).reshape(-1, width)
        item = got[:, 0].astype(np.int64)
        at = np.minimum(np.searchsorted(ids, item), max(len(ids) - 1, 0))
        mine = (ids[at] == item) if len(ids) else np.zeros(len(item), bool)
        block[0, at[mine]] = 1.0
        for k, name in enumerate(names, start=1):
            block[_SCORES.index(name), at[mine]] = got[mine, k]
    return dict(zip(_SCORES, block, strict=True))


def table_items(conn: sqlite3.Connection, dataset: str, runs: Iterable[str], by: str | None = None,
                metrics: Iterable[str] = INTERVAL_METRICS) -> tuple[DatasetItems, np.ndarray]:
    """`run_stats.dataset_items` of `runs` only (the leaderboard's arrays, for a table's runs),
    with the scores `metrics` are made of (the others 0), and each item's value of the column
    dimension `by` ("all" without one). Not marked `sampled`: pass@1 has no table interval."""
    ds_id = require_dataset(conn, dataset)
    family, scorer = conn.execute("SELECT family, scorer FROM datasets WHERE id = ?", (ds_id,)).fetchone()
    ids, contexts, answerable, human_em, human_f1, slices = _items(conn, ds_id, by)
    cdqa = uses_f1_recall(scorer, family)
    names = sorted({c for m in metrics for c in _READS.get(m, ())}, key=_SCORES.index)
    wanted = sorted(set(runs) - {HUMAN})
    found = conn.execute(f"SELECT id, name, model FROM runs WHERE dataset_id = ? AND name IN ({', '.join('?' * len(wanted))})"
                         " ORDER BY name", (ds_id, *wanted)).fetchall()
    scores = {name: _run_scores(conn, run_id, ids, names) for run_id, name, _ in found}
    has = ~np.isnan(human_f1)
    human = None
    if has.any() and not cdqa:
        human = {"predicted": has.astype(np.float64), "em": np.nan_to_num(human_em, nan=0.0),
                 "f1": np.nan_to_num(human_f1, nan=0.0)}
    data = DatasetItems(dataset, family, scorer, ids, contexts, answerable, scores,
                        {name: model for _, name, model in found}, human)
    return data, slices


class TableCell(Protocol):
    """What an interval is set on (`paper_table.TableCell`): its values, and its intervals to fill."""

    values: dict[str, float | None]
    ci: dict[str, tuple[float, float]]


@dataclass(slots=True)
class _Rows:
    """One dataset's feature rows: which scores, metric and slice each is, filled in one matrix
    only when resampled (`matrix`)."""

    data: DatasetItems
    slices: np.ndarray
    rows: list[tuple[dict[str, np.ndarray], str, str | None, bool]] = field(default_factory=list)

    def add(self, runs: Sequence[str], metric: str, column: str | None) -> int | None:
        """The row of `metric` for `runs` together (one run over the union of their items; the
        human estimate: `HUMAN`) on slice `column` (None: every item); None when they have no scores."""
        if list(runs) == [HUMAN]:
            scores, human = self.data.human, True
        else:
            parts = [self.data.runs[r] for r in runs if r in self.data.runs]
            scores = parts[0] if len(parts) == 1 else _union(parts) if parts else None
            human = False
        if scores is None or (human and metric not in ("em", "f1")):
            return None
        self.rows.append((scores, metric, column, human))
        return len(self.rows) - 1

    def matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """`(rows, items)` twice: each row's per-item values in points and the items it is
        counted over (its metric's, on its slice), as the leaderboard has them (`metric_values`)."""
        n = len(self.data.item_ids)
        values, over = np.empty((len(self.rows), n)), np.empty((len(self.rows), n), dtype=bool)
        for k, (scores, metric, column, human) in enumerate(self.rows):
            values[k], over[k] = metric_values(self.data, scores, metric, human=human)
            if column is not None:
                over[k] &= self.slices == column
        return values, over


def _union(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Runs answering different items of one dataset as one run: each item's scores are those of
    the run that answered it (the others hold 0 there)."""
    return {k: np.sum([p[k] for p in parts], axis=0) for k in parts[0]}


Parts = Mapping[str, Sequence[str]]
"""Dataset → the runs of a table row in it (the human estimate: `HUMAN`)."""


class TableIntervals:
    """The cells of a table whose intervals are wanted, noted while the table is built
    (`note`), then all drawn at once (`draw`): one read and one resampling per dataset."""

    def __init__(self, conn: sqlite3.Connection, by: str | None, *, seed: int, resamples: int,
                 adjudicated: bool = False) -> None:
        self.conn, self.by, self.adjudicated = conn, by, adjudicated
        self.options = StatOptions(seed=seed, resamples=resamples).check()
        self._noted: dict[int, tuple[TableCell, Parts, str | None]] = {}
        self.units: dict[str, str] = {}
        """Dataset → the unit its intervals resampled ("passage" or "item"), once drawn."""

    def note(self, cell: TableCell, parts: Parts, column: str | None) -> None:
        """`cell` is made of `parts`, on item slice `column` (None: every item)."""
        self._noted[id(cell)] = (cell, parts, column)

    def draw(self, cells: Iterable[TableCell]) -> None:
        """Set `ci` of each of `cells` that was noted (the others were not kept in the table)."""
        kept = [self._noted[id(c)] for c in cells if id(c) in self._noted]
        kept = list({id(c): (c, p, col) for c, p, col in kept}.values())  # a human cell sits in every column
        rows = self._rows(kept)
        asks: list[tuple[TableCell, str, list[tuple[str, int]]]] = []
        for cell, parts, column in kept:
            for metric, value in cell.values.items():
                if metric not in INTERVAL_METRICS or value is None:
                    continue
                at = [(ds, rows[ds].add(runs, metric, column)) for ds, runs in parts.items() if ds in rows]
                found = [(ds, k) for ds, k in at if k is not None]
                if found:
                    asks.append((cell, metric, found))
        totals = {ds: self._totals(ds, r) for ds, r in rows.items() if r.rows}
        if not asks:
            return
        num = np.array([sum(totals[ds][0][k] for ds, k in found) for _, _, found in asks])
        den = np.array([sum(totals[ds][1][k] for ds, k in found) for _, _, found in asks])
        low, high = stats.mean_bounds(num, den)
        for (cell, metric, _), lo, hi in zip(asks, low, high, strict=True):
            if np.isfinite(lo) and np.isfinite(hi):
                cell.ci[metric] = (float(lo), float(hi))

    def _rows(self, kept: Sequence[tuple[TableCell, Parts, str | None]]) -> dict[str, _Rows]:
        """Each dataset the cells draw on, read once for the runs they name."""
        runs: dict[str, set[str]] = {}
        metrics = {m for cell, _, _ in kept for m, v in cell.values.items() if v is not None}
        for _, parts, _ in kept:
            for ds, names in parts.items():
                runs.setdefault(ds, set()).update(names)
        out = {}
        for ds in sorted(runs):
            data, slices = table_items(self.conn, ds, runs[ds], self.by, metrics)
            if self.adjudicated:
                from .adjudicated import adjudicated_items

                data = adjudicated_items(self.conn, ds, data)
            out[ds] = _Rows(data, slices)
        return out

    def _totals(self, ds: str, rows: _Rows) -> tuple[np.ndarray, np.ndarray]:
        """The dataset's rows resampled on its shared stream: `(rows, resamples)` totals and counts."""
        data = rows.data
        unit = resampling_unit("auto", data.contexts)
        self.units[ds] = unit
        values, over = rows.matrix()
        rows.rows.clear()  # the runs' arrays are in the matrix now: let them go before resampling
        data.runs.clear()
        return stats.mean_totals(values, over, clusters_for(unit, data.contexts, data.item_ids),
                                 resamples=self.options.resamples, rng=shared_stream(self.options, ds, unit))
