"""Pages sorted by a registry column down its index (`core.query.column_order`) are the rows of
the one sorted query, in order, at every offset: missing values, the category's `no prediction`
items, mixed `meta` types, label sets and the seams between parts included; and they walk an index."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.query import Filter, page_ids
from qa_inspect.core.query.paging import explain_page
from qa_inspect.core.query.sql import build, order_clause
from qa_inspect.core.labels import add_labels, remove_labels
from qa_inspect.core.store import ANSWER_INDEX, index_texts, index_meta_keys, meta_index, open_db

from tests.columns_data import META_RUN, RUN, load_columns


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    """The columns folder loaded, then roughened: predictions without a category or relation, a
    few removed (items without a prediction), `meta` of other types, items without features."""
    db = load_columns(tmp_path_factory.mktemp("column_order"))
    _label(db)
    c = sqlite3.connect(db)
    run_id = c.execute("SELECT id FROM runs WHERE name = ?", (RUN,)).fetchone()[0]
    meta_id = c.execute("SELECT id FROM runs WHERE name = ?", (META_RUN,)).fetchone()[0]
    ids = [r[0] for r in c.execute("SELECT id FROM predictions WHERE run_id = ? ORDER BY item_id", (run_id,))]
    c.executemany("UPDATE predictions SET error_category = NULL, relation = NULL WHERE id = ?", [(i,) for i in ids[3:9]])
    c.executemany("DELETE FROM predictions WHERE id = ?", [(i,) for i in ids[20:25]])
    metas = ['{"latency": "slow", "sampler": "greedy"}', '{"latency": null}', "{}", '{"latency": 2}',
             '{"latency": true, "sampler": "Beam  Search"}']
    meta_ids = [r[0] for r in c.execute("SELECT id FROM predictions WHERE run_id = ? ORDER BY item_id LIMIT 5 OFFSET 10",
                                        (meta_id,))]
    c.executemany("UPDATE predictions SET meta = ? WHERE id = ?", list(zip(metas, meta_ids)))
    c.execute("UPDATE predictions SET meta = NULL WHERE id IN (SELECT id FROM predictions WHERE run_id = ?"
              " ORDER BY item_id LIMIT 3 OFFSET 30)", (meta_id,))
    c.execute("UPDATE items SET gold_count = NULL, gold_length = NULL, cross_sentence = NULL, question_type = NULL"
              " WHERE id IN (SELECT i.id FROM items i JOIN runs r ON r.dataset_id = i.dataset_id AND r.id = ?"
              " ORDER BY i.id LIMIT 7 OFFSET 5)", (run_id,))
    c.commit()
    yield c
    c.close()


def _label(db: Path) -> None:
    """Labels on both runs' items: single, combined (a set sorts as its joined text), one taken
    off again, and some on the items whose prediction the fixture removes (no value shown)."""
    conn = open_db(db).conn
    try:
        for run in (RUN, META_RUN):
            keys = [r[0] for r in conn.execute("SELECT i.key FROM items i JOIN runs r ON r.dataset_id = i.dataset_id"
                                               " WHERE r.name = ? ORDER BY i.id", (run,))]
            add_labels(conn, run, keys[2:30:3], ["format"], author="ann")
            add_labels(conn, run, keys[18:26], ["paraphrase"], author="ann")
            add_labels(conn, run, keys[1:40:7], ["gold-wrong", "format"], author="ann")
            remove_labels(conn, run, keys[2:10], ["format"], author="ann")
    finally:
        conn.close()


def _reference(conn: Any, f: Filter) -> list[int]:
    sql, params = build(conn, f)
    order: list[Any] = []
    clause = order_clause(f, order)
    return [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {clause}", [*params, *order])]


def _other(conn: sqlite3.Connection, run: str) -> str:
    return conn.execute("SELECT o.name FROM runs o JOIN runs r ON r.dataset_id = o.dataset_id"
                        " WHERE r.name = ? AND o.name != ? ORDER BY o.id LIMIT 1", (run, run)).fetchone()[0]


COLUMNS = ["error_category", "category", "relation", "question_type", "qword", "gold_count", "gold_length",
           "passage_length", "cross_sentence", "meta:latency", "meta:sampler", "score:OTHER", "answer:OTHER", "label"]


@pytest.mark.parametrize("column", COLUMNS)
@pytest.mark.parametrize("run", [RUN, META_RUN])
def test_pages_equal_the_sorted_query_at_every_offset(conn: sqlite3.Connection, column: str, run: str) -> None:
    other = _other(conn, run)
    base = Filter(run=run, sort=column.replace("OTHER", other))
    variants = [base, base.with_(descending=True), base.with_(em=0), base.with_(em=0, descending=True),
                base.with_(compare=other), base.with_(expression="f1 < 0.5", descending=True),
                base.with_(splits=("dev",)), base.with_(refused=False, descending=True)]
    for f in variants:
        want = _reference(conn, f)
        n = len(want)
        assert n > 0
        for offset, limit in [(0, 7), (0, n + 5), (n // 3, 9), (n // 2, 11), (max(0, n - 4), 10), (n + 3, 5)]:
            assert page_ids(conn, f, offset, limit) == want[offset:offset + limit], (f, offset, limit)


@pytest.mark.parametrize("column", ["error_category", "relation", "gold_count", "question_type", "cross_sentence",
                                    "meta:latency", "score:OTHER", "label"])
def test_a_page_walks_the_column_index_instead_of_sorting_every_item(conn: sqlite3.Connection, column: str) -> None:
    for f in [Filter(run=META_RUN, sort=column.replace("OTHER", RUN)),
              Filter(run=META_RUN, sort=column.replace("OTHER", RUN), descending=True, em=0)]:
        plan = explain_page(conn, f)
        assert "TEMP B-TREE" not in plan, plan


@pytest.mark.parametrize("column", ["gold_count", "question_type", "passage_length"])
def test_the_items_without_a_value_are_walked_too_not_read_whole(conn: sqlite3.Connection, column: str) -> None:
    """The second part (items without the feature, by id) seeks the index's NULL entries, which are
    in id order: a negated test there read every item of the dataset (0.5 s at a million)."""
    parts: list[tuple[str, list[object]]] = []

    class Recorder:
        def execute(self, sql: str, params: object = ()) -> object:
            if "LIMIT ? OFFSET ?" in sql:
                parts.append((sql, list(params)))  # type: ignore[call-overload]
                return iter([])  # no row: the next part is asked for
            return conn.execute(sql, params)  # type: ignore[arg-type]

    page_ids(Recorder(), Filter(run=META_RUN, sort=column), 0, 5)
    assert len(parts) == 2
    rest = " ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + parts[1][0], parts[1][1]))
    assert f"{column}=?" in rest and "TEMP B-TREE" not in rest, rest


@pytest.fixture(scope="module")
def indexed(conn: sqlite3.Connection, tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    """The same database with the answers' index a load makes for a large dataset."""
    copy = sqlite3.connect(tmp_path_factory.mktemp("answers") / "indexed.db")
    conn.backup(copy)
    assert index_texts(copy) is False  # a small dataset: no index
    assert index_texts(copy, large=1) is True and index_texts(copy, large=1) is False  # once
    yield copy
    copy.close()


