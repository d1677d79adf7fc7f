"""Indexes of texts in text order, for the browser's sorts by a question or another run's answer.

Sorting a million items by run B's answer, or by question, reads and sorts a million texts for
every page and every `n`/`p` (half a second to seconds). With an index on the text the page walks
it in order and stops after it (`core.query.column_order`, `core.query.paging`, `core.query.keyset`):
`predictions_run_text (run_id, text, item_id)` and `items_question (dataset_id, question)`.

Text keys are costly to keep in step: a million questions inserted with their index in place take
12 s, against 1.6 s to build it afterwards. So a load makes them once it is done, and only once
some dataset is large (`LARGE_DATASET` items: about 8 s and 155 MB for a million items and two
runs); smaller datasets sort in milliseconds. After that SQLite keeps them in step with every
write, so nothing stored goes stale; a query uses one only when it is there.
"""

from __future__ import annotations

import sqlite3
from typing import Any

__all__ = ["ANSWER_INDEX", "LARGE_DATASET", "QUESTION_INDEX", "index_texts"]

ANSWER_INDEX = "predictions_run_text"
QUESTION_INDEX = "items_question"
_INDEXES = {ANSWER_INDEX: "predictions(run_id, text, item_id)", QUESTION_INDEX: "items(dataset_id, question)"}
LARGE_DATASET = 50_000
"""A large dataset: from this many items on, work that a small one does in well under a second is
stored or indexed instead (these text indexes, the runs' facet frames, the pairs' Δ orders, the
count frame). The one definition; each user names it for its own tests to move."""


def index_texts(conn: Any, large: int | None = None) -> bool:
    """Create the text indexes (the answers' and the questions') when a dataset has `large`
    (default `LARGE_DATASET`) items or more and they are not there yet; True when this call
    created one."""
    large = LARGE_DATASET if large is None else large
    present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (?, ?)",
                                          tuple(_INDEXES))}
    if present == set(_INDEXES):
        return False
    biggest = conn.execute("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM items GROUP BY dataset_id)").fetchone()[0]
    if not biggest or biggest < large:
        return False
    analysed = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone() is not None
    try:
        for name, on in _INDEXES.items():
            if name not in present:
                conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {on}")
                if analysed:
                    conn.execute(f"ANALYZE {name}")  # beside analysed indexes (see `schema.migrate`)
        conn.commit()
    except sqlite3.OperationalError:  # read-only or busy: these sorts sort instead
        conn.rollback()
        return False
    return True
