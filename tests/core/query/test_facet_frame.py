"""Facet counts from a run's facet frame (`core.query.facet_frame`) equal one pass over the
filter's items evaluating every facet expression (`pass_counts`), before and after the journal
moves the live facets (stale flags, labels) and after a reload changes the data; read from the
rows or from the frame stored in the database (`warm_frames`, another process)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core import flags
from qa_inspect.core.labels import add_labels
from qa_inspect.core.query import (Filter, count, facet_frame, facet_tables, kept_frame,
                                   metrics_ab, warm_frames)
from qa_inspect.core.query.count_frame import facet_counts
from qa_inspect.core.query.facets import facet_defs, pass_counts
from qa_inspect.core.query.sql import FACETS, FacetDef, build
from qa_inspect.core.store import open_db
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


def _copy(env: Env, tmp_path: Path) -> sqlite3.Connection:
    """The database under another path: nothing of it is kept in this process (as in a new one),
    what is stored in it is."""
    env.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    copy = tmp_path / "copy.db"
    shutil.copy(env.db, copy)
    return open_db(copy).conn


def test_a_stored_frame_counts_as_the_rows_do(env: Env, tmp_path: Path) -> None:
    """`warm_frames` stores every run's frame; another process reads it without a pass (kept_frame)
    and counts every facet and filter as one pass over the items does; a second warm-up reads nothing."""
    conn = env.conn
    run, _, _ = _labelled_and_flagged(conn)
    runs = conn.execute("SELECT COUNT(*) FROM runs WHERE dataset_id IS NOT NULL").fetchone()[0]
    assert warm_frames(conn, min_items=0) == runs
    assert warm_frames(conn, min_items=0) == 0
    other = _copy(env, tmp_path)
    try:
        frame = kept_frame(other, Filter(run=run))
        assert frame is not None and kept_frame(other, Filter(run=run)) is frame
        for f in (Filter(run=run), Filter(run=run, em=0), Filter(run=run, stale=True), Filter(run=run, search="的"),
                  Filter(run=run, facets=(("error_category", "empty"),), f1_max=0.5)):
            _same(other, f)
        for f in (Filter(run=run), Filter(run=run, em=0), Filter(run=run, f1_min=0.3, f1_max=0.9)):
            fast, _ = metrics_ab(other, f)  # from the stored frame's scores
            assert (fast.items, fast.predicted, fast.answered) == (count(other, f), *_sql_counts(other, f))
    finally:
        other.close()


def _sql_counts(conn: sqlite3.Connection, f: Filter) -> tuple[int, int]:
    """(items with a prediction, answered items) of `f` by SQL alone."""
    sql, params = build(conn, f)
    row = conn.execute(f"SELECT COUNT(p.id), COALESCE(SUM(p.id IS NOT NULL AND COALESCE(p.refused, 0) = 0), 0) {sql}",
                       params).fetchone()
    return int(row[0]), int(row[1])


def test_a_stored_frame_of_older_data_is_not_read(env: Env, tmp_path: Path) -> None:
    """A re-score after the warm-up restamps the data: the stored frame is not used, and the one
    read from the rows (and stored again) counts the new scores."""
    conn = env.conn
    run = conn.execute("SELECT r.name FROM runs r WHERE EXISTS (SELECT 1 FROM predictions p"
                       " WHERE p.run_id = r.id AND p.em IS NOT NULL) ORDER BY r.id LIMIT 1").fetchone()[0]
    warm_frames(conn, min_items=0)
    conn.execute("UPDATE predictions SET em = 1 - em WHERE em IS NOT NULL AND run_id ="
                 " (SELECT id FROM runs WHERE name = ?)", (run,))
    conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('scoring_rules', 'rescored in a test')")
    other = _copy(env, tmp_path)
    try:
        assert kept_frame(other, Filter(run=run)) is None
        _same(other, Filter(run=run))
    finally:
        other.close()


def test_values_outside_a_facets_order_are_coded_too(env: Env) -> None:
    """A facet codes its values in SQL by its fixed order; a value the order lacks (here most of
    them) is read and coded afterwards: each item's code still names its own value."""
    conn = env.conn
    run = conn.execute("SELECT name FROM runs ORDER BY id LIMIT 1").fetchone()[0]
    f = Filter(run=run)
    for d in (FacetDef("qword_what", "question type", FACETS["qword"].expr, order=("what",)),
              FacetDef("category_empty", "category", FACETS["error_category"].expr, order=("empty",), needs_run=True)):
        frame = facet_frame(conn, f, [d])
        assert frame is not None
        codes, values = frame.codes[(d.name, d.expr, d.params)]
        sql, params = build(conn, f)
        want = [r[0] for r in conn.execute(f"SELECT ({d.expr}) {sql} ORDER BY i.id", [*d.params, *params])]
        assert [values[c] for c in codes.tolist()] == want
        assert len(set(want)) > 2  # values beyond the order were there to code
