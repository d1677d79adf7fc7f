"""Which passages of a dataset are one: every context whose text an earlier context of the dataset
holds, with the first such context, computed once and stored under the overview cache's stamp.

SQuAD-style files give paragraphs no id, so each question stores its passage on its own, yet the
questions on one passage are one resampling unit of a bootstrap. Finding them sorts every passage
text (1.3 s at 250,000 passages); stored (`passage_firsts`, schema 17) they are one row's read
while the loaded data stays as it was. The first comparison (or a load) stores them; a read-only
connection that finds none computes them without storing.
"""

from __future__ import annotations

import json
import sqlite3

from .overview_cache import data_stamp

__all__ = ["PASSAGES_MIGRATION", "passage_firsts", "stored_passage_firsts"]

PASSAGES_MIGRATION = (
    "CREATE TABLE IF NOT EXISTS passage_firsts (dataset_id INTEGER PRIMARY KEY REFERENCES datasets(id)"
    " ON DELETE CASCADE, stamp TEXT NOT NULL, pairs TEXT NOT NULL);"
)
"""Schema 16 → 17: the table the pairs are stored in, one row per dataset."""

_SQL = ("SELECT id, first FROM (SELECT id, MIN(id) OVER (PARTITION BY text) AS first FROM contexts"
        " WHERE dataset_id = ?) WHERE id != first")


def _computed(conn: sqlite3.Connection, dataset_id: int) -> dict[int, int]:
    """Context id → the first context id of the same text, where they differ (few or none)."""
    return {int(k): int(v) for k, v in conn.execute(_SQL, (dataset_id,)).fetchall()}


def stored_passage_firsts(conn: sqlite3.Connection, dataset_id: int) -> dict[int, int] | None:
    """The stored pairs of `passage_firsts` when they hold for the data as loaded now, else None
    (a stamp and a row's read: what a caller asks before computing them elsewhere)."""
    return _stored(conn, dataset_id, data_stamp(conn, dataset_id))


def _stored(conn: sqlite3.Connection, dataset_id: int, stamp: str) -> dict[int, int] | None:
    """The stored pairs when their stamp is the data's (None: none, another stamp, or a database
    of an older schema without the table)."""
    try:
        row = conn.execute("SELECT stamp, pairs FROM passage_firsts WHERE dataset_id = ?", (dataset_id,)).fetchone()
    except sqlite3.OperationalError:
        return None
    if row is None or row[0] != stamp:
        return None
    return {int(k): int(v) for k, v in json.loads(row[1])}


def _store(conn: sqlite3.Connection, dataset_id: int, stamp: str, pairs: dict[int, int]) -> bool:
    """Write the pairs under `stamp` in a transaction of their own, without waiting on another
    writer; False when the database cannot take them now (read only, locked, or the caller's
    transaction is open: never committed from here)."""
    if conn.in_transaction:
        return False
    wait = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        conn.execute("INSERT OR REPLACE INTO passage_firsts (dataset_id, stamp, pairs) VALUES (?, ?, ?)",
                     (dataset_id, stamp, json.dumps(sorted(pairs.items()))))
        if conn.in_transaction:
            conn.commit()
        return True
    except sqlite3.OperationalError:
        if conn.in_transaction:
            conn.rollback()
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(wait)}")


def passage_firsts(conn: sqlite3.Connection, dataset_id: int) -> dict[int, int]:
    """Context id → the first context id with the same text, where they differ: stored (a row's
    read) when the stamp holds, else computed and stored (on a read-only or busy connection, or
    a database without the table, computed only)."""
    stamp = data_stamp(conn, dataset_id)
    found = _stored(conn, dataset_id, stamp)
    if found is None:
        found = _computed(conn, dataset_id)
        _store(conn, dataset_id, stamp, found)
    return found
