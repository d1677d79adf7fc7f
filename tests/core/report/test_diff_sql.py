"""`diff_runs` without statistics (SQL aggregates, `core.report.diff_sql`) equals the common-item
frame it replaced (still what `diff_runs(stats=…)` reads) on the sample databases: every count,
slice, category and change; scores summed in another order agree to 1e-9.

CMRC's sample has one split on every item (a slice read from the index, no items joined); CDQA's
has tags and answer types (grouped by them); `within` filters, thresholds and `top` are drawn by
hypothesis, so both ways to the largest changes (enough full swings, or the ORDER BY pass) run.
"""

from __future__ import annotations

import math
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.query import Filter
from qa_inspect.core.report import RunDiff, StatOptions, diff_runs
from qa_inspect.core.store import open_db

SETTINGS = settings(max_examples=int(os.environ.get("QA_DIFF_EXAMPLES", "40")), deadline=None)
PAIRS = [
    ("bert-base-chinese", "roberta-wwm-large"), ("roberta-wwm-large", "bidaf-baseline"),
    ("bidaf-baseline", "bert-base-chinese"), ("glm-6b", "qwen-7b-chat"), ("qwen-7b-chat", "glm-6b"),
]
DATASETS = {"bert-base-chinese": "cmrc2018_dev_sample", "roberta-wwm-large": "cmrc2018_dev_sample",
            "bidaf-baseline": "cmrc2018_dev_sample", "glm-6b": "cdqa_sample", "qwen-7b-chat": "cdqa_sample"}


@pytest.fixture(scope="module")
def conn(loaded_db: Path) -> Iterator[sqlite3.Connection]:
    c = open_db(loaded_db).conn
    yield c
    c.close()


def _frame(conn: sqlite3.Connection, a: str, b: str, **kw: Any) -> RunDiff:
    """The frame-based diff (what the statistics read), its statistics left out."""
    d = diff_runs(conn, a, b, stats=StatOptions(resamples=1), **kw)
    d.significance = None
    return d


def _same(fast: Any, slow: Any, where: str = "") -> None:
    if isinstance(slow, float) and isinstance(fast, float):
        assert math.isclose(fast, slow, rel_tol=1e-9, abs_tol=1e-9), f"{where}: {fast} != {slow}"
    elif isinstance(slow, dict):
        assert isinstance(fast, dict) and fast.keys() == slow.keys(), where
        for k in slow:
            _same(fast[k], slow[k], f"{where}.{k}")
    elif isinstance(slow, list):
        assert isinstance(fast, list) and len(fast) == len(slow), f"{where}: {len(fast)} != {len(slow)}"
        for k, (x, y) in enumerate(zip(fast, slow, strict=True)):
            _same(x, y, f"{where}[{k}]")
    else:
        assert fast == slow and type(fast) is type(slow), f"{where}: {fast!r} != {slow!r}"


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_sql_diff_equals_the_frame_diff(conn: sqlite3.Connection, a: str, b: str) -> None:
    for top in (0, 1, 20, 500):
        _same(diff_runs(conn, a, b, top=top, aggregate_in_sql=True).to_dict(), _frame(conn, a, b, top=top).to_dict())


_WITHIN = st.one_of(
    st.none(),
    st.builds(lambda em: Filter(em=em), st.sampled_from([0, 1])),
    st.builds(lambda t: Filter(tags=(t,)), st.sampled_from(["fast-changing", "never-changing", "slow-changing"])),
    st.builds(lambda t: Filter(answer_types=(t,)), st.sampled_from(["person", "work", "other"])),
    st.builds(lambda lo: Filter(f1_min=lo), st.floats(0.0, 1.0)),
    st.builds(lambda c: Filter(facets=(("error_category", c),)),
              st.sampled_from(["exact", "refused", "wrong", "boundary-long", "partial"])),
)


@SETTINGS
@given(st.sampled_from(PAIRS), st.floats(0.0, 1.0), st.integers(0, 60), _WITHIN)
def test_sql_diff_equals_the_frame_diff_anywhere(
    conn: sqlite3.Connection, pair: tuple[str, str], threshold: float, top: int, within: Filter | None,
) -> None:
    a, b = pair
    if within is not None:
        within = within.with_(dataset=DATASETS[a], run=a)
    fast = diff_runs(conn, a, b, threshold=threshold, top=top, within=within, aggregate_in_sql=True)
    _same(fast.to_dict(), _frame(conn, a, b, threshold=threshold, top=top, within=within).to_dict())
