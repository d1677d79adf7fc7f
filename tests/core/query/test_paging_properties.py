"""Any filter, any sort, any way `page_ids` picks (walks with or without budget, few or many
matches): its pages are the rows of the one sorted query, in order (hypothesis, derandomized)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.query import Filter, page_ids, paging
from qa_inspect.core.query.filters import SORTS
from qa_inspect.core.query.sql import build, order_clause

SETTINGS = settings(max_examples=int(os.environ.get("QA_PAGING_EXAMPLES", "120")), deadline=None, derandomize=True)


@pytest.fixture(scope="module")
def conn(loaded_db: Path) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(f"file:{loaded_db}?mode=ro", uri=True, check_same_thread=False)
    yield c
    c.close()


def _values(c: sqlite3.Connection, sql: str) -> list[Any]:
    return [r[0] for r in c.execute(sql)]


REGISTRY = ["error_category", "relation", "gold_count", "question_type", "cross_sentence", "passage_length"]
"""Registry columns with a sort down an index (`core.query.column_order`)."""


@st.composite
def filters(draw: st.DrawFn, c: sqlite3.Connection) -> Filter:
    runs = c.execute("SELECT r.name, r.dataset_id FROM runs r ORDER BY r.id").fetchall()
    run, ds = draw(st.sampled_from(runs))
    others = [name for name, d in runs if d == ds and name != run]

    on_items = draw(st.booleans())  # False: conditions on run A's predictions alone (their own ways)

    def labels(column: str) -> tuple[str, ...]:
        values = _values(c, f"SELECT DISTINCT {column} FROM items WHERE {column} IS NOT NULL ORDER BY 1")
        if not on_items or draw(st.booleans()):
            return ()
        return tuple(draw(st.lists(st.sampled_from([*values, "none such"]), min_size=1, max_size=3, unique=True)))

    categories = [*_values(c, "SELECT DISTINCT error_category FROM predictions WHERE error_category IS NOT NULL"),
                  "no prediction", "none such"]
    texts = _values(c, "SELECT substr(question, 3, 3) FROM items ORDER BY id LIMIT 3")
    texts += _values(c, "SELECT substr(text, 1, 3) FROM predictions WHERE length(text) >= 3 ORDER BY id DESC LIMIT 2")
    score = st.none() | st.sampled_from([0.0, 0.3, 0.5, 1.0])
    return Filter(
        run=run, splits=labels("split"), tags=labels("tag"), answer_types=labels("answer_type"),
        refused=draw(st.sampled_from([None, True, False])), em=draw(st.sampled_from([None, 0, 1])),
        f1_min=draw(score), f1_max=draw(score),
        search=draw(st.sampled_from(["", "什么", "不存在的", *texts])) if on_items else "",
        compare=draw(st.sampled_from([None, None, None, *others])) if others else None,
        sort=draw(st.sampled_from(["key", "em", "f1", "f1_recall", "refused", "prediction", *sorted(SORTS),
                                   *REGISTRY, *(f"{k}:{o}" for o in others for k in ("score", "answer"))])),
        descending=draw(st.booleans()),
        facets=tuple(("error_category", v)
                     for v in draw(st.lists(st.sampled_from(categories), max_size=2, unique=True))),
        stale=draw(st.sampled_from([None, False])) if on_items else None,
    )


def test_pages_of_any_filter_are_the_sorted_query(conn: sqlite3.Connection) -> None:
    @SETTINGS
    @given(filters(conn), st.sampled_from([0, 3, 20_000]), st.sampled_from([0, 2, 5_000]),
           st.sampled_from([(0, 4), (0, 500), (3, 5), (10, 7)]))
    def check(f: Filter, budget: int, few: int, window: tuple[int, int]) -> None:
        saved = paging.WALK_BUDGET, paging.FEW_HITS
        paging.WALK_BUDGET, paging.FEW_HITS = budget, few
        try:
            sql, params = build(conn, f)
            order: list[Any] = []  # a registry column's parameters
            clause = order_clause(f, order)
            want = [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {clause}", [*params, *order])]
            offset, limit = window
            assert page_ids(conn, f, offset, limit) == want[offset:offset + limit], f
        finally:
            paging.WALK_BUDGET, paging.FEW_HITS = saved

    check()
