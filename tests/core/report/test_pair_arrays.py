"""The per-item arrays of a comparison, read as texts of integers built by SQLite: on the sample
runs (and on a copy where some scores are too small to scale exactly) every array equals the
common-item frame's, with and without a filter, from the official rows and from a re-scored copy;
the read of each run's index matched in numpy equals the join in every value, dtype and shape."""

from __future__ import annotations

import platform
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qa_inspect.core.query import Filter
from qa_inspect.core.report import PairArrays, comparison_arrays, read_pair_arrays
from qa_inspect.core.report.diff import common_frame
from qa_inspect.core.report.diff_sql import adjudicated_rows
from qa_inspect.core.stats import give_back_free_memory
from qa_inspect.core.store import require_run

from tests.helpers import loaded_sample

DIMS = ("split", "tag", "answer_type", "answerable")


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    c = loaded_sample(tmp_path_factory.mktemp("pair_arrays"), sample_runs)
    # scores below 2⁻¹⁰ do not scale exactly to integers: they are read again as floats
    for run, f1, f1r in (("bert-base-chinese", 1e-4, None), ("qwen-7b-chat", None, 1 / 3 * 2.0**-20)):
        ref = require_run(c, run)
        column, value = ("f1", f1) if f1 is not None else ("f1_recall", f1r)
        c.execute(f"UPDATE predictions SET {column} = ? WHERE id IN (SELECT id FROM predictions WHERE run_id = ?"
                  f" AND {column} IS NOT NULL ORDER BY item_id LIMIT 3)", (value, ref.id))
    c.commit()
    yield c
    c.close()


def _labels(conn: sqlite3.Connection, dataset_id: int) -> dict[str, list[str]]:
    out = {}
    for d in DIMS:
        values = [r[0] for r in conn.execute(f"SELECT DISTINCT {d} FROM items WHERE dataset_id = ? AND {d} IS NOT NULL"
                                             f" ORDER BY {d}", (dataset_id,))]
        if values:
            out[d] = [*values, "—"]
    return out


def _same(read: PairArrays, expected: PairArrays) -> None:
    assert np.array_equal(read.item_ids, expected.item_ids)
    assert np.array_equal(read.contexts, expected.contexts)
    assert np.array_equal(read.answered_a, expected.answered_a)
    assert np.array_equal(read.answered_b, expected.answered_b)
    for name, values in expected.scores.items():
        assert np.array_equal(read.scores[name], values, equal_nan=True), name
    for d, (codes, labels) in expected.dimensions.items():
        assert read.dimensions[d][1] == labels
        assert np.array_equal(read.dimensions[d][0], codes), d


def _expected(conn: sqlite3.Connection, a: int, b: int, ds: int, labels: dict[str, list[str]],
              within: Filter | None) -> PairArrays:
    frame = common_frame(conn, a, b, ds, within, texts=False)
    arrays = PairArrays.from_frame(frame, [])
    dims = {}
    for d, values in labels.items():
        column = frame[d].fill_null("—").to_list()
        dims[d] = (np.array([values.index(v) if v in values else -1 for v in column], dtype=np.int32), tuple(values))
    return PairArrays(arrays.item_ids, arrays.contexts, arrays.scores, arrays.answered_a, arrays.answered_b, dims)


@pytest.mark.parametrize(("a", "b"), [("bert-base-chinese", "bidaf-baseline"), ("qwen-7b-chat", "glm-6b")])
@pytest.mark.parametrize("scoped", [False, True])
def test_arrays_equal_the_common_frame(conn, a: str, b: str, scoped: bool) -> None:
    ra, rb = require_run(conn, a), require_run(conn, b)
    assert ra.dataset_id is not None
    labels = _labels(conn, ra.dataset_id)
    within = Filter(dataset=ra.dataset, run=a, em=0) if scoped and ra.family != "cdqa" else (
        Filter(dataset=ra.dataset, run=a, refused=False) if scoped else None)
    expected = _expected(conn, ra.id, rb.id, ra.dataset_id, labels, within)
    assert expected.size > 0
    read = read_pair_arrays(conn, ra.id, rb.id, ra.dataset_id, within, labels)
    _same(read, expected)
    if not scoped:  # the tiny scores are among the items read, bit for bit
        tiny = [v for s in read.scores.values() for v in s[~np.isnan(s)] if 0 < v < 2.0**-10]
        assert tiny


