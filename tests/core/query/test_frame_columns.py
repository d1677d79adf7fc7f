"""A run's frame (`core.query.facet_frame`), read as comma-joined texts of integers, holds column by
column what the rows say when each is read one by one: every facet's value per item, the error,
and run A's scores bit for bit. On the sample runs as loaded, and on a generated dataset whose
scores are arbitrary doubles (tiny ones, NULLs, thirds), whose predictions are missing for some
items and stored out of item order, and whose labels lie outside every facet's fixed order."""

from __future__ import annotations

import math
import random
import sqlite3
from typing import Any

from qa_inspect.core.query import Filter, facet_frame
from qa_inspect.core.query.facets import facet_defs
from qa_inspect.core.query.sql import ERROR_SQL, FACETS
from qa_inspect.core.store import ERROR_SQL as STORE_ERROR_SQL

from tests.helpers import Env


def _rows(conn: sqlite3.Connection, run: str, expr: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """`expr` per item of the run's dataset in id order, the run's prediction joined (one row each)."""
    return [r[0] for r in conn.execute(
        f"SELECT ({expr}) FROM items i LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id ="
        " (SELECT id FROM runs WHERE name = ?) WHERE i.dataset_id = (SELECT dataset_id FROM runs WHERE name = ?)"
        " ORDER BY i.id", [*params, run, run])]


def _same_floats(got: list[float], want: list[Any]) -> bool:
    return all((w is None and math.isnan(g)) or (w is not None and g == w) for g, w in zip(got, want, strict=True))


def _check_run(conn: sqlite3.Connection, run: str) -> None:
    f = Filter(run=run)
    defs = [d for d in facet_defs(conn, f) if d.name not in ("stale", "label")]
    frame = facet_frame(conn, f, defs)
    assert frame is not None
    assert frame.ids.tolist() == _rows(conn, run, "i.id")
    for d in defs:
        codes, values = frame.codes[(d.name, d.expr, d.params)]
        assert [values[c] for c in codes.tolist()] == _rows(conn, run, d.expr, d.params), d.name
    assert frame.errors.tolist() == [int(e or 0) for e in _rows(conn, run, ERROR_SQL)]
    assert frame.predicted.tolist() == [bool(v) for v in _rows(conn, run, "p.id IS NOT NULL")]
    assert frame.em.tolist() == [-1 if v is None else v for v in _rows(conn, run, "p.em")]
    assert frame.refused.tolist() == [-1 if v is None else v for v in _rows(conn, run, "p.refused")]
    assert _same_floats(frame.f1.tolist(), _rows(conn, run, "p.f1"))
    assert _same_floats(frame.f1_recall.tolist(), _rows(conn, run, "p.f1_recall"))


def test_frames_of_the_sample_runs_hold_what_the_rows_say(env: Env) -> None:
    assert ERROR_SQL == STORE_ERROR_SQL  # the one definition of an error is the one compared with
    for (run,) in env.conn.execute("SELECT name FROM runs WHERE dataset_id IS NOT NULL ORDER BY id").fetchall():
        _check_run(env.conn, run)


def _generated(conn: sqlite3.Connection, seed: int) -> str:
    """The first run's dataset rewritten: labels outside the fixed orders, arbitrary scores, some
    predictions gone, the rest stored again in shuffled order (new row ids: a scan by rowid is not
    by item). Returns the run's name."""
    rng = random.Random(seed)
    run_id, run, ds = conn.execute("SELECT id, name, dataset_id FROM runs WHERE dataset_id IS NOT NULL"
                                   " ORDER BY id LIMIT 1").fetchone()
    items = [r[0] for r in conn.execute("SELECT id FROM items WHERE dataset_id = ?", (ds,))]
    pick = ("what", "who", "odd, with a comma", None, "第三")
    conn.executemany("UPDATE items SET question_type = ?, gold_agreement = ?, split = ? WHERE id = ?",
                     [(rng.choice(pick), rng.choice(pick), rng.choice(pick), i) for i in items])
    scores = (lambda: None, lambda: 0.0, lambda: 1.0, lambda: 1 / 3, lambda: rng.random(),
              lambda: rng.random() * 2.0 ** -30, lambda: 5e-324)
    conn.execute("CREATE TEMP TABLE kept AS SELECT * FROM predictions WHERE run_id = ?", (run_id,))
    conn.execute("DELETE FROM predictions WHERE run_id = ?", (run_id,))
    rows = conn.execute("SELECT rowid FROM kept").fetchall()
    rng.shuffle(rows)
    for n, (rowid,) in enumerate(rows):
        if n % 7 == 3:
            continue  # no prediction for this item
        conn.execute("UPDATE kept SET f1 = ?, f1_recall = ?, em = ?, refused = ?, id = NULL WHERE rowid = ?",
                     (rng.choice(scores)(), rng.choice(scores)(), rng.choice((None, 0, 1)), rng.choice((None, 0, 1)),
                      rowid))
        conn.execute("INSERT INTO predictions SELECT * FROM kept WHERE rowid = ?", (rowid,))
    conn.execute("DROP TABLE kept")
    conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('scoring_rules', 'generated in a test')")
    conn.commit()
    return str(run)


def test_frames_of_a_generated_dataset_hold_what_the_rows_say(env: Env) -> None:
    run = _generated(env.conn, seed=5)
    tiny = env.conn.execute("SELECT COUNT(*) FROM predictions WHERE f1 > 0 AND f1 < 0.0009765625").fetchone()[0]
    assert tiny > 0  # scores a scaled integer cannot hold were there, read again as floats
    order = [r[0] for r in env.conn.execute("SELECT p.item_id FROM predictions p JOIN runs r ON r.id = p.run_id"
                                            " WHERE r.name = ? ORDER BY p.rowid", (run,))]
    assert order != sorted(order)  # the predictions' scan is not in item order
    _check_run(env.conn, run)
    assert FACETS["qword"].order is not None and "odd, with a comma" not in FACETS["qword"].order
