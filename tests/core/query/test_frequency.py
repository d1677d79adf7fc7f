"""Frequency tables: counts equal a SQL GROUP BY, shares add up, each row's clause selects exactly
its items, label sets count per label."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator

import pytest
from qa_inspect.core import query
from qa_inspect.core.query import Filter, clause, frequency

from tests.columns_data import JUDGE, LABELLED, META_RUN, RUN, load_columns


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(load_columns(tmp_path_factory.mktemp("frequency")))
    yield c
    c.close()


def test_counts_of_the_category_equal_a_group_by(conn: sqlite3.Connection) -> None:
    table = frequency(conn, Filter(run=RUN), "error_category")
    expected = dict(conn.execute(
        "SELECT COALESCE(p.error_category, 'no prediction'), COUNT(*) FROM items i"
        " JOIN datasets d ON d.id = i.dataset_id JOIN runs r ON r.dataset_id = d.id AND r.name = ?"
        " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = r.id GROUP BY 1", (RUN,)).fetchall())
    assert {r.value: r.count for r in table.rows} == expected
    assert table.items == sum(expected.values()) == query.count(conn, Filter(run=RUN))
    assert table.values == len(expected)
    assert abs(sum(r.share for r in table.rows) - 1) < 1e-9
    counts = [r.count for r in table.rows]
    assert counts == sorted(counts, reverse=True)


def test_text_groups_fold_case_and_spaces(conn: sqlite3.Connection) -> None:
    table = frequency(conn, Filter(run=META_RUN), "meta:sampler")
    stored = Counter(v for (v,) in conn.execute(
        "SELECT json_extract(p.meta, '$.sampler') FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.name = ?",
        (META_RUN,)))
    assert {r.value: r.count for r in table.rows if r.value is not None} == dict(stored)
    assert sum(r.count for r in table.rows) == table.items


@pytest.mark.parametrize("column", ["error_category", "meta:sampler", "meta:latency", "label", f"judge:{JUDGE}",
                                    "question_type", "gold_count", "relation"])
def test_each_rows_clause_selects_its_items(conn: sqlite3.Connection, column: str) -> None:
    run = META_RUN if column.startswith("meta:") else RUN
    f = Filter(run=run, expression='question_type != "who"')
    for row in frequency(conn, f, column).rows:
        narrowed = f.with_(expression=query.and_clause(f.expression, clause(column, row.value)))
        assert query.count(conn, narrowed) == row.count, (column, row.value)


def test_label_sets_count_each_label(conn: sqlite3.Connection) -> None:
    rows = {r.value: r.count for r in frequency(conn, Filter(run=RUN), "label").rows}
    per_label = Counter(label for labels in LABELLED.values() for label in labels)
    assert {k: v for k, v in rows.items() if k is not None} == dict(per_label)


def test_scores_per_value_are_the_runs_mean(conn: sqlite3.Connection) -> None:
    f = Filter(run=RUN)
    for row in frequency(conn, f, "error_category").rows:
        sub = f.with_(expression=clause("error_category", row.value))
        assert row.score == pytest.approx(query.metrics(conn, sub).f1 or 0.0)  # no prediction: 0, as official
    assert frequency(conn, Filter(dataset="cmrc2018_dev_sample"), "question_type").rows[0].score is None


def test_limit_keeps_the_most_frequent(conn: sqlite3.Connection) -> None:
    full = frequency(conn, Filter(run=RUN), "prediction")
    top = frequency(conn, Filter(run=RUN), "prediction", limit=3)
    assert top.rows == full.rows[:3] and top.values == full.values
    with pytest.raises(ValueError, match="unknown column"):
        frequency(conn, Filter(run=RUN), "nope")
