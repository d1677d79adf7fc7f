"""Error category and item feature facets and filters on the sample runs, against direct SQL."""

from __future__ import annotations

import pytest
from qa_inspect.core import query
from qa_inspect.core.query import FACETS, Filter, facet_table, facet_tables, facets
from tests.helpers import Env

RUN = Filter(dataset="cmrc2018_dev_sample", run="bert-base-chinese")
FEATURES = {"qword": "question_type", "answer_position": "answer_position", "question_overlap": "question_overlap",
            "gold_agreement": "gold_agreement", "passage_length": "passage_length"}


def _direct(env: Env, sql: str, *params: object) -> dict:
    return {v: n for v, n in env.conn.execute(sql, params).fetchall()}


def test_error_category_facet_counts_the_stored_categories(env: Env) -> None:
    want = _direct(env, "SELECT p.error_category, COUNT(*) FROM predictions p JOIN runs r ON r.id = p.run_id"
                        " WHERE r.name = ? GROUP BY 1", RUN.run)
    items = env.conn.execute("SELECT COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ?",
                             (RUN.dataset,)).fetchone()[0]
    missing = items - sum(want.values())
    if missing:
        want["no prediction"] = missing
    t = facet_table(env.conn, RUN, "error_category")
    assert {r.value: r.items for r in t.rows} == want
    assert t.rows[0].value == "exact" and t.rows[0].errors == 0  # table order, and exact is never an error
    assert all(r.errors == r.items for r in t.rows if r.value not in ("exact",))


def test_selecting_a_category_filters_with_parameters(env: Env) -> None:
    f = facets.select(RUN, "error_category", "boundary-long")
    assert f is not None and f.facets == (("error_category", "boundary-long"),)
    rows = query.page(env.conn, f, limit=100)
    assert len(rows) == 25 and query.count(env.conn, f) == 25
    both = facets.select(f, "error_category", "boundary-short", add=True)
    assert query.count(env.conn, both) == 25 + 13
    assert query.count(env.conn, RUN.with_(facets=(("error_category", "x' OR 1=1 --"),))) == 0


@pytest.mark.parametrize("facet", sorted(FEATURES))
def test_feature_facets_equal_direct_sql(env: Env, facet: str) -> None:
    column = FEATURES[facet]
    want = _direct(env, f"SELECT i.{column}, COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id"
                        " WHERE d.name = ? GROUP BY 1", RUN.dataset)
    t = facet_table(env.conn, RUN, facet)
    assert {r.value: r.items for r in t.rows} == want
    order = FACETS[facet].order
    assert order is not None and [r.value for r in t.rows] == [v for v in (*order, None) if v in want]


def test_cross_sentence_and_gold_count_facets_select_text_values(env: Env) -> None:
    t = facet_table(env.conn, RUN, "cross_sentence")
    labels = {r.value: r.label for r in t.rows}
    assert labels["yes"] == "across sentences" and labels["no"] == "same sentence"
    direct = env.conn.execute("SELECT COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id"
                              " WHERE d.name = ? AND i.cross_sentence = 1", (RUN.dataset,)).fetchone()[0]
    yes = next(r for r in t.rows if r.value == "yes")
    assert yes.items == direct > 0 and query.count(env.conn, yes.filter) == direct
    counts = facet_table(env.conn, RUN, "gold_count")
    assert all(isinstance(r.value, str) for r in counts.rows)
    for r in counts.rows:
        assert query.count(env.conn, r.filter) == r.items


def test_two_keystrokes_who_questions_across_sentences(env: Env) -> None:
    """'F1 on who-questions whose answer is not in the question's sentence': two facet selections."""
    f = facets.select(facets.select(RUN, "qword", "who"), "cross_sentence", "yes")
    direct = env.conn.execute(
        "SELECT COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ?"
        " AND i.question_type = 'who' AND i.cross_sentence = 1", (RUN.dataset,)).fetchone()[0]
    assert query.count(env.conn, f) == direct
    assert query.metrics(env.conn, f) is not None


def test_the_facet_panel_lists_the_new_facets(env: Env) -> None:
    names = [t.name for t in facet_tables(env.conn, RUN)]
    for name in ("error_category", "qword", "answer_position", "cross_sentence", "question_overlap", "gold_count",
                 "gold_agreement", "passage_length"):
        assert name in names
    assert "error_category" not in [t.name for t in facet_tables(env.conn, RUN.with_(run=None))]


def test_export_has_the_category_and_every_feature(env: Env) -> None:
    frame = query.item_table(env.conn, RUN)
    for column in ("error_category", "question_type", "gold_length", "passage_length", "answer_position",
                   "gold_count", "gold_agreement", "cross_sentence", "question_overlap"):
        assert column in frame.columns, column
    stored = dict(env.conn.execute(
        "SELECT i.key, p.error_category FROM predictions p JOIN items i ON i.id = p.item_id JOIN runs r"
        " ON r.id = p.run_id WHERE r.name = ?", (RUN.run,)).fetchall())
    assert {k: c for k, c in zip(frame["key"], frame["error_category"]) if c is not None} == stored
    assert set(frame["cross_sentence"].drop_nulls()) <= {"yes", "no"}


def test_the_detail_gives_the_stored_category_with_its_reason(env: Env) -> None:
    """The detail recomputes the reason (a pure function); its code is the one ingest stored."""
    rows = env.conn.execute(
        "SELECT p.item_id, r.name, p.error_category FROM predictions p JOIN runs r ON r.id = p.run_id").fetchall()
    for item_id, run, stored in rows:
        d = query.item_detail(env.conn, item_id, run)
        assert d is not None and d.prediction is not None
        assert d.prediction.category == stored, (run, d.key)
        assert d.prediction.category_reason
        assert all(o.category is not None for o in d.others)
    d = query.item_detail(env.conn, rows[0][0], rows[0][1])
    assert d is not None and d.features["question_type"] and "gold_count" in d.features
