"""The labels on now, stored beside the journal they are derived from (schema 18).

The journal (`annotations`) stays the one source of truth: per (run, dataset, item, label) the
latest effective `label`/`unlabel` entry decides, by (`ts`, `id`), and an entry is effective while
no `undo` names it (`CURRENT_LABELS_SQL`). Evaluating that over the journal for every labelled
item made a sort or filter by label cost 0.1–0.6 s at a million items, so two tables keep its
answer, indexed for those reads:

- `current_labels`: one row per label on now (the deciding entry's id beside it);
- `label_sets`: one row per (run, dataset, item) with a label, its labels sorted and joined with
  ", " (the label column's value) and the item's row id while the item is loaded, so a sort
  walks `label_sets_order` (run, dataset, labels, item id) and stops after the page, and a filter
  reads the labelled items by id.

SQLite triggers on `annotations` keep both in step with every writer (label actions, undo and
redo, imports and merges of journal files, the overlay's merge, a dataset's rebinding, a hand
edit in another tool): an insert, update or delete of a label entry, or of an undo naming one,
recomputes that one (run, dataset, item, label) from its entries, a few index look-ups. Triggers
on `items` and `datasets` keep the item ids (an item loaded after its label, deleted, or its
dataset renamed): the journal still names items by key, the id is a pointer beside it.
`REBUILD_LABELS_SQL` derives both from the whole journal (the migration's fill; a repair).
"""

from __future__ import annotations

import sqlite3

__all__ = ["CURRENT_LABELS_SQL", "LABEL_STATE_MIGRATION", "REBUILD_LABELS_SQL", "rebuild_label_state"]

_EFFECTIVE = "NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)"

CURRENT_LABELS_SQL = f"""
SELECT * FROM (
    SELECT a.*, ROW_NUMBER() OVER (PARTITION BY a.dataset, a.run, a.item_key, a.label ORDER BY a.ts DESC, a.id DESC) AS qa_rank
    FROM annotations a
    WHERE a.label IS NOT NULL AND a.action IN ('label', 'unlabel') AND {_EFFECTIVE}
) WHERE qa_rank = 1 AND action = 'label'
"""
"""The deciding entry of every label on now, evaluated over the whole journal: columns of
`annotations` (`run`, `dataset`, `item_key`, `label`, `reason` = its note, `label_source`). The
rule's reference form: the stored tables hold its answer (tests compare them)."""

_ITEM_ID = ("(SELECT i.id FROM items i WHERE i.dataset_id = (SELECT d.id FROM datasets d WHERE d.name = {dataset})"
            " AND i.key = {item_key})")
"""The row id of the item a (dataset name, item key) names, NULL while it is not loaded."""

REBUILD_LABELS_SQL: tuple[str, ...] = (
    "DELETE FROM current_labels",
    "DELETE FROM label_sets",
    "INSERT INTO current_labels (run, dataset, item_key, label, entry_id)"
    f" SELECT c.run, c.dataset, c.item_key, c.label, c.id FROM ({CURRENT_LABELS_SQL}) c",
    "INSERT INTO label_sets (run, dataset, item_key, labels, item_id)"
    " SELECT g.run, g.dataset, g.item_key, g.labels, " + _ITEM_ID.format(dataset="g.dataset", item_key="g.item_key")
    + " FROM (SELECT run, dataset, item_key, group_concat(label, ', ') AS labels FROM ("
    " SELECT run, dataset, item_key, label FROM current_labels ORDER BY run, dataset, item_key, label)"
    " GROUP BY run, dataset, item_key) g",
)
"""Both tables derived afresh from the journal: statements run in one transaction (the
migration's fill; `rebuild_label_state`)."""


def rebuild_label_state(conn: sqlite3.Connection) -> None:
    """Derive both tables afresh from the journal, inside a transaction the caller holds (a
    repair, and the tests' check that the triggers kept them right)."""
    for statement in REBUILD_LABELS_SQL:
        conn.execute(statement)


def _relabel(run: str, dataset: str, item_key: str, label: str) -> str:
    """Trigger statements that set the stored state of one (run, dataset, item, label), named by
    SQL expressions, from its journal entries: down `annotations_label`, then the item's set."""
    item = f"run IS {run} AND dataset IS {dataset} AND item_key IS {item_key}"
    return f"""
    DELETE FROM current_labels WHERE {item} AND label IS {label};
    INSERT INTO current_labels (run, dataset, item_key, label, entry_id)
        SELECT run, dataset, item_key, label, id FROM (
            SELECT a.run, a.dataset, a.item_key, a.label, a.id, a.action FROM annotations a
            WHERE a.label IS NOT NULL AND a.run IS {run} AND a.dataset IS {dataset} AND a.item_key IS {item_key}
                AND a.label IS {label} AND a.action IN ('label', 'unlabel') AND {_EFFECTIVE}
            ORDER BY a.ts DESC, a.id DESC LIMIT 1)
        WHERE action = 'label';
    DELETE FROM label_sets WHERE {item};
    INSERT INTO label_sets (run, dataset, item_key, labels, item_id)
        SELECT {run}, {dataset}, {item_key}, s.labels, {_ITEM_ID.format(dataset=dataset, item_key=item_key)}
        FROM (SELECT group_concat(label, ', ') AS labels
            FROM (SELECT label FROM current_labels WHERE {item} ORDER BY label)) s WHERE s.labels IS NOT NULL;"""


