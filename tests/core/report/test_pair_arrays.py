"""The per-item arrays of a comparison, read as texts of integers built by SQLite: on the sample
runs (and on a copy where some scores are too small to scale exactly) every array equals the
common-item frame's, with and without a filter, from the official rows and from a re-scored copy."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qa_inspect.core.query import Filter
from qa_inspect.core.report import PairArrays, read_pair_arrays
from qa_inspect.core.report.diff import common_frame
from qa_inspect.core.report.diff_sql import adjudicated_rows
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
