"""SQL of the values an item has beyond its own columns — stale now, run A's error category, its
labels, a judge's verdict, the cross-sentence flag as text — written once for the filters and
facets (`core.query.sql`) and the column registry (`core.query.columns`), which both import it.

The expressions are over the filter joins: items `i`, run A's predictions `p`.
"""

from __future__ import annotations

from qa_inspect.core.labels import labels_of_sql
from qa_inspect.core.store import STALE_GOLDS_SQL

__all__ = ["CATEGORY_SQL", "CROSS_SQL", "LABELLED_SQL", "LABELS_SQL", "NO_PREDICTION", "STALE_ITEMS_SQL", "judge_verdict_sql"]

NO_PREDICTION = "no prediction"
STALE_ITEMS_SQL = f"SELECT s.item_id FROM ({STALE_GOLDS_SQL}) s"
"""Ids of items with a gold flagged stale now (uncorrelated: SQLite evaluates it once)."""
CROSS_SQL = "CASE i.cross_sentence WHEN 1 THEN 'yes' WHEN 0 THEN 'no' END"
"""`items.cross_sentence` (1/0/NULL) as the text value facets and reports show (a selection is text)."""
CATEGORY_SQL = f"CASE WHEN p.id IS NULL THEN '{NO_PREDICTION}' ELSE p.error_category END"
"""Run A's error category of an item (`no prediction` when it has none): facets, filters, reports."""
LABELS_SQL = labels_of_sql("(SELECT r.name FROM runs r WHERE r.id = p.run_id)",
                           "(SELECT d.name FROM datasets d WHERE d.id = i.dataset_id)", "i.key")
"""Run A's labels of the item (`core.labels`), joined with ", ": an item with several labels counts
under their combination (one value per item, as every facet); NULL (none) when it has no labels.
One look-up in the stored label sets (`core.store.label_state`), not an evaluation of the journal."""
LABELLED_SQL = "i.id IN (SELECT s.item_id FROM label_sets s WHERE s.run = ?)"
"""True for every item with a label in the run named by the parameter: the label column's sparse
set (`ColumnDef.sparse`), ids SQLite reads once (the store keeps each label set's item id)."""


def judge_verdict_sql(judge_param: str = "?") -> str:
    """Run A's verdict of the item by one judge (the judge as a parameter): NULL when none."""
    return ("(SELECT v.verdict FROM verdicts v WHERE v.run = (SELECT r.name FROM runs r WHERE r.id = p.run_id)"
            f" AND v.item_key = i.key AND v.judge = {judge_param})")
