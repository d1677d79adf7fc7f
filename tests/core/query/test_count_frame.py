"""A filter's count and metrics from the run's count frame (`core.query.count_frame`) equal the
SQL pass over its items (`metrics`, `count`), for any filter the frame answers; other filters
(and data a load changed since the frame was read) keep the SQL pass."""

from __future__ import annotations

import os
import sqlite3
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.query import Filter, SliceMetrics, kept_frame, count, count_frame, metrics, metrics_ab
from qa_inspect.core.query.count_frame import expressible, frame_metric_row
from tests.helpers import Env

SETTINGS = settings(max_examples=int(os.environ.get("QA_COUNT_FRAME_EXAMPLES", "150")), deadline=None,
                    derandomize=True)


def _values(conn: sqlite3.Connection, column: str) -> list[Any]:
    return [r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM items WHERE {column} IS NOT NULL ORDER BY 1")]


@st.composite
def filters(draw: st.DrawFn, conn: sqlite3.Connection) -> Filter:
    runs = [r[0] for r in conn.execute("SELECT name FROM runs ORDER BY id")]
    categories = [r[0] for r in conn.execute("SELECT DISTINCT error_category FROM predictions"
                                             " WHERE error_category IS NOT NULL ORDER BY 1")]

    def some(values: list[Any]) -> tuple[Any, ...]:
        return tuple(draw(st.lists(st.sampled_from([*values, "no-such-value"]), max_size=2, unique=True)))

    return Filter(
        run=draw(st.sampled_from(runs)), splits=some(_values(conn, "split")), tags=some(_values(conn, "tag")),
        answer_types=some(_values(conn, "answer_type")), refused=draw(st.sampled_from([None, True, False])),
        em=draw(st.sampled_from([None, 0, 1])), f1_min=draw(st.sampled_from([None, 0.0, 0.3, 0.5])),
        f1_max=draw(st.sampled_from([None, 0.5, 0.99, 1.0])),
        facets=tuple(("error_category", v) for v in some([*categories, "no prediction"])),
        sort=draw(st.sampled_from(["key", "f1", "question"])), descending=draw(st.booleans()),
    )


def _equal(fast: SliceMetrics, slow: SliceMetrics) -> None:
    """Counts exactly; averages to rounding (numpy sums in another order than SQLite)."""
    assert (fast.items, fast.predicted, fast.answered) == (slow.items, slow.predicted, slow.answered)
    for name in ("em", "f1", "f1_recall", "answer_rate"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a == pytest.approx(b, rel=1e-9, abs=1e-9), name


def test_frame_counts_equal_the_sql_pass(env: Env) -> None:
    conn = env.conn

    @SETTINGS
    @given(filters(conn))
    def check(f: Filter) -> None:
        assert expressible(f)
        assert count_frame(conn, f, min_items=0) is not None
        frame = kept_frame(conn, f)
        assert frame is not None and frame_metric_row(frame, f) is not None
        fast, _ = metrics_ab(conn, f)
        assert fast.items == count(conn, f), f
        _equal(fast, metrics(conn, f))

    check()


def test_other_filters_and_small_datasets_keep_the_sql_pass(env: Env) -> None:
    conn = env.conn
    run = conn.execute("SELECT name FROM runs ORDER BY id").fetchone()[0]
    assert count_frame(conn, Filter(run=run)) is None  # the sample runs are small: no frame read
    assert kept_frame(conn, Filter(run=run)) is None
    frame = count_frame(conn, Filter(run=run), min_items=0)
    assert frame is not None
    for f in (Filter(run=run, search="the"), Filter(run=run, stale=True), Filter(run=run, compare=run),
              Filter(run=run, facets=(("qword", "what"),)), Filter(dataset="x")):
        assert not expressible(f) and frame_metric_row(frame, f) is None
        _equal(metrics_ab(conn, f)[0], metrics(conn, f))


def test_a_rescore_is_not_counted_from_an_old_frame(env: Env) -> None:
    """A re-score (scores rewritten, `scoring_rules` moved) restamps the data: the frame read
    before is not used, the count follows the new scores."""
    conn = env.conn
    run = conn.execute("SELECT r.name FROM runs r WHERE EXISTS (SELECT 1 FROM predictions p"
                       " WHERE p.run_id = r.id AND p.em IS NOT NULL) ORDER BY r.id LIMIT 1").fetchone()[0]
    f = Filter(run=run, em=1)
    assert count_frame(conn, f, min_items=0) is not None
    before = metrics_ab(conn, f)[0]
    conn.execute("UPDATE predictions SET em = 1 - em WHERE em IS NOT NULL AND run_id ="
                 " (SELECT id FROM runs WHERE name = ?)", (run,))
    conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('scoring_rules', 'rescored in a test')")
    conn.commit()
    assert kept_frame(conn, f) is None
    after = metrics_ab(conn, f)[0]
    assert after.items == count(conn, f) != before.items
