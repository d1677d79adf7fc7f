"""Search matches what it says (a question, any gold, run A's prediction holding the text), whether
the rows are in the trigram index or wait for it (matched by LIKE), and pages of a search come in
`order_clause` order whichever way `page_ids` finds them (sorting the matches, walking an index)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from qa_inspect.core.query import Filter, count, page_ids
from qa_inspect.core.query import paging
from qa_inspect.core.query.sql import build, build_parts, order_clause

from tests.helpers import Env


def _reference(conn: Any, f: Filter) -> list[int]:
    sql, params = build(conn, f)
    return [r[0] for r in conn.execute(f"SELECT i.id {sql} ORDER BY {order_clause(f)}", params)]


def _holding(conn: Any, run: str, text: str) -> set[int]:
    """Items of run's dataset whose question, a gold or run's prediction holds `text` (Python)."""
    run_id, ds = conn.execute("SELECT id, dataset_id FROM runs WHERE name = ?", (run,)).fetchone()
    out = set()
    for item_id, question in conn.execute("SELECT id, question FROM items WHERE dataset_id = ?", (ds,)):
        texts = [question, *(g for (g,) in conn.execute("SELECT text FROM golds WHERE item_id = ?", (item_id,)))]
        texts += [p for (p,) in conn.execute("SELECT text FROM predictions WHERE run_id = ? AND item_id = ?",
                                             (run_id, item_id))]
        if any(text in t for t in texts):
            out.add(item_id)
    return out


def _texts(conn: Any) -> tuple[str, list[str]]:
    """The last run and search texts from its data: part of a question, of a gold, of a prediction
    early and late in id order (Chinese: no case folding to tell FTS and LIKE apart), one
    two-character text, one found nowhere."""
    run, run_id, ds = conn.execute("SELECT name, id, dataset_id FROM runs ORDER BY id DESC LIMIT 1").fetchone()

    def one(sql: str, *params: Any) -> str:
        return str(conn.execute(sql, params).fetchone()[0])

    questions = "SELECT question FROM items WHERE dataset_id = ? AND length(question) > 8 ORDER BY id"
    preds = "SELECT text FROM predictions WHERE run_id = ? AND length(text) > 4 ORDER BY id"
    question, late = one(f"{questions} LIMIT 1 OFFSET 2", ds), one(f"{questions} DESC LIMIT 1", ds)
    pred, late_pred = one(f"{preds} LIMIT 1 OFFSET 3", run_id), one(f"{preds} DESC LIMIT 1", run_id)
    gold = one("SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.dataset_id = ?"
               " AND length(g.text) > 4 ORDER BY g.id DESC LIMIT 1", ds)
    return run, [question[2:5], late[1:5], gold[:4], pred[1:4], late_pred[:3], question[:2], "不存在的字符串",
                 "什么"]


def _unindex_above(conn: sqlite3.Connection, items: int, predictions: int) -> None:
    """Make the database look like a big load left rows above these marks to index later."""
    conn.execute("DELETE FROM items_fts WHERE rowid > ?", (items,))
    conn.execute("INSERT INTO predictions_fts (predictions_fts, rowid, text)"
                 " SELECT 'delete', id, text FROM predictions WHERE id > ?", (predictions,))
    conn.executemany("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                     [("search_index:items", str(items)), ("search_index:predictions", str(predictions))])


@pytest.mark.parametrize("pending", [False, True])
def test_a_search_finds_every_item_holding_the_text(env: Env, pending: bool) -> None:
    conn = env.conn
    run, texts = _texts(conn)
    if pending:  # the second half of the run's items and predictions wait to be indexed
        items, preds = conn.execute(
            "SELECT (SELECT (MIN(id) + MAX(id)) / 2 FROM items WHERE dataset_id = r.dataset_id),"
            " (SELECT (MIN(id) + MAX(id)) / 2 FROM predictions WHERE run_id = r.id) FROM runs r WHERE name = ?",
            (run,)).fetchone()
        _unindex_above(conn, items, preds)
    for text in texts:
        want = _holding(conn, run, text)
        assert set(_reference(conn, Filter(run=run, search=text))) == want, text
        assert count(conn, Filter(run=run, search=text)) == len(want), text
        b = build_parts(conn, Filter(run=run, search=text), scan_short_search=True)
        listed = conn.execute(f"SELECT i.id FROM items i LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
                              f"{b.where_sql()}", [b.run, *b.params]).fetchall()
        assert {r[0] for r in listed} == want, text
    assert any(_holding(conn, run, t) for t in texts[:3])


@pytest.mark.parametrize(("few_hits", "budget"), [(0, 20_000), (10**9, 0)])
@pytest.mark.parametrize("sort", ["key", "em", "f1", "refused", "stale", "prediction", "delta"])
def test_pages_of_a_search_equal_the_sorted_query(env: Env, monkeypatch: pytest.MonkeyPatch, sort: str,
                                                  few_hits: int, budget: int) -> None:
    """Every way to a page of a search agrees: sort the few matches or walk the score index; test
    a short text item by item or list its matches (budget 0: no page is full within the walk)."""
    monkeypatch.setattr(paging, "FEW_HITS", few_hits)
    monkeypatch.setattr(paging, "WALK_BUDGET", budget)
    conn = env.conn
    run, texts = _texts(conn)
    other = conn.execute("SELECT name FROM runs WHERE name != ? AND dataset_id = (SELECT dataset_id FROM runs"
                         " WHERE name = ?) LIMIT 1", (run, run)).fetchone()
    for text in texts:
        base = Filter(run=run, search=text, sort=sort)
        variants = [base, base.with_(descending=True), base.with_(em=0)]
        if other:
            variants.append(base.with_(compare=other[0], descending=True))
        for f in variants:
            want = _reference(conn, f)
            n = len(want)
            for offset, limit in [(0, 5), (0, n + 5), (n // 2, 3), (max(0, n - 2), 10)]:
                assert page_ids(conn, f, offset, limit) == want[offset:offset + limit], (f, offset, limit)


def test_a_rare_search_starts_from_its_matches(env: Env) -> None:
    """The page of a search looks its matches up by id (not every item tested against them)."""
    from qa_inspect.core.query.paging import explain_page

    conn = env.conn
    run, texts = _texts(conn)
    plan = explain_page(conn, Filter(run=run, search=texts[0]))
    assert "rowid=?" in plan and "TEMP B-TREE FOR ORDER BY" not in plan, plan
