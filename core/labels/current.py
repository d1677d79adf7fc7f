"""Current labels and notes, derived from the journal.

Per (dataset, run, item, label) the latest effective `label`/`unlabel` entry decides, ordered by
(`ts`, `id`) as stale flags are ("last writer wins": two databases that import each other's
journals agree whatever the import order). The note of a (run, item) is its latest effective
`note` entry (empty text: no note). An entry is effective while no `undo` names it.

Labels are read from the tables the store keeps in step with the journal (`current_labels`,
`label_sets`: `core.store.label_state`, schema 18), so a sort or a filter by label walks an index
instead of evaluating the journal; `CURRENT_LABELS_SQL` is the rule evaluated over the journal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.store import CURRENT_LABELS_SQL, sqlite_connection

__all__ = [
    "CURRENT_LABELS_SQL", "CURRENT_NOTES_SQL", "ItemLabels", "Label", "current_labels", "item_labels", "label_counts", "labels_of_sql",
]

_EFFECTIVE = "NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)"

CURRENT_NOTES_SQL = f"""
SELECT * FROM (
    SELECT a.*, ROW_NUMBER() OVER (PARTITION BY a.dataset, a.run, a.item_key ORDER BY a.ts DESC, a.id DESC) AS qa_rank
    FROM annotations a
    WHERE a.label IS NOT NULL AND a.action = 'note' AND {_EFFECTIVE}
) WHERE qa_rank = 1 AND reason IS NOT NULL
"""
"""The current note of every (run, item) that has one (`reason` holds it)."""


def labels_of_sql(run: str, dataset: str, item_key: str) -> str:
    """SQL of one (run, item)'s labels on now, sorted and joined with ", " (NULL: none), for the SQL
    expressions naming the run, the dataset and the item key: one look-up in `label_sets`."""
    return (f"(SELECT s.labels FROM label_sets s WHERE s.run = {run} AND s.dataset = {dataset}"
            f" AND s.item_key = {item_key})")


@dataclass(frozen=True, slots=True)
class Label:
    """One label on now: what, where, who set it, when, and how (`source`: hand | category)."""

    run: str
    dataset: str
    item_key: str
    label: str
    author: str
    ts: str
    uid: str
    source: str
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "dataset": self.dataset, "item_key": self.item_key, "label": self.label,
                "author": self.author, "ts": self.ts, "uid": self.uid, "source": self.source, "note": self.note}


@dataclass(frozen=True, slots=True)
class ItemLabels:
    """Labels and note of one (run, item), for the detail view and `label list`."""

    run: str
    dataset: str
    item_key: str
    labels: tuple[Label, ...]
    note: str | None

    @property
    def names(self) -> list[str]:
        return [lab.label for lab in self.labels]


def current_labels(
    conn: Any, *, run: str | None = None, dataset: str | None = None, item_key: str | None = None,
    label: str | None = None,
) -> list[Label]:
    """Labels on now, by run, item and label name (each filter optional)."""
    where, params = [], []
    for col, value in (("run", run), ("dataset", dataset), ("item_key", item_key), ("label", label)):
        if value is not None:
            where.append(f"c.{col} = ?")
            params.append(value)
    sql = ("SELECT c.run, c.dataset, c.item_key, c.label, a.author, a.ts, a.uid, COALESCE(a.label_source, 'hand'),"
           " a.reason FROM current_labels c JOIN annotations a ON a.id = c.entry_id"
           + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY c.run, c.dataset, c.item_key, c.label")
    return [Label(*row) for row in sqlite_connection(conn).execute(sql, params)]


def _note(conn: Any, run: str, dataset: str, item_key: str) -> str | None:
    row = sqlite_connection(conn).execute(
        f"SELECT reason FROM ({CURRENT_NOTES_SQL}) WHERE run = ? AND dataset = ? AND item_key = ?",
        (run, dataset, item_key),
    ).fetchone()
    return row[0] if row else None


def item_labels(conn: Any, run: str, dataset: str, item_key: str) -> ItemLabels:
    """The labels and note of one (run, item) now."""
    labels = current_labels(conn, run=run, dataset=dataset, item_key=item_key)
    return ItemLabels(run, dataset, item_key, tuple(labels), _note(conn, run, dataset, item_key))


def label_counts(conn: Any, run: str, item_keys: Sequence[str]) -> dict[str, int]:
    """How many of the run's items `item_keys` carry each label now (a bulk label dialog shows a
    label on all, some or none of the selection): the stored labels of those items alone."""
    keys = json.dumps(sorted(set(item_keys)), ensure_ascii=False)
    rows = sqlite_connection(conn).execute(
        "SELECT c.label, COUNT(*) FROM current_labels c WHERE c.run = ?"
        " AND c.item_key IN (SELECT value FROM json_each(?)) GROUP BY c.label ORDER BY c.label", (run, keys))
    return {label: int(n) for label, n in rows}
