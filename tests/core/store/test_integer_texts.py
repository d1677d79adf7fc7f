"""`core.store.integer_texts`: columns read as texts of integers come back exactly, and a score the
scaled integer cannot hold is listed by its key instead (read again as a float by the caller)."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.store import SCORE_SCALE, integer_texts, parse_integers, scaled_score_sql

_SCORES = st.one_of(st.none(), st.floats(0, 1), st.floats(-1, 2, allow_nan=False), st.floats(0, 2 ** -10))


@settings(max_examples=100, deadline=None)
@given(st.lists(_SCORES, max_size=30))
def test_scores_travel_exactly_or_are_listed(scores: list[float | None]) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, s REAL)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(scores, start=1)))
    scaled, odd = scaled_score_sql("s", "k")
    keys, raw, listed = integer_texts(conn, ["k", scaled, odd], "FROM t", [])
    assert keys.tolist() == list(range(1, len(scores) + 1))
    listed_keys = set(listed.tolist())
    for key, value, score in zip(keys.tolist(), raw.tolist(), scores, strict=True):
        if score is None:
            assert value == -1 and key not in listed_keys
        elif key not in listed_keys:
            assert value / SCORE_SCALE == score  # bit for bit
        else:
            scaled = score * SCORE_SCALE  # listed: negative, not whole, or past int64 (SQLite's CAST saturates)
            assert score < 0 or scaled >= 2 ** 63 or int(scaled) != scaled


def test_no_rows_is_an_empty_array() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (k INTEGER)")
    (empty,) = integer_texts(conn, ["k"], "FROM t", [])
    assert empty.size == 0 and parse_integers(None).size == 0
