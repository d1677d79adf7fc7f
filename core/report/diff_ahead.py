"""A comparison's statistics computed beside its counts rather than after them.

The compare screen shows the counts of `diff_runs` first, then the intervals and p-values of its
slices (`diff_significance`). At a million items the counts are seconds of SQLite and the
statistics seconds of numpy; run one after the other they add up. The statistics need from the
diff only which slices it shows (and the outcome counts, for McNemar, which cost nothing), so
`ahead_tests` tests every slice the diff can show (every value of every dimension that occurs
among the common items, on the metrics of how the runs were scored) from the per-item arrays
alone, in a second worker while the counts are summed; `diff_significance(…, ahead=…)` then
picks the diff's rows. A row's numbers never depend on the rows beside it
(`stats.masked_tests`), so they are the ones computing after the diff gives. When the guess of
the slices misses one (the diff found other metrics), `diff_significance` computes as before.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from qa_inspect.core.query import Filter
from qa_inspect.core.store import data_stamp, require_run, stored_passage_firsts

from . import diff_sql
from .diff_arrays import dimension_labels
from .pair_arrays import MISSING, PairArrays, read_pair_arrays
from .run_stats import passage_ids
from .significance import PairTests, StatOptions, pair_tests

__all__ = ["AheadTests", "ahead_tests"]


@dataclass(frozen=True, slots=True)
class AheadTests:
    """Every slice's test of runs A and B on `within`'s items, before the diff is known."""

    run_a: str
    run_b: str
    within: Filter | None
    tests: PairTests


_PASSAGES: dict[tuple[str, int, str], dict[int, int]] = {}
"""`passage_ids` of a dataset by (database file, dataset, `data_stamp`): the same until a load
writes; a second comparison on the dataset (swapped runs, another run B) reads no passage text."""


def _file(conn: sqlite3.Connection) -> str | None:
    """The main database's file, or None (in memory, temporary)."""
    path = next((r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "")
    return path or None


def _passages_beside(conn: sqlite3.Connection, dataset_id: int) -> Callable[[], dict[int, int]]:
    """`passage_ids` of the dataset, started now: from the memo or the stored pairs
    (`store.stored_passage_firsts`, a row's read), else computed and stored on a second
    connection in a thread (SQLite sorts the passage texts while this thread reads the arrays:
    both in C, the GIL released), or else read when asked for. Call the result for the ids."""
    path = _file(conn)
    key = (path or "", dataset_id, data_stamp(conn, dataset_id))
    if path is not None and key in _PASSAGES:
        return lambda: _PASSAGES[key]
    stored = stored_passage_firsts(conn, dataset_id)
    if stored is not None:
        return lambda: stored
    if path is None:
        return lambda: passage_ids(conn, dataset_id)
    out: list[dict[int, int]] = []

    def read() -> None:
        try:  # writable if the file is: the pairs are stored for every later comparison
            side = sqlite3.connect(f"{Path(path).as_uri()}?mode=rw", uri=True)
        except sqlite3.Error:
            side = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True)
        try:
            out.append(passage_ids(side, dataset_id))
        finally:
            side.close()

    worker = threading.Thread(target=read, daemon=True)
    worker.start()

    def result() -> dict[int, int]:
        worker.join()
        same = out[0] if out else passage_ids(conn, dataset_id)  # the thread failed: read here
        _PASSAGES[key] = same
        return same
    return result


def _slices(arrays: PairArrays, metrics: tuple[str, str]) -> list[tuple[str, str, str]]:
    """Overall and every value present among the common items (as `diff_sql.slice_rows` lists
    them), each with both metrics."""
    keys: list[tuple[str, str]] = [("overall", "all")] if arrays.size else []
    for d, (codes, labels) in arrays.dimensions.items():
        present = np.bincount(codes[codes >= 0], minlength=len(labels)) > 0
        if any(present[k] and v != MISSING for k, v in enumerate(labels)):
            keys += [(d, v) for k, v in enumerate(labels) if present[k]]
    return [(d, v, m) for d, v in keys for m in metrics]


def ahead_tests(
    conn: sqlite3.Connection, run_a: str, run_b: str, options: StatOptions | Callable[[int], StatOptions], *,
    within: Filter | None = None, stop: Callable[[], bool] | None = None, arrays: PairArrays | None = None,
) -> AheadTests | None:
    """The test of every slice `diff_runs(conn, run_a, run_b, within=within)` can show, on the
    official scores, without its counts (module doc). `options`: the settings, or a function of
    the number of common items giving them (the screen's resample count depends on it). None:
    runs a diff refuses (it says why), or `stop` said so. `arrays`: the common items as
    `diff_arrays.comparison_arrays` read them (for the counts too), else read here."""
    a, b = require_run(conn, run_a), require_run(conn, run_b)
    if a.dataset_id is None or a.dataset_id != b.dataset_id or a.id == b.id:
        return None
    has_em = diff_sql.scored_with_em(conn, a.id, b.id)  # the diff's first guess; a miss is caught later
    metrics = ("em", "f1") if has_em else ("f1_recall", "answer_rate")
    passages = _passages_beside(conn, a.dataset_id)
    if arrays is None:
        arrays = read_pair_arrays(conn, a.id, b.id, a.dataset_id, within, dimension_labels(conn, a.dataset_id),
                                  metrics=("em", "f1") if has_em else ("f1_recall",))
    arrays = arrays.with_passages(passages())
    settings = options if isinstance(options, StatOptions) else options(arrays.size)
    slices = _slices(arrays, metrics)
    held = [arrays]  # handed over, not kept here: pair_tests lets the arrays go once it has its rows
    del arrays
    tests = pair_tests(held.pop(), slices, options=settings, names=(run_a, run_b), stop=stop)
    return None if tests is None else AheadTests(run_a, run_b, within, tests)
