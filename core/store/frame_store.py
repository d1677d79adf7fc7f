"""Per-run frames of value codes kept in the database until the data they code changes.

The facet panel and the browser's counts read, for every item of a run's dataset, the code of its
value of each facet and run A's scores (`core.query.facet_frame`). At a million items that read is
one pass of seconds over the items and the run's predictions; the values change only when a load
writes items or scores. So the arrays are stored here as BLOBs (`frame_columns`, one row per
array: its numpy dtype, its bytes, the values its codes index as JSON) per dataset (`run_id` 0:
the item columns every run shares) and per run, under the stamp the overview cache uses
(`overview_cache.data_stamp`: the loaded files, the dataset's and its runs' rows, the highest
prediction id, the re-score settings) salted by what the caller codes (its expressions), so the
first panel of a run in a new process reads a few blobs instead of a million rows.

No numpy here: this module moves bytes. The annotation journal (stale flags, labels) is never in
a stored frame, so a flag or label written touches nothing stored. A database that cannot be
written (read-only, busy) stores nothing and its frames are read from the rows, as before.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from .overview_cache import data_stamp

__all__ = ["DATASET_PART", "StoredColumn", "frame_stamp", "frame_stored", "store_frame", "stored_frame"]

FRAME_FORMAT = 1
"""Bumped when what a stored frame holds changes shape."""
DATASET_PART = 0
"""`run_id` of a dataset's item columns (shared by its runs)."""


@dataclass(frozen=True, slots=True)
class StoredColumn:
    """One array: numpy dtype string (`numpy.dtype.str`), raw bytes, and for codes their values."""

    dtype: str
    data: bytes
    values: list[Any] | None = None


def frame_stamp(conn: Any, dataset_id: int, salt: str) -> str:
    """What a dataset's stored frames are valid under: the overview cache's stamp of its data,
    this module's format, and `salt` (the caller's expressions: a new facet definition restamps)."""
    parts = [FRAME_FORMAT, data_stamp(conn, dataset_id), salt]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def stored_frame(conn: Any, dataset_id: int, run_id: int, stamp: str) -> dict[str, StoredColumn] | None:
    """The arrays stored for (dataset, run) under `stamp`; None when none are (or only older ones)."""
    try:
        rows = conn.execute("SELECT name, dtype, data, vals FROM frame_columns"
                            " WHERE dataset_id = ? AND run_id = ? AND stamp = ?", (dataset_id, run_id, stamp)).fetchall()
    except sqlite3.OperationalError:  # a database of before the table, opened read-only
        return None
    if not rows:
        return None
    return {name: StoredColumn(dtype, bytes(data), None if vals is None else json.loads(vals))
            for name, dtype, data, vals in rows}


def frame_stored(conn: Any, dataset_id: int, run_id: int, stamp: str) -> bool:
    """Whether arrays of (dataset, run) are stored under `stamp` (none of their bytes read)."""
    try:
        return conn.execute("SELECT 1 FROM frame_columns WHERE dataset_id = ? AND run_id = ? AND stamp = ? LIMIT 1",
                            (dataset_id, run_id, stamp)).fetchone() is not None
    except sqlite3.OperationalError:
        return False


def store_frame(conn: Any, dataset_id: int, run_id: int, stamp: str, columns: dict[str, StoredColumn]) -> bool:
    """Replace the arrays of (dataset, run) by `columns` in one transaction; False when skipped
    (inside someone's transaction) or refused (read-only, busy, an old schema): best effort."""
    if conn.in_transaction:
        return False
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("DELETE FROM frame_columns WHERE dataset_id = ? AND run_id = ?", (dataset_id, run_id))
            conn.executemany(
                "INSERT INTO frame_columns (dataset_id, run_id, name, stamp, dtype, data, vals)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(dataset_id, run_id, name, stamp, c.dtype, c.data, None if c.values is None else json.dumps(c.values))
                 for name, c in columns.items()])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.Error:
        return False
    return True
