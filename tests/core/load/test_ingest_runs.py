"""`core.load.ingest_runs`: prediction rows inserted from their columns, naming only the columns
some row gives, store what the insert of every column stores."""

from __future__ import annotations

import sqlite3
from typing import Any

from hypothesis import given, settings, strategies as st
from qa_inspect.core.load.ingest_runs import insert_given

COLUMNS = ("id", "a", "b", "c", "d")
values = st.one_of(st.none(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=3), st.binary(max_size=2))


def _table(rows: list[tuple[Any, ...]], *, named: bool) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a, b TEXT, c REAL, d INTEGER)")
    if named:
        insert_given(conn, "t", COLUMNS, list(zip(*rows)) if rows else [()] * len(COLUMNS))  # the rows' columns
    else:
        conn.executemany("INSERT INTO t (id, a, b, c, d) VALUES (?, ?, ?, ?, ?)", rows)
    out = conn.execute("SELECT id, a, typeof(a), b, typeof(b), c, typeof(c), d, typeof(d) FROM t ORDER BY id").fetchall()
    conn.close()
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(values, values, values, values), max_size=6), st.sets(st.integers(0, 3)))
def test_rows_are_stored_as_the_insert_of_every_column_stores_them(cells: list[tuple[Any, ...]], empty: set[int]) -> None:
    rows = [(n + 1, *(None if k in empty else v for k, v in enumerate(row))) for n, row in enumerate(cells)]
    assert _table(rows, named=True) == _table(rows, named=False)


def test_columns_no_row_gives_are_left_to_null() -> None:
    rows = [(1, None, "x", None, None), (2, None, None, None, 4)]
    assert _table(rows, named=True) == [(1, None, "null", "x", "text", None, "null", None, "null"),
                                        (2, None, "null", None, "null", None, "null", 4, "integer")]