@pytest.mark.parametrize("run", [RUN, META_RUN])
def test_answer_pages_down_the_answers_index_equal_the_sorted_query(indexed: sqlite3.Connection, run: str) -> None:
    other = _other(indexed, run)
    base = Filter(run=run, sort=f"answer:{other}")
    for f in [base, base.with_(descending=True), base.with_(em=0), base.with_(compare=other, descending=True),
              base.with_(expression="f1 < 0.5"), base.with_(splits=("dev",), descending=True)]:
        want = _reference(indexed, f)
        n = len(want)
        for offset, limit in [(0, 7), (0, n + 5), (n // 2, 11), (max(0, n - 4), 10)]:
            assert page_ids(indexed, f, offset, limit) == want[offset:offset + limit], (f, offset, limit)
        assert "TEMP B-TREE" not in explain_page(indexed, f) and ANSWER_INDEX in explain_page(indexed, f)


def test_the_load_indexes_the_meta_keys_it_finds(conn: sqlite3.Connection) -> None:
    assert meta_index(conn, "latency") and meta_index(conn, "sampler")
    assert meta_index(conn, "prompt") is None
    assert index_meta_keys(conn) == []  # once per key


def test_a_key_of_long_texts_gets_no_index(tmp_path: Path, conn: sqlite3.Connection) -> None:
    db = tmp_path / "copy.db"
    with sqlite3.connect(db) as copy:
        conn.backup(copy)
        run_id = copy.execute("SELECT id FROM runs WHERE name = ?", (META_RUN,)).fetchone()[0]
        copy.execute("""UPDATE predictions SET meta = json_set(meta, '$.prompt', printf('%.300c', 'x'),
                        '$.tokens', item_id) WHERE run_id = ? AND meta IS NOT NULL""", (run_id,))
        copy.commit()
        assert index_meta_keys(copy) == ["tokens"]
        f = Filter(run=META_RUN, sort="meta:tokens", descending=True)
        assert "TEMP B-TREE" not in explain_page(copy, f)
        assert page_ids(copy, f, 0, 5) == _reference(copy, f)[:5]
        assert page_ids(copy, Filter(run=META_RUN, sort="meta:prompt"), 0, 5)  # no index: the sorted query
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_a_database_without_the_indexes_sorts_instead(tmp_path: Path, conn: sqlite3.Connection) -> None:
    """A database of before schema 15 opened read-only: the sorted query answers, no error."""
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as copy:
        conn.backup(copy)
        for index in ("predictions_run_category", "items_gold_count"):
            copy.execute(f"DROP INDEX {index}")
    ro = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        for column in ("error_category", "gold_count"):
            f = Filter(run=RUN, sort=column, descending=True)
            assert page_ids(ro, f, 0, 10) == _reference(ro, f)[:10]
    finally:
        ro.close()
