"""Indexes on the keys of `predictions.meta`, so the browser sorts by a `meta:KEY` column (the
column registry, `core.query.columns`) by walking an index instead of sorting every item.

A key's value is `json_extract(meta, '$."KEY"')`; SQLite keeps an expression index on it in step
with every insert, update and delete, so nothing stored can go stale. One partial index per key
`(run_id, value, item_id) WHERE meta IS NOT NULL` (rows of runs without `meta` are not in it),
named `predictions_meta_<hash of the key>`. A load creates them for the keys it finds
(`index_meta_keys`); a query uses one only when it is there (`meta_index`) and writes the path as
a literal, since SQLite matches an index expression only to the same text.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

__all__ = ["MAX_META_INDEXES", "index_meta_keys", "meta_index", "meta_index_name", "meta_value_sql"]

MAX_META_INDEXES = 16
"""Keys indexed per database at most: each index is written on every insert of a run with `meta`."""
SAMPLE = 2000
"""Predictions with `meta` read per run to find its keys (a million rows are not all read)."""
LONGEST = 200
"""A key whose sampled values are longer than this (a prompt, a transcript) gets no index."""


def meta_index_name(key: str) -> str:
    """The index of one `meta` key (a hash: a key may hold any character)."""
    return "predictions_meta_" + hashlib.sha1(key.encode()).hexdigest()[:16]


def meta_value_sql(key: str, alias: str = "p") -> str | None:
    """`json_extract(<alias>.meta, '$."KEY"')` with the path as a literal (what the index holds);
    None for a key a JSON path label cannot name (a double quote)."""
    if '"' in key:
        return None
    path = f'$."{key}"'.replace("'", "''")
    column = f"{alias}.meta" if alias else "meta"
    return f"json_extract({column}, '{path}')"


def meta_index(conn: Any, key: str) -> str | None:
    """The name of `key`'s index when the database has it, else None."""
    name = meta_index_name(key)
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone()
    return name if row else None


def _sortable_keys(conn: sqlite3.Connection, run_id: int) -> set[str]:
    """Keys of a run's sampled `meta` with scalar values no longer than `LONGEST`."""
    keys: dict[str, bool] = {}
    for (text,) in conn.execute("SELECT meta FROM predictions WHERE run_id = ? AND meta IS NOT NULL"
                                " AND meta != '{}' LIMIT ?", (run_id, SAMPLE)):
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        for k, v in data.items():
            fits = not isinstance(v, (dict, list)) and len(str(v)) <= LONGEST
            keys[str(k)] = keys.get(str(k), True) and fits
    return {k for k, ok in keys.items() if ok and '"' not in k}


def index_meta_keys(conn: sqlite3.Connection, run_ids: list[int] | None = None) -> list[str]:
    """Create the index of every sortable `meta` key of the runs (default: all) that has none
    yet, up to `MAX_META_INDEXES` in the database; returns the keys indexed now. Each index is
    one pass over `predictions` (seconds at ten million rows), done once per key."""
    if run_ids is None:
        run_ids = [r[0] for r in conn.execute("SELECT id FROM runs ORDER BY id")]
    have = conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'"
                        " AND name LIKE 'predictions_meta_%'").fetchone()[0]
    keys: set[str] = set()
    for run_id in run_ids:
        keys |= _sortable_keys(conn, run_id)
    added: list[str] = []
    for key in sorted(keys):
        expr = meta_value_sql(key, alias="")
        if expr is None or meta_index(conn, key) is not None or have + len(added) >= MAX_META_INDEXES:
            continue
        conn.execute(f"CREATE INDEX IF NOT EXISTS {meta_index_name(key)} ON predictions(run_id, {expr}, item_id)"
                     " WHERE meta IS NOT NULL")
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone():
            conn.execute(f"ANALYZE {meta_index_name(key)}")  # beside analysed indexes (see `schema.migrate`)
        added.append(key)
    if added:
        conn.commit()
    return added
