"""An index of the runs' answers in text order, for the browser's sort by another run's answer.

Sorting a million items by run B's answer reads and sorts a million texts for every page (about
half a second even with the answers sorted alone). With an index `(run_id, text, item_id)` the
page walks run B's answers in order and stops after it (`core.query.column_order`).

The index costs space and time on every insert, so a load makes it only once some dataset is
large (`LARGE_DATASET` items: 6.5 s and about 65 MB for two runs over a million items); smaller
datasets sort their answers in milliseconds. SQLite keeps it in step with every insert, update
and delete, so nothing stored goes stale; a query uses it only when it is there.
"""

from __future__ import annotations

import sqlite3
from typing import Any

__all__ = ["ANSWER_INDEX", "LARGE_DATASET", "index_answers"]

ANSWER_INDEX = "predictions_run_text"
LARGE_DATASET = 50_000
"""Items a dataset has before a load indexes the answers (the size the Δ order starts at too)."""


def index_answers(conn: Any, large: int | None = None) -> bool:
    """Create the answers' index when a dataset has `large` (default `LARGE_DATASET`) items or
    more and it is not there yet; True when this call created it."""
    large = LARGE_DATASET if large is None else large
    present = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (ANSWER_INDEX,))
    if present.fetchone() is not None:
        return False
    biggest = conn.execute("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM items GROUP BY dataset_id)").fetchone()[0]
    if not biggest or biggest < large:
        return False
    try:
        conn.execute(f"CREATE INDEX IF NOT EXISTS {ANSWER_INDEX} ON predictions(run_id, text, item_id)")
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone():
            conn.execute(f"ANALYZE {ANSWER_INDEX}")  # beside analysed indexes (see `schema.migrate`)
        conn.commit()
    except sqlite3.OperationalError:  # read-only or busy: sorts by answer sort instead
        conn.rollback()
        return False
    return True
