"""The full-text search index (`items_fts`, `predictions_fts`), filled after the bulk insert.

Indexing costs more than inserting the rows (trigrams of every question, gold and prediction: at
100k questions two runs it doubled a load), so a load writes rows only and the index catches up
afterwards: at the end of a small load, or on first search for a big one (`build_search_index`,
with progress, committed in steps so an interrupted build resumes).

What is indexed is kept by a high-water mark per table (settings `search_index:items` and
`search_index:predictions`): every row with an id up to the mark is in the index with its current
text, no row above it is. Ingest assigns new ids above the mark (`next_id`), takes rows at or below
it out of the index before deleting or changing them (`unindex_items`, `unindex_predictions`),
and a search meanwhile matches the rows above the mark by `LIKE` (`pending_marks`), so results
never miss a row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from qa_inspect.core.store import ITEMS_MARK, PREDICTIONS_MARK, index_marks, pending_marks, pending_rows

__all__ = [
    "INLINE_LIMIT",
    "build_search_index",
    "index_marks",
    "next_id",
    "pending_marks",
    "pending_rows",
    "reindex_items",
    "unindex_items",
    "unindex_predictions",
]

INLINE_LIMIT = 50_000
"""A load whose new rows are at most this many indexes them before it ends (about a second)."""
STEP = 50_000
"""Rows indexed per committed step of `build_search_index`."""

_ITEM_TEXT = (
    "SELECT i.id, i.question, COALESCE((SELECT group_concat(t, char(10)) FROM"
    " (SELECT g.text AS t FROM golds g WHERE g.item_id = i.id ORDER BY g.idx)), '') FROM items i"
)
"""An item's index row: its question and its golds one per line (all golds, superseded too)."""


def next_id(conn: sqlite3.Connection, table: str) -> int:
    """The first id for rows inserted now: above every row and above the index mark (a row
    below the mark would count as indexed)."""
    mark = dict(zip(("items", "predictions"), index_marks(conn))).get(table, 0)
    top = conn.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0]  # noqa: S608
    return max(top, mark) + 1


def unindex_items(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> None:
    """Take items (`where` over `items`) out of the index before they go or change."""
    mark = index_marks(conn)[0]
    conn.execute(f"DELETE FROM items_fts WHERE rowid IN (SELECT id FROM items WHERE id <= ? AND ({where}))",
                 (mark, *params))


def reindex_items(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> None:
    """Index again items at or below the mark whose text was rewritten in place (`unindex_items` first)."""
    mark = index_marks(conn)[0]
    conn.execute(f"INSERT INTO items_fts (rowid, question, golds) {_ITEM_TEXT} WHERE i.id <= ? AND ({where})",
                 (mark, *params))


def unindex_predictions(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> None:
    """Take predictions out of the external-content index before their rows go (only those
    indexed: telling FTS5 to delete a row it never saw would corrupt it)."""
    mark = index_marks(conn)[1]
    conn.execute(
        "INSERT INTO predictions_fts (predictions_fts, rowid, text)"
        f" SELECT 'delete', id, text FROM predictions WHERE id <= ? AND ({where})",
        (mark, *params),
    )


Progress = Callable[[int, int, str], None]


def build_search_index(conn: Any, on_progress: Progress | None = None, *, step: int = STEP) -> int:
    """Index every row above the marks, `step` rows per transaction (an interrupted build keeps
    what it committed). Returns how many rows were indexed. Takes the write lock per step."""
    conn = getattr(conn, "conn", conn)  # an OpenDb or a plain connection
    total = pending_rows(conn)
    done = 0
    for table, mark_key in (("items", ITEMS_MARK), ("predictions", PREDICTIONS_MARK)):
        while True:
            conn.execute("BEGIN IMMEDIATE")
            try:
                mark = index_marks(conn)[0 if table == "items" else 1]
                ids = [r[0] for r in conn.execute(
                    f"SELECT id FROM {table} WHERE id > ? ORDER BY id LIMIT ?", (mark, step))]  # noqa: S608
                if ids:
                    _index_range(conn, table, mark, ids[-1])
                top = ids[-1] if ids else max(mark, conn.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0])  # noqa: S608
                conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (mark_key, str(top)))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            done += len(ids)
            if on_progress is not None:
                on_progress(done, total, f"indexing {table} for search")
            if len(ids) < step:
                break
    return done


def _index_range(conn: sqlite3.Connection, table: str, low: int, high: int) -> None:
    if table == "items":
        conn.execute(f"INSERT INTO items_fts (rowid, question, golds) {_ITEM_TEXT} WHERE i.id > ? AND i.id <= ?",
                     (low, high))
    else:
        conn.execute("INSERT INTO predictions_fts (rowid, text) SELECT id, text FROM predictions"
                     " WHERE id > ? AND id <= ?", (low, high))
