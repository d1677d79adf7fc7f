"""A diff's rows (slice × metric) on one resampling of the comparison's units: on the sample
runs each row's Δ, interval and p are what that row alone gives on the comparison stream's count
matrix, computed here from the common-item frame on its own path; adding or dropping rows
changes no other row; the numbers read as arrays equal those from the frame."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from qa_inspect.core import stats
from qa_inspect.core.report import (
    PairArrays,
    StatOptions,
    diff_runs,
    diff_significance,
    pair_significance,
)
from qa_inspect.core.report.diff import common_frame
from qa_inspect.core.report.significance import comparison_stream
from qa_inspect.core.store import require_run

from tests.helpers import loaded_sample

OPTIONS = StatOptions(resamples=600)


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    c = loaded_sample(tmp_path_factory.mktemp("significance_rows"), sample_runs)
    yield c
    c.close()


def _frame(conn: sqlite3.Connection, a: str, b: str) -> pl.DataFrame:
    ra, rb = require_run(conn, a), require_run(conn, b)
    assert ra.dataset_id is not None
    return common_frame(conn, ra.id, rb.id, ra.dataset_id, texts=False)


@pytest.mark.parametrize(("a", "b"), [("bert-base-chinese", "roberta-wwm-large"), ("qwen-7b-chat", "glm-6b")])
def test_every_row_is_the_row_alone_on_the_comparison_stream(conn, a: str, b: str) -> None:
    d = diff_runs(conn, a, b)
    sig = diff_significance(conn, d, OPTIONS)
    assert sig is not None
    frame = _frame(conn, a, b)
    contexts = frame["context_id"].fill_null(-1).to_numpy()
    ids = frame["item_id"].to_numpy()
    labels = np.where(contexts >= 0, contexts, -1 - ids) if sig.unit == "passage" else ids
    _, units = np.unique(labels, return_inverse=True)
    boot, _ = comparison_stream(OPTIONS, (a, b), sig.unit).spawn(2)
    counts = np.concatenate(list(stats.count_blocks(sig.units, OPTIONS.resamples, boot)))
    first, second = sorted((a, b))
    for t in sig.tests:
        rows = frame if t.dimension == "overall" else frame.filter(pl.col(t.dimension).fill_null("—") == t.value)
        if t.metric == "f1_recall":
            rows = rows.filter(~pl.col("refused_a").fill_null(False) & ~pl.col("refused_b").fill_null(False))
        if t.metric == "answer_rate":
            va, vb = [(~rows[f"refused_{s}"].fill_null(False)).cast(float).to_numpy() * 100 for s in "ab"]
        else:
            va, vb = [rows[f"{t.metric}_{s}"].cast(float).fill_null(0).to_numpy() * 100 for s in "ab"]
        diff = vb - va if (a, b) == (first, second) else va - vb  # computed in the sorted order
        where = units[np.searchsorted(ids, rows["item_id"].to_numpy())]
        num = counts[:, where] @ diff
        den = counts[:, where].sum(axis=1)
        draws = num[den > 0] / den[den > 0]
        draws = draws if (a, b) == (first, second) else -draws
        assert (t.n, t.units) == (rows.height, len(np.unique(where)))
        assert t.delta == pytest.approx((vb - va).mean(), abs=1e-9)
        assert (t.low, t.high) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])), abs=1e-7)
        if t.method == "bootstrap":
            far = np.abs(draws - t.delta) >= abs(t.delta) - 1e-9 * np.abs(diff).max()
            assert t.p == pytest.approx((1 + int(far.sum())) / (1 + OPTIONS.resamples), abs=2 / 601)


def test_rows_do_not_depend_on_the_rows_beside_them(conn) -> None:
    d = diff_runs(conn, "bert-base-chinese", "bidaf-baseline")
    frame = _frame(conn, "bert-base-chinese", "bidaf-baseline")
    keys = [(s.dimension, s.value, s.metric) for s in d.slices]
    names = ("bert-base-chinese", "bidaf-baseline")
    whole = pair_significance(frame, keys, discordant={}, options=OPTIONS, names=names)
    some = pair_significance(frame, keys[1::3], discordant={}, options=OPTIONS, names=names)
    assert whole is not None and some is not None and len(some.tests) < len(whole.tests)
    for t in some.tests:
        w = whole.test(t.dimension, t.value, t.metric)
        assert w is not None and (w.delta, w.low, w.high, w.p, w.se, w.n, w.units) == (
            t.delta, t.low, t.high, t.p, t.se, t.n, t.units)


def test_arrays_read_from_sql_give_the_numbers_of_the_frame(conn) -> None:
    d = diff_runs(conn, "qwen-7b-chat", "glm-6b")
    read = diff_significance(conn, d, OPTIONS)
    frame = _frame(conn, "qwen-7b-chat", "glm-6b")
    dims = list(dict.fromkeys(s.dimension for s in d.slices if s.dimension != "overall"))
    from_frame = pair_significance(PairArrays.from_frame(frame, dims), [(s.dimension, s.value, s.metric) for s in d.slices],
                                   discordant={o.criterion: (o.fixed, o.broken) for o in d.outcomes}, options=OPTIONS,
                                   names=("qwen-7b-chat", "glm-6b"))
    assert read is not None and from_frame is not None
    assert read.to_dict() == from_frame.to_dict()
    assert read.to_dict() == diff_runs(conn, "qwen-7b-chat", "glm-6b", stats=OPTIONS).significance.to_dict()


def test_an_adjudicated_diff_is_tested_on_its_rescored_items(conn) -> None:
    """No alias accepted in the samples: the re-scored frame's tests are the official ones."""
    official = diff_runs(conn, "bert-base-chinese", "bidaf-baseline", stats=OPTIONS)
    adjudicated = diff_runs(conn, "bert-base-chinese", "bidaf-baseline", stats=OPTIONS, adjudicated=True)
    assert adjudicated.adjudicated and adjudicated.significance is not None and official.significance is not None
    assert adjudicated.significance.to_dict() == official.significance.to_dict()
