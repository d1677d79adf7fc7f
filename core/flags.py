"""Stale-answer flags: an append-only journal in `annotations`, current state derived from it.

Entries are keyed by (dataset name, item key, gold text) — never by row ids — so flags survive
reloads and new dataset releases. Actions: `mark` (gold is stale), `unmark`, and `undo`, whose `ref`
names the entry it cancels; redo appends the cancelled action again. The latest effective
mark/unmark per gold decides its state. A flag whose gold text is gone from the data is "resolved".
"""

from __future__ import annotations

import getpass
import sqlite3
from dataclasses import dataclass

_EFFECTIVE = "a.action IN ('mark', 'unmark') AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)"

CURRENT_FLAGS_SQL = f"""
SELECT a.* FROM annotations a
WHERE {_EFFECTIVE} AND a.id = (
    SELECT MAX(b.id) FROM annotations b
    WHERE b.dataset = a.dataset AND b.item_key = a.item_key AND b.gold_text = a.gold_text
      AND b.action IN ('mark', 'unmark')
      AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = b.id)
)
"""
"""The deciding journal entry of every gold that has one."""

STALE_GOLDS_SQL = f"""
SELECT g.item_id AS item_id, g.id AS gold_id, g.idx AS idx, f.reason AS reason, f.proposed AS proposed,
       f.evidence AS evidence, f.author AS author, f.ts AS ts
FROM ({CURRENT_FLAGS_SQL}) f
JOIN datasets d ON d.name = f.dataset
JOIN items i ON i.dataset_id = d.id AND i.key = f.item_key
JOIN golds g ON g.item_id = i.id AND g.text = f.gold_text
WHERE f.action = 'mark'
"""
"""Golds currently flagged stale, with the flag's reason and proposal (a subquery for filters)."""


def default_author() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


@dataclass(slots=True)
class Flag:
    dataset: str
    item_key: str
    gold_text: str
    reason: str | None
    proposed: str | None
    evidence: str | None
    author: str
    ts: str


def append(
    conn: sqlite3.Connection,
    action: str,
    dataset: str,
    item_key: str,
    gold_text: str,
    *,
    author: str | None = None,
    reason: str | None = None,
    proposed: str | None = None,
    evidence: str | None = None,
    ref: int | None = None,
) -> int:
    """One journal entry in its own committed transaction (a crash never leaves half an action)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        cur = conn.execute(
            "INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text, reason, proposed,"
            " evidence, ref) VALUES (strftime('%Y-%m-%dT%H:%M:%fZ','now'), ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (author or default_author(), action, dataset, item_key, gold_text, reason, proposed, evidence, ref),
        )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return int(cur.lastrowid or 0)


def current_flags(conn: sqlite3.Connection, dataset: str | None = None) -> list[Flag]:
    """Golds whose deciding entry is `mark`, including resolved ones whose gold text is gone."""
    sql = f"SELECT dataset, item_key, gold_text, reason, proposed, evidence, author, ts FROM ({CURRENT_FLAGS_SQL}) WHERE action = 'mark'"
    params: list[str] = []
    if dataset:
        sql += " AND dataset = ?"
        params.append(dataset)
    return [Flag(*r) for r in conn.execute(sql + " ORDER BY id", params)]
