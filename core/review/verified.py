"""When each gold was last verified ("still correct"): the latest `verify` entry no undo cancels.

A `verify` never changes whether a gold is flagged stale (the state reads mark/unmark only); it
dates the gold for the review queue and the freshness summary.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from qa_inspect.core.flags import Target
from qa_inspect.core.store import sqlite_connection

__all__ = ["last_verified", "ts_date"]

_LAST_VERIFIED_SQL = """
SELECT a.dataset, a.item_key, a.gold_text, MAX(a.ts) FROM annotations a
WHERE a.action = 'verify' AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)
"""


def ts_date(ts: str) -> date | None:
    """The UTC date of a journal time ("2024-05-01T10:00:00.000Z"); None when unreadable."""
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).date()
    except (ValueError, AttributeError):
        return None


def last_verified(conn: Any, dataset: str | None = None) -> dict[Target, str]:
    """Gold → time of its latest effective `verify` entry (journal time, UTC)."""
    sql, params = _LAST_VERIFIED_SQL, []
    if dataset is not None:
        sql += " AND a.dataset = ?"
        params.append(dataset)
    sql += " GROUP BY a.dataset, a.item_key, a.gold_text"
    return {Target(ds, key, gold): ts for ds, key, gold, ts in sqlite_connection(conn).execute(sql, params)}
