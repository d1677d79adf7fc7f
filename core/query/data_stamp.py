"""The stamp of the loaded data that per-run frames kept in a process are valid under.

The facet frame (`core.query.facet_frame`) and the count frame (`core.query.count_frame`) hold
values that change only when a load writes items or scores (or the re-score settings change);
both key what they keep by this stamp, so a load makes them be read again. No numpy here: the
count frame's check runs on every count.
"""

from __future__ import annotations

import hashlib
from typing import Any

__all__ = ["data_stamp"]


def data_stamp(conn: Any) -> str | None:
    """What a frame of loaded values depends on: the loaded files and rows and the re-score
    settings (not the journal, which no such frame holds). None for a database without a file."""
    path = next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not path:
        return None
    parts = [
        path,
        conn.execute("SELECT path, size, mtime_ns, sha256, loaded_at FROM files ORDER BY path").fetchall(),
        conn.execute("SELECT id, name, item_count, gold_count FROM datasets ORDER BY id").fetchall(),
        conn.execute("SELECT id, name, scorer, prediction_count FROM runs ORDER BY id").fetchall(),
        conn.execute("SELECT MAX(id) FROM predictions").fetchall(),
        conn.execute("SELECT key, value FROM settings WHERE key IN ('scoring_rules', 'analysis_filled')"
                     " ORDER BY key").fetchall(),
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()
