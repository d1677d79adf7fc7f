"""Index-ordered pages (`core.query.paging`) give the rows the one sorted query gives, in order,
at every offset: across the seam between a score's values and the items without one too."""

from __future__ import annotations

from typing import Any

import pytest
from qa_inspect.core import flags
from qa_inspect.core.query import Filter, explain_page, page_ids, paging
from qa_inspect.core.store import index_texts
from qa_inspect.core.query.sql import build, order_clause

from tests.helpers import Env


def _reference(conn: Any, f: Filter) -> list[int]:
    sql, params = build(conn, f)
    return [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {order_clause(f)}", params)]


def _runs(conn: Any) -> list[tuple[str, str, list[str]]]:
    out = []
    for ds, ds_id in conn.execute("SELECT name, id FROM datasets ORDER BY id").fetchall():
        runs = [r[0] for r in conn.execute("SELECT name FROM runs WHERE dataset_id = ? ORDER BY id", (ds_id,))]
        out.append((ds, ds_id, runs))
    return out


@pytest.mark.parametrize(("budget", "few"), [(20_000, 5_000), (0, 0)])
@pytest.mark.parametrize("sort", ["key", "em", "f1", "f1_recall", "refused", "stale", "question", "prediction", "delta",
                                  "split", "tag", "answer_type"])
def test_pages_equal_the_sorted_query_at_every_offset(env: Env, monkeypatch: pytest.MonkeyPatch, sort: str,
                                                      budget: int, few: int) -> None:
    """Budget 0: a walk down a score index finds no full page, the sorted predictions do; few 0:
    labels of several values are walked item by item, not sorted from their index."""
    monkeypatch.setattr(paging, "WALK_BUDGET", budget)
    monkeypatch.setattr(paging, "FEW_HITS", few)
    conn = env.conn
    for ds, ds_id, runs in _runs(conn):
        key, gold = conn.execute(
            "SELECT i.key, g.text FROM items i JOIN golds g ON g.item_id = i.id WHERE i.dataset_id = ?"
            " ORDER BY i.id LIMIT 1 OFFSET 3", (ds_id,)).fetchone()
        flags.mark(conn, ds, key, gold, author="t")  # one stale item: the stale sort has two parts
        for run in runs:
            base = Filter(dataset=ds, run=run, sort=sort)
            variants = [base, base.with_(em=0), base.with_(descending=True), base.with_(refused=False),
                        base.with_(descending=True, f1_max=0.5), base.with_(em=0, f1_min=0.1, descending=True),
                        base.with_(facets=(("error_category", "no prediction"),)),
                        base.with_(facets=(("error_category", "boundary-long"), ("error_category", "empty")), em=0),
                        base.with_(em=0, splits=("dev",)), base.with_(em=1, stale=False),
                        base.with_(answer_types=("person", "work", "time")), base.with_(splits=("dev", "test")),
                        base.with_(tags=("fast-changing", "slow-changing"), answer_types=("person", "event"),
                                   descending=True),
                        base.with_(facets=(("error_category", "none such"),))]
            if len(runs) > 1:
                other = next(r for r in runs if r != run)
                variants += [base.with_(compare=other), base.with_(compare=other, only_disagree=True, descending=True)]
            for f in variants:
                want = _reference(conn, f)
                n = len(want)
                for offset, limit in [(0, 7), (0, n + 5), (n // 2, 9), (max(0, n - 4), 10), (n + 3, 5)]:
                    assert page_ids(conn, f, offset, limit) == want[offset:offset + limit], (f, offset, limit)


def test_a_page_walks_an_index_in_order_instead_of_sorting_every_item(env: Env) -> None:
    from qa_inspect.core.query.paging import explain_page

    conn = env.conn
    ds, _, runs = _runs(conn)[0]
    for f in [Filter(dataset=ds, run=runs[0], em=0), Filter(dataset=ds, run=runs[0], sort="f1", descending=True),
              Filter(dataset=ds, run=runs[0], sort="em", em=0)]:
        plan = explain_page(conn, f)
        assert "TEMP B-TREE" not in plan, plan
    questions = [Filter(dataset=ds, run=runs[0], sort="question"),
                 Filter(run=runs[0], sort="question", descending=True, em=0)]
    for f in questions:  # a small dataset has no question index: its few questions are sorted
        assert "items_question" not in explain_page(conn, f)
        want = page_ids(conn, f, 0, 500)
        assert want == _reference(conn, f)[:500]
    assert index_texts(conn, large=1)  # as a load makes it for a large dataset
    for f in questions:
        plan = explain_page(conn, f)  # the question text's index, in the order shown
        assert "items_question" in plan and "TEMP B-TREE" not in plan, plan
        assert page_ids(conn, f, 0, 500) == _reference(conn, f)[:500]


def test_a_rare_value_is_found_from_an_index_not_by_walking_every_item(env: Env) -> None:
    """Several values of a label held by few items start from the label's index; a condition on
    run A's prediction alone that an item without one fails walks run A's covering score index."""
    from qa_inspect.core.query.paging import explain_page

    conn = env.conn
    run = "glm-6b"
    plan = explain_page(conn, Filter(run=run, answer_types=("person", "work")))
    assert "items_answer_type" in plan, plan
    for f in [Filter(run=run, facets=(("error_category", "empty"),)), Filter(run=run, em=1)]:
        plan = explain_page(conn, f)
        assert "COVERING INDEX predictions_scores" in plan and "items" not in plan, (f, plan)
        assert "TEMP B-TREE" not in plan, (f, plan)
    plan = explain_page(conn, Filter(run=run, sort="f1", em=1, descending=True))  # first a walk of the f1 index
    assert "predictions_run_f1" in plan and "items" not in plan and "TEMP B-TREE" not in plan, plan


def test_no_prediction_of_a_run_that_answers_every_item_is_empty_without_a_pass(env: Env) -> None:
    """A run with a prediction for every item has no `no prediction` items: the page says so from
    two counts (no query walks the items), and equals the sorted query; a run that misses items
    still lists them."""
    conn = env.conn
    for dataset, _, runs in _runs(conn):
        for run in runs:
            f = Filter(dataset=dataset, run=run, facets=(("error_category", "no prediction"),))
            assert page_ids(conn, f, 0, 50) == _reference(conn, f)[:50]
            covers = conn.execute("SELECT (SELECT COUNT(*) FROM predictions p JOIN runs r ON r.id = p.run_id"
                                  " WHERE r.name = ?) = (SELECT COUNT(*) FROM items i JOIN datasets d"
                                  " ON d.id = i.dataset_id WHERE d.name = ?)", (run, dataset)).fetchone()[0]
            assert (explain_page(conn, f) == "") == bool(covers)
    run_id, item_id = conn.execute("SELECT run_id, item_id FROM predictions ORDER BY id LIMIT 1").fetchone()
    conn.execute("DELETE FROM predictions WHERE run_id = ? AND item_id = ?", (run_id, item_id))
    dataset, run = conn.execute("SELECT d.name, r.name FROM runs r JOIN datasets d ON d.id = r.dataset_id"
                                " WHERE r.id = ?", (run_id,)).fetchone()
    f = Filter(dataset=dataset, run=run, facets=(("error_category", "no prediction"),))
    assert item_id in page_ids(conn, f, 0, 50) and page_ids(conn, f, 0, 50) == _reference(conn, f)[:50]
