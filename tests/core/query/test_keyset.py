"""`neighbour` and `position` by keyset (`core.query.keyset`) give what ranking every row with a
window function gives (the way they were computed before), for any filter, sort and step."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.query import Filter, build_delta_order, fresh_pair, neighbour, position, rows_around
from qa_inspect.core.store import index_texts
from qa_inspect.core.query.filters import SORTS
from qa_inspect.core.query.sql import build, order_clause
from tests.helpers import Env

SETTINGS = settings(max_examples=int(os.environ.get("QA_KEYSET_EXAMPLES", "150")), deadline=None, derandomize=True)
REGISTRY_SORTS = ["error_category", "gold_count", "label", "question_type", "passage_length"]
"""Registry columns (`core.query.columns`) sorted by: text, numbers, sparse, mostly NULL; a judge's
verdict and another run's score (expressions that take parameters) are drawn per run."""


@pytest.fixture(scope="module")
def conn(loaded_db: Path) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(f"file:{loaded_db}?mode=ro", uri=True, check_same_thread=False)
    yield c
    c.close()


def _ranked(conn: sqlite3.Connection, f: Filter) -> list[int]:
    """The filter's ids in order, from the one sorted query (`order_clause`, as pages are)."""
    sql, params = build(conn, f)
    order_params: list[Any] = []
    order = order_clause(f, order_params)
    return [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {order}", [*params, *order_params])]


@st.composite
def filters(draw: st.DrawFn, c: sqlite3.Connection) -> Filter:
    runs = c.execute("SELECT r.name, r.dataset_id FROM runs r ORDER BY r.id").fetchall()
    run, ds = draw(st.sampled_from(runs))
    others = [name for name, d in runs if d == ds and name != run]
    splits = [r[0] for r in c.execute("SELECT DISTINCT split FROM items WHERE split IS NOT NULL")]
    judges = [f"judge:{r[0]}" for r in c.execute("SELECT DISTINCT judge FROM verdicts WHERE run = ? ORDER BY 1", (run,))]
    return Filter(
        run=run, em=draw(st.sampled_from([None, 0, 1])), f1_min=draw(st.sampled_from([None, 0.3])),
        splits=tuple(draw(st.lists(st.sampled_from(splits), max_size=1))) if splits else (),
        compare=draw(st.sampled_from([None, *others])) if others else None,
        sort=draw(st.sampled_from([*sorted(SORTS), *REGISTRY_SORTS, *judges, *(f"score:{o}" for o in others)])),
        descending=draw(st.booleans()),
    )


def test_neighbours_and_positions_equal_the_ranked_rows(conn: sqlite3.Connection) -> None:
    @SETTINGS
    @given(filters(conn), st.data())
    def check(f: Filter, data: st.DataObject) -> None:
        ids = _ranked(conn, f)
        everything = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY id")]
        item = data.draw(st.sampled_from(ids or everything))
        step = data.draw(st.sampled_from([1, -1, 2, -3, 7, -7, 0]))
        at = ids.index(item) if item in ids else None
        assert position(conn, f, item) == at, f
        if at is not None:
            want = ids[at + step] if 0 <= at + step < len(ids) else None
            assert neighbour(conn, f, item, step) == want, (f, step)

    check()


def test_an_item_the_filter_left_steps_to_where_it_would_stand(conn: sqlite3.Connection) -> None:
    """A flag moved the item shown out of the filter: `n` goes on to the next row after its place
    (ranking could not find it at all), `p` to the one before."""
    for (run,) in conn.execute("SELECT name FROM runs ORDER BY id").fetchall():
        f = Filter(run=run, em=0)
        wrong = _ranked(conn, f)
        right = [i for i in _ranked(conn, Filter(run=run)) if i not in wrong]
        gap = next((i for i in right if wrong and wrong[0] < i < wrong[-1]), None)
        if gap is not None:
            break
    assert gap is not None, "the sample runs have a right item between two wrong ones"
    assert position(conn, f, gap) is None
    assert neighbour(conn, f, gap, 1) == min(i for i in wrong if i > gap)
    assert neighbour(conn, f, gap, -1) == max(i for i in wrong if i < gap)


def test_no_such_item_has_no_neighbour(conn: sqlite3.Connection) -> None:
    assert neighbour(conn, Filter(), 10**9, 1) is None
    assert position(conn, Filter(), 10**9) is None


def test_a_stored_delta_order_steps_as_the_ranked_rows(env: Env) -> None:
    """With the pair's Δ order stored, steps walk it (its index) and still give the ranked rows."""
    conn = env.conn
    pairs = conn.execute("SELECT a.name, b.name FROM runs a JOIN runs b ON b.dataset_id = a.dataset_id AND b.id != a.id"
                         " ORDER BY a.id, b.id").fetchall()
    run, other = pairs[0]
    for f in (Filter(run=run, compare=other, sort="delta"), Filter(run=run, compare=other, sort="delta", descending=True),
              Filter(run=run, compare=other, sort="delta", em=0)):
        assert build_delta_order(conn, f, min_items=0)
        assert fresh_pair(conn, *conn.execute("SELECT (SELECT id FROM runs WHERE name = ?), (SELECT id FROM runs"
                                              " WHERE name = ?)", (run, other)).fetchone()) is not None
        ids = _ranked(conn, f)
        for at in range(len(ids)):
            for step in (1, -1, 3):
                want = ids[at + step] if 0 <= at + step < len(ids) else None
                assert neighbour(conn, f, ids[at], step) == want, (f, at, step)


def test_the_window_around_an_item_is_the_ranked_rows_around_it(conn: sqlite3.Connection) -> None:
    """Jump-to-item's rows (`rows_around`, a keyset walk each side) are the ranked rows around the
    item, the index on it; an item the filter excludes: the row after where it would stand."""

    @SETTINGS
    @given(filters(conn), st.data())
    def check(f: Filter, data: st.DataObject) -> None:
        ids = _ranked(conn, f)
        everything = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY id")]
        item = data.draw(st.sampled_from(everything))
        before, after = data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6))
        found = rows_around(conn, f, item, before, after)
        if item in ids:
            at = ids.index(item)
            assert found is not None, f
            rows, index = found
            assert [r.item_id for r in rows] == ids[max(0, at - before) : at + after + 1], (f, before, after)
            assert rows[index].item_id == item
        elif found is not None:  # a neighbour of its place: contiguous rows, the cursor next to the place
            rows, index = found
            got = [r.item_id for r in rows]
            start = ids.index(got[0])
            assert got == ids[start : start + len(got)], f
            after_it = neighbour(conn, f, item, 1)  # the cursor's row, when the window reaches it; else the last
            assert got[index] == after_it if after_it in got else index == len(got) - 1

    check()


def test_no_such_item_has_no_window(conn: sqlite3.Connection) -> None:
    assert rows_around(conn, Filter(), 10**9, 5, 5) is None


def test_question_sort_steps_down_the_question_index_as_the_ranked_rows(env: Env) -> None:
    """With the question index a load makes for a large dataset, steps and positions under the
    question sort walk it and still give the ranked rows; without it they rank (no error)."""
    conn = env.conn
    run = conn.execute("SELECT name FROM runs ORDER BY id LIMIT 1").fetchone()[0]
    filters = [Filter(run=run, sort="question"), Filter(run=run, sort="question", descending=True, em=0)]
    for indexed in (False, True):
        if indexed:
            assert index_texts(conn, large=1)
        for f in filters:
            ids = _ranked(conn, f)
            for at in (0, 1, len(ids) // 2, len(ids) - 1):
                assert position(conn, f, ids[at]) == at, (f, indexed)
                for step in (1, -1, 5):
                    want = ids[at + step] if 0 <= at + step < len(ids) else None
                    assert neighbour(conn, f, ids[at], step) == want, (f, step, indexed)
