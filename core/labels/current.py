"""Current labels and notes, derived from the journal (nothing stored but the entries).

Per (dataset, run, item, label) the latest effective `label`/`unlabel` entry decides, ordered by
(`ts`, `id`) as stale flags are ("last writer wins": two databases that import each other's
journals agree whatever the import order). The note of a (run, item) is its latest effective
`note` entry (empty text: no note). An entry is effective while no `undo` names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.store import sqlite_connection

__all__ = [
    "CURRENT_LABELS_SQL", "CURRENT_NOTES_SQL", "ItemLabels", "Label", "current_labels", "item_labels", "label_counts", "labels_of_sql",
]

_EFFECTIVE = "NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)"

CURRENT_LABELS_SQL = f"""
SELECT * FROM (
    SELECT a.*, ROW_NUMBER() OVER (PARTITION BY a.dataset, a.run, a.item_key, a.label ORDER BY a.ts DESC, a.id DESC) AS qa_rank
    FROM annotations a
    WHERE a.label IS NOT NULL AND a.action IN ('label', 'unlabel') AND {_EFFECTIVE}
) WHERE qa_rank = 1 AND action = 'label'
"""
"""The deciding entry of every label on now: columns of `annotations` (`run`, `dataset`, `item_key`,
`label`, `reason` = its note, `label_source`), a subquery for facets and filters."""

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
    expressions naming the run, the dataset and the item key. Correlated but index-served
    (`annotations_label`, `annotations_ref`): cheap per item, for facets over many items."""
    same = "b.run = a.run AND b.dataset = a.dataset AND b.item_key = a.item_key AND b.label = a.label"
    undone = "EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = {}.id)"
    return (
        "(SELECT group_concat(x.label, ', ') FROM (SELECT a.label FROM annotations a"
        f" WHERE a.label IS NOT NULL AND a.run = {run} AND a.dataset = {dataset} AND a.item_key = {item_key}"
        f" AND a.action = 'label' AND NOT {undone.format('a')} AND NOT EXISTS (SELECT 1 FROM annotations b"
        f" WHERE b.label IS NOT NULL AND {same} AND b.action IN ('label', 'unlabel')"
        f" AND (b.ts > a.ts OR b.ts = a.ts AND b.id > a.id) AND NOT {undone.format('b')}) ORDER BY a.label) x)"
    )


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
    sql = (f"SELECT c.run, c.dataset, c.item_key, c.label, c.author, c.ts, c.uid, COALESCE(c.label_source, 'hand'),"
           f" c.reason FROM ({CURRENT_LABELS_SQL}) c" + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY c.run, c.dataset, c.item_key, c.label")
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
    label on all, some or none of the selection)."""
    wanted = set(item_keys)
    out: dict[str, int] = {}
    for lab in current_labels(conn, run=run):
        if lab.item_key in wanted:
            out[lab.label] = out.get(lab.label, 0) + 1
    return out
