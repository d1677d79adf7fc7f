"""The search index's high-water marks: which items and predictions the full-text index holds.

Every row with an id up to its table's mark (settings `search_index:items`,
`search_index:predictions`) is in the index with its current text, no row above it is. The load
side (`core.load.search_index`) fills the index and moves the marks; the read side
(`core.query`) asks `pending_marks` whether a search must also match the rows above them by
`LIKE`. Both sides read the marks here, so neither imports the other.
"""

from __future__ import annotations

import sqlite3
from typing import Any

__all__ = ["ITEMS_MARK", "PREDICTIONS_MARK", "index_marks", "pending_marks", "pending_rows", "set_marks"]

ITEMS_MARK = "search_index:items"
PREDICTIONS_MARK = "search_index:predictions"


def _conn(conn: Any) -> sqlite3.Connection:
    return getattr(conn, "conn", conn)


def index_marks(conn: Any) -> tuple[int, int]:
    """(items mark, predictions mark). A database written before marks existed had every row
    indexed on insert: its marks start at the highest id (an empty one at 0)."""
    conn = _conn(conn)
    marks = dict(conn.execute("SELECT key, value FROM settings WHERE key IN (?, ?)", (ITEMS_MARK, PREDICTIONS_MARK)))
    if ITEMS_MARK in marks and PREDICTIONS_MARK in marks:
        return int(marks[ITEMS_MARK]), int(marks[PREDICTIONS_MARK])
    items = conn.execute("SELECT COALESCE(MAX(id), 0) FROM items").fetchone()[0]
    preds = conn.execute("SELECT COALESCE(MAX(id), 0) FROM predictions").fetchone()[0]
    set_marks(conn, items, preds)
    return items, preds


def set_marks(conn: sqlite3.Connection, items: int, predictions: int) -> None:
    """Move both marks (the caller has indexed every row up to them)."""
    conn.executemany(
        "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
        [(ITEMS_MARK, str(items)), (PREDICTIONS_MARK, str(predictions))],
    )


def pending_marks(conn: Any) -> tuple[int, int] | None:
    """The marks when some row is not indexed yet (a search matches those by LIKE), else None."""
    conn = _conn(conn)
    row = conn.execute(
        "SELECT (SELECT COALESCE(MAX(id), 0) FROM items), (SELECT COALESCE(MAX(id), 0) FROM predictions),"
        " (SELECT value FROM settings WHERE key = ?), (SELECT value FROM settings WHERE key = ?)",
        (ITEMS_MARK, PREDICTIONS_MARK),
    ).fetchone()
    if row[2] is None or row[3] is None:
        return None  # written before marks: all indexed
    items, preds = int(row[2]), int(row[3])
    return (items, preds) if row[0] > items or row[1] > preds else None


def pending_rows(conn: Any) -> int:
    """How many items and predictions wait to be indexed, at most (ids above the marks: counting
    the rows themselves would read a million-row table on every load)."""
    conn = _conn(conn)
    items, preds = index_marks(conn)
    top_items, top_preds = conn.execute(
        "SELECT (SELECT COALESCE(MAX(id), 0) FROM items), (SELECT COALESCE(MAX(id), 0) FROM predictions)").fetchone()
    return max(0, top_items - items) + max(0, top_preds - preds)