def _own(row: str) -> str:
    return _relabel(f"{row}.run", f"{row}.dataset", f"{row}.item_key", f"{row}.label")


def _named(ref: str) -> str:
    """The state of the entry an undo names (`ref`: its id), looked up by id."""
    col = "(SELECT x.{0} FROM annotations x WHERE x.id = {1})"
    return _relabel(*(col.format(c, ref) for c in ("run", "dataset", "item_key", "label")))


def _is_label(ref: str) -> str:
    return f"(SELECT x.label FROM annotations x WHERE x.id = {ref}) IS NOT NULL"


def _item_in(row: str) -> str:
    """Trigger statement: an item loaded (`row`) is the one its dataset's label rows of its key name."""
    return f"""
    UPDATE label_sets SET item_id = {row}.id WHERE item_key = {row}.key
        AND dataset = (SELECT d.name FROM datasets d WHERE d.id = {row}.dataset_id);"""


def _item_out(row: str) -> str:
    """Trigger statement: an item gone (`row`) is no longer pointed at."""
    return f"""
    UPDATE label_sets SET item_id = NULL WHERE item_key = {row}.key AND item_id = {row}.id;"""


_REBUILD = ";\n".join(REBUILD_LABELS_SQL)

LABEL_STATE_MIGRATION = f"""
CREATE TABLE IF NOT EXISTS current_labels (
    run TEXT,
    dataset TEXT,
    item_key TEXT,
    label TEXT,
    entry_id INTEGER,
    PRIMARY KEY (run, dataset, item_key, label)
);
CREATE TABLE IF NOT EXISTS label_sets (
    run TEXT,
    dataset TEXT,
    item_key TEXT,
    labels TEXT NOT NULL,
    item_id INTEGER,
    PRIMARY KEY (run, dataset, item_key)
);
CREATE INDEX IF NOT EXISTS label_sets_order ON label_sets(run, dataset, labels, item_id);
CREATE INDEX IF NOT EXISTS label_sets_item ON label_sets(item_key);
{_REBUILD};
CREATE TRIGGER IF NOT EXISTS annotations_label_insert AFTER INSERT ON annotations
WHEN NEW.label IS NOT NULL AND NEW.action IN ('label', 'unlabel')
BEGIN {_own("NEW")}
END;
CREATE TRIGGER IF NOT EXISTS annotations_label_undo AFTER INSERT ON annotations
WHEN NEW.action = 'undo' AND {_is_label("NEW.ref")}
BEGIN {_named("NEW.ref")}
END;
CREATE TRIGGER IF NOT EXISTS annotations_label_update AFTER UPDATE OF run, dataset, item_key, label, action, ts
ON annotations WHEN OLD.label IS NOT NULL OR NEW.label IS NOT NULL
BEGIN {_own("OLD")}{_own("NEW")}
END;
CREATE TRIGGER IF NOT EXISTS annotations_label_ref AFTER UPDATE OF action, ref ON annotations
WHEN {_is_label("OLD.ref")} OR {_is_label("NEW.ref")}
BEGIN {_named("OLD.ref")}{_named("NEW.ref")}
END;
CREATE TRIGGER IF NOT EXISTS annotations_label_delete AFTER DELETE ON annotations
WHEN OLD.label IS NOT NULL OR {_is_label("OLD.ref")}
BEGIN {_own("OLD")}{_named("OLD.ref")}
END;
CREATE TRIGGER IF NOT EXISTS items_label_insert AFTER INSERT ON items
WHEN EXISTS (SELECT 1 FROM label_sets s WHERE s.item_key = NEW.key)
BEGIN {_item_in("NEW")}
END;
CREATE TRIGGER IF NOT EXISTS items_label_delete AFTER DELETE ON items
WHEN EXISTS (SELECT 1 FROM label_sets s WHERE s.item_key = OLD.key)
BEGIN {_item_out("OLD")}
END;
CREATE TRIGGER IF NOT EXISTS items_label_update AFTER UPDATE OF id, dataset_id, key ON items
WHEN EXISTS (SELECT 1 FROM label_sets s WHERE s.item_key IN (OLD.key, NEW.key))
BEGIN {_item_out("OLD")}{_item_in("NEW")}
END;
CREATE TRIGGER IF NOT EXISTS datasets_label_name AFTER UPDATE OF name ON datasets
WHEN OLD.name IS NOT NEW.name
BEGIN
    UPDATE label_sets SET item_id = NULL WHERE dataset = OLD.name;
    UPDATE label_sets SET item_id = (SELECT i.id FROM items i WHERE i.dataset_id = NEW.id AND i.key = label_sets.item_key)
        WHERE dataset = NEW.name;
END;
"""
"""Schema 17 → 18: the two tables, filled from the journal, and the triggers that keep them."""
