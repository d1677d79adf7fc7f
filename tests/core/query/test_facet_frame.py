"""Facet counts from a run's facet frame (`core.query.facet_frame`) equal one pass over the
filter's items evaluating every facet expression (`pass_counts`), before and after the journal
moves the live facets (stale flags, labels) and after a reload changes the data."""

from __future__ import annotations

import os
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core import flags
from qa_inspect.core.labels import add_labels
from qa_inspect.core.query import Filter, facet_tables
from qa_inspect.core.query.count_frame import facet_counts
from qa_inspect.core.query.facets import facet_defs, pass_counts
from tests.helpers import Env

SETTINGS = settings(max_examples=int(os.environ.get("QA_FACET_EXAMPLES", "60")), deadline=None, derandomize=True)


def _same(conn: sqlite3.Connection, f: Filter) -> None:
    defs = facet_defs(conn, f)
    fast = facet_counts(conn, f, defs)
    assert fast is not None
    assert fast == pass_counts(conn, f, defs), f


@st.composite
def filters(draw: st.DrawFn, conn: sqlite3.Connection) -> Filter:
    runs = [r[0] for r in conn.execute("SELECT name FROM runs ORDER BY id")]
    datasets = [r[0] for r in conn.execute("SELECT name FROM datasets ORDER BY id")]
    categories = [r[0] for r in conn.execute("SELECT DISTINCT error_category FROM predictions"
                                             " WHERE error_category IS NOT NULL ORDER BY 1")]
    run = draw(st.sampled_from([None, *runs]))
    return Filter(
        dataset=None if run else draw(st.sampled_from([None, *datasets])), run=run,
        em=draw(st.sampled_from([None, 0, 1])) if run else None, stale=draw(st.sampled_from([None, True, False])),
        f1_min=draw(st.sampled_from([None, 0.5])) if run else None,
        facets=(("error_category", draw(st.sampled_from(categories))),) if run and categories and draw(st.booleans())
        else (),
        outcome_threshold=draw(st.sampled_from([None, 0.3])),
    )


def test_frame_counts_equal_a_pass_over_the_items(env: Env) -> None:
    conn = env.conn
    run, dataset, keys = _labelled_and_flagged(conn)

    @SETTINGS
    @given(filters(conn))
    def check(f: Filter) -> None:
        _same(conn, f)

    check()
    # the journal moves on: the live facets follow at once, the frame is not read again
    add_labels(conn, run, keys[2:4], ["paraphrase"], author="bo")
    gold = conn.execute("SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = ?"
                        " ORDER BY g.idx LIMIT 1", (keys[5],)).fetchone()[0]
    flags.mark(conn, dataset, keys[5], gold, author="ann")
    _same(conn, Filter(run=run))
    _same(conn, Filter(run=run, stale=True))


def _labelled_and_flagged(conn: sqlite3.Connection) -> tuple[str, str, list[str]]:
    """Labels on a few items of the first run with predictions and a stale flag: the live facets
    have values to count."""
    run, dataset = conn.execute(
        "SELECT r.name, d.name FROM runs r JOIN datasets d ON d.id = r.dataset_id ORDER BY r.id LIMIT 1").fetchone()
    keys = [r[0] for r in conn.execute(
        "SELECT i.key FROM items i JOIN runs r ON r.dataset_id = i.dataset_id WHERE r.name = ? ORDER BY i.id LIMIT 8",
        (run,))]
    add_labels(conn, run, keys[:3], ["format"], author="ana")
    gold = conn.execute("SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = ?"
                        " ORDER BY g.idx LIMIT 1", (keys[1],)).fetchone()[0]
    flags.mark(conn, dataset, keys[1], gold, author="ann")
    return run, dataset, keys


def test_tables_follow_a_rescore(env: Env) -> None:
    """A re-score (scores rewritten, `scoring_rules` moved) restamps the frame: the tables equal a
    fresh pass, not the counts kept from before."""
    run = env.conn.execute("SELECT r.name FROM runs r WHERE EXISTS (SELECT 1 FROM predictions p"
                           " WHERE p.run_id = r.id AND p.em IS NOT NULL) ORDER BY r.id LIMIT 1").fetchone()[0]
    before = facet_tables(env.conn, Filter(run=run))
    env.conn.execute("UPDATE predictions SET em = 1 - em WHERE em IS NOT NULL AND run_id ="
                     " (SELECT id FROM runs WHERE name = ?)", (run,))
    env.conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('scoring_rules', 'rescored in a test')")
    env.conn.commit()
    _same(env.conn, Filter(run=run))
    assert facet_tables(env.conn, Filter(run=run)) != before
