"""The overview's grouped rows (`overview_rows`), kept in the database until the data they sum changes.

At a million items the overview's grouped passes take seconds (one over every item, one over
every prediction of every run); the numbers change only when a load writes items or scores. So
the rows are stored per dataset (`overview_cache`, schema 10) under a stamp of what they depend
on: every loaded file (path, size, time, hash, when loaded; a load that writes anything records
its files, a manifest change included), the dataset's and its runs' rows, the highest prediction
id, the settings a re-score writes (`scoring_rules`, `analysis_filled`) and the shape of the rows
(`DIMENSIONS`). Another stamp → computed again and stored. The stamp itself reads no big table
(index seeks only). A load fills the cache (`core.load.warm_overview`, the load's last step), so
the first open after it reads stored rows. A database that cannot be written (read-only, busy) just
computes them every time, as before.

The rows live here, below `core.load` and `core.report`, because both compute them: the load to
warm the cache, the overview (`core.report.overview`) to sum them into metrics.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from typing import Any

from .columns import DIMENSIONS
from .views import ERROR_SQL, answered_sql

__all__ = ["OverviewRows", "cached_rows", "data_stamp", "first_rows", "overview_rows", "stored_rows"]

_FORMAT = 2
"""Bumped when the stored rows change shape (what the grouped queries select)."""

OverviewRows = dict[str, list[Any]]
"""{cells, runs, human, keys}: what `overview_rows` returns and the cache stores (as JSON)."""


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


def cached_rows(conn: Any, dataset_id: int, slices: bool, compute: Callable[[], OverviewRows]) -> OverviewRows:
    """`compute()`'s rows for this dataset, from the cache when its stamp still holds (JSON keeps
    every float exactly, so the sums are the ones computed); else computed and stored. OverviewRows
    without slices are served by stored rows with them too (`first_rows`)."""
    stamp = data_stamp(conn, dataset_id)
    rows = _first(conn, dataset_id, stamp) if not slices else _stored(conn, dataset_id, True, stamp)
    if rows is None:
        rows = compute()
        _store(conn, dataset_id, slices, stamp, rows)
    return rows


def stored_rows(conn: Any, dataset_id: int, slices: bool) -> OverviewRows | None:
    """The stored rows if their stamp still holds, else None (nothing is computed)."""
    return _stored(conn, dataset_id, slices, data_stamp(conn, dataset_id))


def first_rows(conn: Any, dataset_id: int) -> OverviewRows | None:
    """Stored rows that serve a first paint, if up to date: those with slices (their totals add
    up to the runs'), else those without; None when neither is stored."""
    return _first(conn, dataset_id, data_stamp(conn, dataset_id))


def _first(conn: Any, dataset_id: int, stamp: str) -> OverviewRows | None:
    return _stored(conn, dataset_id, True, stamp) or _stored(conn, dataset_id, False, stamp)


def _stored(conn: Any, dataset_id: int, slices: bool, stamp: str) -> OverviewRows | None:
    try:
        row = conn.execute("SELECT payload FROM overview_cache WHERE dataset_id = ? AND slices = ? AND stamp = ?",
                           (dataset_id, int(slices), stamp)).fetchone()
    except sqlite3.OperationalError:  # a database of before schema 10, opened read-only
        return None
    return None if row is None else json.loads(row[0])


def _store(conn: Any, dataset_id: int, slices: bool, stamp: str, rows: OverviewRows) -> None:
    """Best effort: one autocommitted statement; skipped inside someone's transaction, or when the
    database is read-only or busy (the rows are computed again next time)."""
    if conn.in_transaction:
        return
    try:
        conn.execute("INSERT OR REPLACE INTO overview_cache (dataset_id, slices, stamp, payload) VALUES (?, ?, ?, ?)",
                     (dataset_id, int(slices), stamp, json.dumps(rows)))
    except sqlite3.Error:
        pass


def overview_rows(conn: Any, ds_id: int, slices: bool, cdqa: bool) -> OverviewRows:
    """The dataset's grouped passes: items per dimension cell, each run's sums per cell, the human
    estimate's sums (not for CDQA), its item count and longest id. Without `slices` one row each
    (no dimension values, no sort of every prediction: each run's sums are read from its score
    index) for the first paint; the slices' cell counts then come with the full pass.

    OverviewRows hold the dimensions first (`DIMENSIONS` order), then the sums: a run's are (count, EM,
    F1, answered, F1-recall over answered, errors), the human estimate's alike."""
    keys = conn.execute("SELECT COUNT(*), MAX(LENGTH(key)) FROM items WHERE dataset_id = ?", (ds_id,)).fetchone()
    if not slices:
        human = [] if cdqa else [r for r in conn.execute(_HUMAN_TOTAL_SQL, (ds_id,)) if r[_N]]
        return {"cells": [[None] * _N + [keys[0]]], "runs": conn.execute(_RUN_TOTAL_SQL, (ds_id,)).fetchall(),
                "human": human, "keys": list(keys)}
    return {
        "cells": conn.execute(f"SELECT {_DIMS}, COUNT(*) FROM items i WHERE dataset_id = ? GROUP BY {_GROUP}",
                              (ds_id,)).fetchall(),
        "runs": conn.execute(_RUN_SQL, (ds_id, ds_id)).fetchall(),
        "human": [] if cdqa else conn.execute(_HUMAN_SQL, (ds_id,)).fetchall(),
        "keys": list(keys),
    }


_ANSWERED = answered_sql("p")
_DIMS = ", ".join(f"i.{d}" for d in DIMENSIONS)
_N = len(DIMENSIONS)
_GROUP = ", ".join(str(k + 1) for k in range(_N))
_GROUP_AFTER_RUN = ", ".join(str(k + 2) for k in range(_N))
_RUN_SQL = (
    f"SELECT p.run_id, {_DIMS}, COUNT(*), SUM(COALESCE(p.em, 0)), SUM(COALESCE(p.f1, 0)),"
    f" SUM({_ANSWERED}), SUM(CASE WHEN {_ANSWERED} THEN COALESCE(p.f1_recall, 0) ELSE 0 END),"
    f" SUM({ERROR_SQL})"
    " FROM predictions p JOIN items i ON i.id = p.item_id"
    " WHERE p.run_id IN (SELECT id FROM runs WHERE dataset_id = ?) AND i.dataset_id = ?"
    f" GROUP BY 1, {_GROUP_AFTER_RUN}"
)
_HUMAN_SQL = (
    f"SELECT {_DIMS}, COUNT(*), SUM(i.human_em), SUM(i.human_f1), COUNT(*), 0,"
    f" SUM(i.human_em < 1) FROM items i WHERE i.dataset_id = ? AND i.human_f1 IS NOT NULL GROUP BY {_GROUP}"
)
_NO_DIMS = ", ".join("NULL" for _ in DIMENSIONS)
_RUN_TOTAL_SQL = (  # a run's predictions are all of its dataset's items (linking stores no others)
    _RUN_SQL.replace(_DIMS, _NO_DIMS).replace(" JOIN items i ON i.id = p.item_id", "")
    .replace(" AND i.dataset_id = ?", "").replace(f"GROUP BY 1, {_GROUP_AFTER_RUN}", "GROUP BY 1")
)
_HUMAN_TOTAL_SQL = _HUMAN_SQL.replace(_DIMS, _NO_DIMS).replace(f" GROUP BY {_GROUP}", "")