def test_arrays_of_a_rescored_copy_are_read_through_the_join(conn) -> None:
    ra, rb = require_run(conn, "bert-base-chinese"), require_run(conn, "bidaf-baseline")
    assert ra.dataset_id is not None
    labels = _labels(conn, ra.dataset_id)
    expected = _expected(conn, ra.id, rb.id, ra.dataset_id, labels, None)
    with adjudicated_rows(conn, {ra.id: {}, rb.id: {}}) as table:
        read = read_pair_arrays(conn, ra.id, rb.id, ra.dataset_id, None, labels, table=table)
    _same(read, expected)


@pytest.fixture(scope="module")
def gappy(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    """The sample with each run of a pair missing items the other answers."""
    c = loaded_sample(tmp_path_factory.mktemp("pair_arrays_gappy"), sample_runs)
    for run, left in (("bert-base-chinese", 0), ("bidaf-baseline", 1)):
        c.execute("DELETE FROM predictions WHERE run_id = ? AND item_id % 5 = ?", (require_run(c, run).id, left))
    c.commit()
    yield c
    c.close()


def _typed(arrays: PairArrays) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Every array's dtype and shape, by name."""
    out = {"item_ids": arrays.item_ids, "contexts": arrays.contexts, "answered_a": arrays.answered_a,
           "answered_b": arrays.answered_b, **arrays.scores,
           **{f"dim:{d}": codes for d, (codes, _) in arrays.dimensions.items()}}
    if arrays.categories is not None:
        out["category_a"], out["category_b"] = arrays.categories[:2]
    return {k: (str(v.dtype), v.shape) for k, v in out.items()}


@pytest.mark.parametrize(("which", "a", "b"), [("every item", "glm-6b", "qwen-7b-chat"),
                                              ("some items", "bert-base-chinese", "bidaf-baseline"),
                                              ("gaps", "bert-base-chinese", "bidaf-baseline")])
def test_the_narrow_read_equals_the_join_in_values_and_types(conn, gappy, which: str, a: str, b: str) -> None:
    """The read of each run's index matched in numpy (a column taken as it is when its items are
    already the common ones: two runs answering every item) gives the join's arrays: every value,
    dtype and shape."""
    db = gappy if which == "gaps" else conn
    narrow = comparison_arrays(db, a, b)
    assert narrow is not None and narrow.categories is not None
    ra, rb = require_run(db, a), require_run(db, b)
    assert ra.dataset_id is not None
    labels = {d: list(values) for d, (_, values) in narrow.dimensions.items()}
    joined = read_pair_arrays(db, ra.id, rb.id, ra.dataset_id, None, labels, table="main.predictions",
                              categories=narrow.categories[2])
    _same(narrow, joined)
    assert joined.categories is not None
    assert all(np.array_equal(x, y) for x, y in zip(narrow.categories[:2], joined.categories[:2], strict=True))
    n = (narrow.size,)
    assert _typed(narrow) == _typed(joined) == {
        "item_ids": ("int64", n), "contexts": ("int64", n), "answered_a": ("bool", n), "answered_b": ("bool", n),
        **{s: ("float64", n) for s in narrow.scores}, **{f"dim:{d}": ("int32", n) for d in narrow.dimensions},
        "category_a": ("int32", n), "category_b": ("int32", n)}
    items = db.execute("SELECT COUNT(*) FROM items WHERE dataset_id = ?", (ra.dataset_id,)).fetchone()[0]
    answered = [db.execute("SELECT COUNT(*) FROM predictions WHERE run_id = ?", (r.id,)).fetchone()[0] for r in (ra, rb)]
    assert {"every item": narrow.size == items == min(answered), "some items": 0 < narrow.size < items,
            "gaps": 0 < narrow.size < min(answered) - 20}[which]


def test_freed_memory_goes_back_where_the_c_library_can() -> None:
    """glibc hands the heap's free pages back (`malloc_trim`); elsewhere the call does nothing."""
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert give_back_free_memory() is glibc
