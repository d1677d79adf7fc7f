"""SQL that other layers filter on: the current flags and the stale golds (views of the annotation
journal), what an error is and what answering is (rules over a prediction row).

They are plain SQL strings (used as subqueries), so `core.query`, `core.report`, `core.flags` and
`core.load` (which sums the overview after a load) share one definition of each without importing
each other.
"""

from __future__ import annotations

__all__ = ["CURRENT_FLAGS_SQL", "EFFECTIVE_SQL", "ERROR_SQL", "STALE_GOLDS_SQL", "answered_sql"]

ERROR_SQL = (
    "CASE WHEN p.id IS NULL THEN 1 WHEN p.em IS NOT NULL THEN p.em = 0"
    " WHEN COALESCE(p.refused, 0) = 1 THEN 1 ELSE COALESCE(p.f1_recall, 0) < 1 END"
)
"""1 when run A's item is an error, else 0: the one definition of an error. An item is an error
when it has no prediction, or EM 0 (span scorers), or (CDQA, no EM) a refusal or F1-recall < 1."""


def answered_sql(alias: str) -> str:
    """SQL truth of "this prediction answers" (not a refusal; span runs never refuse). `alias` is
    p or pb; a missing prediction is the caller's to rule out where it matters."""
    a = {"p": "p", "pb": "pb"}[alias]
    return f"(COALESCE({a}.refused, 0) = 0)"


EFFECTIVE_SQL = "a.action IN ('mark', 'unmark') AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)"

CURRENT_FLAGS_SQL = f"""
SELECT a.* FROM annotations a
WHERE {EFFECTIVE_SQL} AND a.id = (
    SELECT b.id FROM annotations b
    WHERE b.dataset = a.dataset AND b.item_key = a.item_key AND b.gold_text = a.gold_text
      AND b.action IN ('mark', 'unmark')
      AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = b.id)
    ORDER BY b.ts DESC, b.id DESC LIMIT 1
)
"""
"""The deciding journal entry (latest effective mark/unmark) of every gold that has one."""

STALE_GOLDS_SQL = f"""
SELECT g.item_id AS item_id, g.id AS gold_id, g.idx AS idx, f.reason AS reason, f.proposed AS proposed,
       f.evidence AS evidence, f.author AS author, f.ts AS ts
FROM ({CURRENT_FLAGS_SQL}) f
JOIN datasets d ON d.name = f.dataset
JOIN items i ON i.dataset_id = d.id AND i.key = f.item_key
JOIN golds g ON g.item_id = i.id AND g.text = f.gold_text AND g.superseded = 0
WHERE f.action = 'mark'
"""
"""Golds currently flagged stale, one row per gold, with the deciding flag's reason and proposal
(a subquery for filters). Resolved flags (text gone, or only left superseded) are not here."""
