"""The overview's grouped rows, kept in the database until the data they sum changes.

At a million items the overview's grouped passes take seconds (one over every item, one over
every prediction of every run); the numbers change only when a load writes items or scores. So
the rows are stored per dataset (`overview_cache`, schema 10) under a stamp of what they depend
on: every loaded file (path, size, time, hash, when loaded; a load that writes anything records
its files, a manifest change included), the dataset's and its runs' rows, the highest prediction
id, the settings a re-score writes (`scoring_rules`, `analysis_filled`) and the shape of the rows
(`DIMENSIONS`). Another stamp → computed again and stored. The stamp itself reads no big table
(index seeks only). A load fills the cache (`refresh` via `core.report.warm_overview`), so the
first open after it reads stored rows. A database that cannot be written (read-only, busy) just
computes them every time, as before.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from typing import Any

from .metrics import DIMENSIONS

__all__ = ["cached_rows", "data_stamp", "first_rows", "stored_rows"]

_FORMAT = 2
"""Bumped when the stored rows change shape (what the grouped queries select)."""

Rows = dict[str, list[Any]]


def data_stamp(conn: Any, dataset_id: int) -> str:
    """A hash of everything the dataset's overview rows are computed from."""
    parts: list[Any] = [_FORMAT, list(DIMENSIONS)]
    parts.append(conn.execute("SELECT path, kind, size, mtime_ns, sha256, loaded_at FROM files ORDER BY path")
                 .fetchall())
    parts.append(conn.execute("SELECT id, name, family, scorer, item_count, gold_count FROM datasets WHERE id = ?",
                              (dataset_id,)).fetchall())
    parts.append(conn.execute("SELECT id, name, scorer, prediction_count FROM runs WHERE dataset_id = ? ORDER BY id",
                              (dataset_id,)).fetchall())
    parts.append(conn.execute("SELECT MAX(id) FROM predictions").fetchall())
    parts.append(conn.execute("SELECT key, value FROM settings WHERE key IN ('scoring_rules', 'analysis_filled')"
                              " ORDER BY key").fetchall())
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def cached_rows(conn: Any, dataset_id: int, slices: bool, compute: Callable[[], Rows]) -> Rows:
    """`compute()`'s rows for this dataset, from the cache when its stamp still holds (JSON keeps
    every float exactly, so the sums are the ones computed); else computed and stored. Rows
    without slices are served by stored rows with them too (`first_rows`)."""
    stamp = data_stamp(conn, dataset_id)
    rows = _first(conn, dataset_id, stamp) if not slices else _stored(conn, dataset_id, True, stamp)
    if rows is None:
        rows = compute()
        _store(conn, dataset_id, slices, stamp, rows)
    return rows


def stored_rows(conn: Any, dataset_id: int, slices: bool) -> Rows | None:
    """The stored rows if their stamp still holds, else None (nothing is computed)."""
    return _stored(conn, dataset_id, slices, data_stamp(conn, dataset_id))


def first_rows(conn: Any, dataset_id: int) -> Rows | None:
    """Stored rows that serve a first paint, if up to date: those with slices (their totals add
    up to the runs'), else those without; None when neither is stored."""
    return _first(conn, dataset_id, data_stamp(conn, dataset_id))


def _first(conn: Any, dataset_id: int, stamp: str) -> Rows | None:
    return _stored(conn, dataset_id, True, stamp) or _stored(conn, dataset_id, False, stamp)


def _stored(conn: Any, dataset_id: int, slices: bool, stamp: str) -> Rows | None:
    try:
        row = conn.execute("SELECT payload FROM overview_cache WHERE dataset_id = ? AND slices = ? AND stamp = ?",
                           (dataset_id, int(slices), stamp)).fetchone()
    except sqlite3.OperationalError:  # a database of before schema 10, opened read-only
        return None
    return None if row is None else json.loads(row[0])


def _store(conn: Any, dataset_id: int, slices: bool, stamp: str, rows: Rows) -> None:
    """Best effort: one autocommitted statement; skipped inside someone's transaction, or when the
    database is read-only or busy (the rows are computed again next time)."""
    if conn.in_transaction:
        return
    try:
        conn.execute("INSERT OR REPLACE INTO overview_cache (dataset_id, slices, stamp, payload) VALUES (?, ?, ?, ?)",
                     (dataset_id, int(slices), stamp, json.dumps(rows)))
    except sqlite3.Error:
        pass
